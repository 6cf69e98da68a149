/**
 * The one tree-sitter parser for bash. Loaded on first need (`loadBashParser()`, which the permission engine awaits
 * before it judges a shell tool's call), not at import: compiling the wasm costs ~50–150 ms and ~14 MB, which a
 * process that never judges a command (`mcp serve` listing its tools, `toolgate check Read …`) should not pay. Once
 * loaded, every analysis is synchronous. Each parse is copied into a plain JS tree and the wasm tree freed at once:
 * reading node properties through web-tree-sitter costs a wasm round trip each, and the analysis reads them many times.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Language, Parser, Tree } from 'web-tree-sitter';
import { withBaselineWasm } from '../../tool/wasm-tiering.js';

const require = createRequire(import.meta.url);

/**
 * The Emscripten module behind web-tree-sitter: `Parser.init(options)` makes the options object the module itself.
 * The copy-out walks each tree with web-tree-sitter's own cursor entry points but calls them directly: its
 * TreeCursor class copies the cursor between JS and the wasm transfer buffer on every step (8 memory accesses and
 * an object per node), while the cursor state can simply stay in the transfer buffer for the whole walk — nothing
 * else touches that buffer meanwhile (the walk is synchronous and calls nothing else in web-tree-sitter).
 */
interface CursorBinding {
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_node_has_error_wasm(tree: number): number;
}
const CURSOR_FUNCTIONS = [
  '_ts_tree_cursor_goto_first_child_wasm', '_ts_tree_cursor_goto_next_sibling_wasm', '_ts_tree_cursor_goto_parent_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm', '_ts_tree_cursor_start_index_wasm', '_ts_tree_cursor_end_index_wasm',
  '_ts_tree_cursor_delete_wasm', '_ts_tree_cursor_new_wasm', '_ts_tree_root_node_wasm', '_ts_node_has_error_wasm',
] as const;

interface Loaded {
  readonly parser: Parser;
  readonly wasm: CursorBinding;
  readonly types: readonly string[];
  /** Named-ness per type id, computed once (65535 is ERROR). */
  readonly namedTypes: readonly boolean[];
  readonly language: Language;
}

let loaded: Loaded | undefined;
let loading: Promise<void> | undefined;

/*
 * Compiled under a raised wasm tiering budget (src/tool/wasm-tiering.ts): the grammar's lexer is one 160 KB wasm
 * function that, with V8's default budget, the first parse sends to TurboFan — a ~700 ms, ~60 MB background compile
 * a short process then waits for at exit (most of the time of `toolgate check Bash …` once).
 */
async function load(): Promise<Loaded> {
  // Imported here, not at the top: web-tree-sitter's 150 KB of JS is compiled only by processes that judge a command.
  const { Language, Parser } = await import('web-tree-sitter');
  const binding: Partial<CursorBinding> = {};
  const bytes = readFileSync(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const language: Language = await withBaselineWasm(async () => {
    await Parser.init(binding);
    return Language.load(bytes);
  });
  const parser = new Parser();
  parser.setLanguage(language);
  for (const name of CURSOR_FUNCTIONS) {
    if (typeof binding[name] !== 'function') throw new Error(`web-tree-sitter no longer exposes ${name}: the bash parser cannot walk trees`);
  }
  const namedTypes: boolean[] = [];
  for (let id = 0; id < language.nodeTypeCount; id++) namedTypes[id] = language.nodeTypeIsNamed(id);
  return { parser, wasm: binding as CursorBinding, types: language.types, namedTypes, language };
}

/** Loads the parser once (later calls share the first); a failed load is tried again by the next call. */
export function loadBashParser(): Promise<void> {
  loading ??= load().then(
    (l) => {
      loaded = l;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Whether commands can be parsed now (until then every analysis fails closed: see parseBash). */
export function isBashParserLoaded(): boolean {
  return loaded !== undefined;
}

/** Thrown by parseBash before the parser is loaded: the analysis turns it into "cannot analyse" (ask, never allow). */
export class BashParserNotLoadedError extends Error {
  constructor() {
    super('the bash parser is not loaded yet (await loadBashParser() first)');
    this.name = 'BashParserNotLoadedError';
  }
}

function isNamedType(l: Loaded, typeId: number): boolean {
  return typeId === 65535 || (l.namedTypes[typeId] ?? l.language.nodeTypeIsNamed(typeId));
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

const NO_CHILDREN: readonly SyntaxNode[] = [];

// Depth-first over the cursor held in the transfer buffer (see CursorBinding).
function copy(l: Loaded, tree: number, source: string, counter: { errors: number }): SyntaxNode {
  const wasm = l.wasm;
  const typeId = wasm._ts_tree_cursor_current_node_type_id_wasm(tree);
  const type = l.types[typeId] ?? 'ERROR';
  const named = isNamedType(l, typeId);
  if (type === 'ERROR') counter.errors++;
  const startIndex = wasm._ts_tree_cursor_start_index_wasm(tree);
  // Anonymous nodes (tokens) and named leaves have no children; an internal node ends where its last child ends.
  let children = NO_CHILDREN;
  if (named && !LEAF_TYPES.has(type) && wasm._ts_tree_cursor_goto_first_child_wasm(tree) === 1) {
    const list: SyntaxNode[] = [];
    do list.push(copy(l, tree, source, counter));
    while (wasm._ts_tree_cursor_goto_next_sibling_wasm(tree) === 1);
    wasm._ts_tree_cursor_goto_parent_wasm(tree);
    children = list;
  }
  const last = children[children.length - 1];
  const endIndex = last ? last.endIndex : wasm._ts_tree_cursor_end_index_wasm(tree);
  const out = new SyntaxNode(type, named, startIndex, endIndex, children, source);
  for (const c of children) c.parent = out;
  return out;
}

/** The tree copied out, and whether it has an error or missing node anywhere. */
function copyTree(l: Loaded, tree: Tree, source: string, counter: { errors: number }): { root: SyntaxNode; hasError: boolean } {
  const wasm = l.wasm;
  const treePtr = (tree as unknown as { readonly 0: number })[0];
  // The root node goes into the transfer buffer; the error check and the new cursor read it from there (what
  // `tree.rootNode.hasError` and `tree.walk()` do, without their JS objects). From then on only the direct calls
  // move the cursor, and the delete frees whatever stack it grew to.
  wasm._ts_tree_root_node_wasm(treePtr);
  const hasError = wasm._ts_node_has_error_wasm(treePtr) === 1;
  wasm._ts_tree_root_node_wasm(treePtr);
  wasm._ts_tree_cursor_new_wasm(treePtr);
  try {
    return { root: copy(l, treePtr, source, counter), hasError };
  } finally {
    wasm._ts_tree_cursor_delete_wasm(treePtr);
  }
}

export interface ParsedBash {
  readonly root: SyntaxNode;
  /** The tree has an error or a missing (parser-inserted) node somewhere. */
  readonly hasError: boolean;
  /** Errors other than ERROR nodes: a token the parser had to invent (`MISSING`). */
  readonly hasMissing: boolean;
}

/** Parse a bash command into a plain tree; null when the parser gave up. Throws before loadBashParser() resolved. */
export function parseBash(source: string): ParsedBash | null {
  const l = loaded;
  if (l === undefined) throw new BashParserNotLoadedError();
  l.parser.reset();
  const tree = l.parser.parse(source);
  if (!tree) return null;
  try {
    const counter = { errors: 0 };
    const { root, hasError } = copyTree(l, tree, source, counter);
    return { root, hasError, hasMissing: hasError && counter.errors === 0 };
  } finally {
    tree.delete();
  }
}
