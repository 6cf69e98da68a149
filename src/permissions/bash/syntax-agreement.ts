/**
 * Where tree-sitter-bash and bash read a command differently. tree-sitter is a forgiving parser: it accepts `;;`
 * outside a `case` (`ls ;; pwd`), takes a reserved word in command position as a command's name (`then ls`, `} x`,
 * `time }`), accepts empty bodies (`{ }`), reads `> 2>&1` as a redirect to a file named `2`, and drops an escaped
 * blank so that `ls \ #; rm x` becomes `ls` and a comment. Bash reports a syntax error or runs something else. Each
 * check says why the tree is not what bash runs; the analysis then fails closed (a parse error: ask, never allow).
 * Found by running generated commands through both (`bash -n` and the parser): see syntax-agreement.test.ts.
 */
import type { SyntaxNode } from './parser.js';

const CASE_TERMINATORS = new Set([';;', ';&', ';;&']);
/** Words bash reads as syntax in command position (`coproc` too, which tree-sitter does not know). */
const RESERVED_WORDS = new Set([
  'then', 'do', 'done', 'fi', 'esac', 'in', 'else', 'elif', '{', '}', '[[', ']]', '!', 'if', 'while', 'until', 'for',
  'case', 'select', 'function', 'coproc',
]);
const OPENERS = new Set(['then', 'do', 'else', '{', '(']);
const CLOSERS = new Set(['fi', 'done', '}', ')', 'else', 'elif', 'elif_clause', 'else_clause']);

/** Checks on a node whose children the walker visits: stray `;;`, `!` inside a pipeline, an empty body. */
export function structureMismatch(node: SyntaxNode): string | undefined {
  if (node.type !== 'case_item') {
    const stray = node.children.find((c) => !c.isNamed && CASE_TERMINATORS.has(c.type));
    if (stray) return `${stray.type} outside a case statement`;
  }
  if (node.type === 'pipeline' && node.namedChildren.slice(1).some((c) => c.type === 'negated_command')) {
    return '`!` inside a pipeline (bash takes it only at the start)';
  }
  // `{ }`, `then fi`, `do done`: a body with no command.
  const kids = node.children.filter((c) => c.type !== 'comment');
  for (let i = 0; i < kids.length; i++) {
    const k = kids[i]!;
    if (k.isNamed || !OPENERS.has(k.type)) continue;
    // Braces and parentheses open a body only as a group or a subshell (not `f() { … }`'s `()`, not `(x)` in a case).
    if ((k.type === '{' && node.type !== 'compound_statement') || (k.type === '(' && node.type !== 'subshell')) continue;
    const next = kids[i + 1];
    if (next === undefined ? node.type === 'else_clause' : CLOSERS.has(next.type)) {
      return `an empty ${k.type} … ${next?.type ?? 'end'} body (bash requires a command there)`;
    }
  }
  return undefined;
}

const plainText = (n: SyntaxNode | undefined): string | undefined =>
  n && (n.type === 'word' || (n.type === 'concatenation' && n.children.every((c) => c.type === 'word'))) ? n.text : undefined;

/** A simple command: a reserved word as its name (or after `time`), a bare `time` before `&`/`|`, `cmd ( … )`. */
export function commandMismatch(command: SyntaxNode): string | undefined {
  const children = command.children;
  const group = children.find((c) => c.type === 'subshell' || c.type === 'compound_statement');
  if (group) return `${JSON.stringify(group.text.slice(0, 20))} where a word was expected`;
  const nameNode = children.find((c) => c.type === 'command_name');
  // After a redirection or an assignment a reserved word is an ordinary name (`> f then` runs `then`).
  if (!nameNode || children[0] !== nameNode) return undefined;
  const name = nameNode.firstNamedChild ?? nameNode;
  const args = children.filter((c) => c.isNamed && c !== nameNode && c.type !== 'comment');
  let i = 0;
  let word = plainText(name);
  // `time` and `time -p` are followed by a command name too.
  while (word === 'time' || (word !== undefined && i > 0 && /^(-p|--)$/.test(word))) word = plainText(args[i++]);
  if (word !== undefined && RESERVED_WORDS.has(word)) return `the reserved word ${JSON.stringify(word)} where a command name was expected`;
  if (word === undefined && i > args.length && plainText(name) === 'time') {
    // A bare `time` must be followed by a pipeline when `&` or `|` comes next.
    let stage = command;
    while (stage.parent?.type === 'negated_command') stage = stage.parent;
    const siblings = stage.parent?.children ?? [];
    const after = siblings[siblings.indexOf(stage) + 1];
    if (after !== undefined && /^(&&?|\|\|?|\|&)$/.test(after.type)) return `a bare time before ${after.type}`;
  }
  return undefined;
}

