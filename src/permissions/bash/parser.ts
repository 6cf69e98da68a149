/**
 * The one tree-sitter parser for bash, loaded once at import (top-level await) so every analysis after import is
 * synchronous. Each parse is copied into a plain JS tree and the wasm tree freed at once: reading node properties
 * through web-tree-sitter costs a wasm round trip each, and the analysis reads them many times.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { Language, Parser, type Node } from 'web-tree-sitter';

const require = createRequire(import.meta.url);

await Parser.init();
const bash = await Language.load(readFileSync(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
const parser = new Parser();
parser.setLanguage(bash);

const types = bash.types;
const namedCache = new Map<number, boolean>();
function isNamedType(typeId: number): boolean {
  let named = namedCache.get(typeId);
  if (named === undefined) {
    named = typeId === 65535 || bash.nodeTypeIsNamed(typeId);
    namedCache.set(typeId, named);
  }
  return named;
}

/** A node of a parsed command: type, UTF-16 offsets into the source, children. */
export class SyntaxNode {
  parent: SyntaxNode | null = null;
  private named_: SyntaxNode[] | undefined;

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    readonly children: readonly SyntaxNode[],
    private readonly source: string,
  ) {}

  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }

  get namedChildren(): readonly SyntaxNode[] {
    return (this.named_ ??= this.children.filter((c) => c.isNamed));
  }

  get firstChild(): SyntaxNode | null {
    return this.children[0] ?? null;
  }

  get firstNamedChild(): SyntaxNode | null {
    return this.namedChildren[0] ?? null;
  }

  /** The deepest node whose range contains `index`. */
  descendantForIndex(index: number): SyntaxNode {
    for (const child of this.children) {
      if (child.startIndex <= index && index < child.endIndex) return child.descendantForIndex(index);
    }
    return this;
  }
}

/** Named node types that are always leaves: no need to ask wasm for their children. */
const LEAF_TYPES = new Set([
  'word', 'number', 'raw_string', 'ansi_c_string', 'string_content', 'heredoc_content', 'heredoc_start', 'heredoc_end',
  'file_descriptor', 'variable_name', 'special_variable_name', 'test_operator', 'regex', 'comment', 'extglob_pattern',
]);

function copy(node: Node, source: string, counter: { errors: number }): SyntaxNode {
  const typeId = node.typeId;
  const type = types[typeId] ?? 'ERROR';
  const named = isNamedType(typeId);
  if (type === 'ERROR') counter.errors++;
  // Anonymous nodes (tokens) and named leaves have no children; an internal node ends where its last child ends.
  const children = named && !LEAF_TYPES.has(type) ? node.children.map((c) => copy(c!, source, counter)) : [];
  const last = children[children.length - 1];
  const out = new SyntaxNode(type, named, node.startIndex, last ? last.endIndex : node.endIndex, children, source);
  for (const c of children) c.parent = out;
  return out;
}

export interface ParsedBash {
  readonly root: SyntaxNode;
  /** The tree has an error or a missing (parser-inserted) node somewhere. */
  readonly hasError: boolean;
  /** Errors other than ERROR nodes: a token the parser had to invent (`MISSING`). */
  readonly hasMissing: boolean;
}

/** Parse a bash command into a plain tree; null when the parser gave up. */
export function parseBash(source: string): ParsedBash | null {
  parser.reset();
  const tree = parser.parse(source);
  if (!tree) return null;
  try {
    const counter = { errors: 0 };
    const root = copy(tree.rootNode, source, counter);
    const hasError = tree.rootNode.hasError;
    return { root, hasError, hasMissing: hasError && counter.errors === 0 };
  } finally {
    tree.delete();
  }
}