/**
 * A redirection: `> 2>&1` (a number right before `>` is a descriptor, so `2>&1` is one redirection, not the target
 * `2`), a comment where the target should be, a target on the next line (a newline ends the command first).
 */
export function redirectMismatch(r: SyntaxNode, target: SyntaxNode): string | undefined {
  let top = r;
  while (top.parent) top = top.parent;
  const next = top.descendantForIndex(target.endIndex);
  if (target.type === 'number' && next.startIndex === target.endIndex && /^[<>&]/.test(next.text)) {
    return `a descriptor number where a redirection target was expected (${JSON.stringify(r.text + next.text)})`;
  }
  if (r.children.some((c) => c.type === 'comment')) return 'a comment where a redirection target was expected';
  const beforeTarget = r.text.slice(0, target.startIndex - r.startIndex).replace(/\\\n/g, '');
  if (beforeTarget.includes('\n')) return 'a redirection whose target is on the next line';
  return undefined;
}

/**
 * Text the tree does not account for as bash would. Between tokens there may only be blanks, newlines and line
 * continuations, a token is exactly its text, the parts of a word touch, and a simple command ends at a newline;
 * anything else means the parser read the text differently from bash. For instance `ls \ #; rm -rf x` is `ls` and a
 * comment to tree-sitter (it drops the escaped blank), but to bash `\ #` is a word and `rm -rf x` runs.
 */
/** Inside a string or a `${…}` a word may hold blanks (`"${x:- }"`). */
function quotedContext(n: SyntaxNode): boolean {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'string' || p.type === 'expansion' || p.type === 'heredoc_body') return true;
  return false;
}

export function treeMismatch(source: string, root: SyntaxNode): string | undefined {
  const leaves: SyntaxNode[] = [];
  let odd: string | undefined;
  const collect = (n: SyntaxNode): void => {
    if (n.children.length === 0) {
      leaves.push(n);
      // One word cannot hold an unescaped blank (`} ]` is two words to bash, or a syntax error); a token is its text.
      if (n.type === 'word' && /(^|[^\\])(\\\\)*[ \t\n]/.test(n.text) && !quotedContext(n)) odd ??= n.text;
      // (Inside a string the closing quote may carry the blanks before it: `" "` ends in a token ` "`.)
      if (!n.isNamed && n.text.trimStart() !== n.type) odd ??= n.text;
      return;
    }
    // The parts of one word touch; a simple command does not go on past a newline.
    const joined = n.type === 'concatenation' ? '' : n.type === 'command' ? '\n' : undefined;
    if (joined !== undefined) {
      for (let i = 1; i < n.children.length; i++) {
        const gap = source.slice(n.children[i - 1]!.endIndex, n.children[i]!.startIndex).replace(/\\\n/g, '');
        if (joined === '' ? gap !== '' : gap.includes(joined)) odd ??= n.text;
      }
    }
    for (const c of n.children) collect(c);
  };
  collect(root);
  if (odd !== undefined) return odd;
  // Heredoc bodies sit in the tree beside their operator, not where they are in the text: compare in text order.
  leaves.sort((a, b) => a.startIndex - b.startIndex);
  let pos = 0;
  for (const leaf of [...leaves, undefined]) {
    const start = leaf ? leaf.startIndex : source.length;
    if (start > pos) {
      const gap = source.slice(pos, start);
      if (!/^(?:[ \t\n]|\\\n)*$/.test(gap)) return gap;
    }
    if (leaf) pos = Math.max(pos, leaf.endIndex);
  }
  return undefined;
}

