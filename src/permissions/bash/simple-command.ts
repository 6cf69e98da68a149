/**
 * The tree tree-sitter-bash gives a plain command — `git status`, `ls -la src`, `sleep 10` — and plain commands
 * joined by `|`, `&&`, `||` and `;` (`grep -n foo a.txt | head -20`, `npm ci && npm test`), built without loading
 * the wasm parser. Loading it (web-tree-sitter's JS, two wasm modules, the lexer's first compile) is most of what a
 * short process such as `toolgate check Bash '{"command":"git status"}'` spends; for commands made only of plain
 * words it is not needed.
 *
 * Strict by construction, not by judgement: a command qualifies only when every word is made of characters bash
 * gives no meaning to (no quotes, `$`, globs, `~`, `#`, braces, operators, redirections, backslashes, newlines, no
 * non-ASCII), the first word cannot be a keyword, a declaration builtin, an assignment or a number, and no other word
 * can be lexed as anything but a word or a whole number (nor start with `=`: `==` is an operator token). Anything
 * else returns null and goes to tree-sitter. Between commands only the operators `|`, `&&`, `||` and `;` are taken
 * (a `;` may also end the line); `|&`, `&`, `;;`, an operator with no command on one of its sides, or any other
 * operator character sends the whole line to tree-sitter. The joined tree is the grammar's: a pipeline is one flat
 * node, `&&`/`||` lists nest to the left, statements and their `;` are children of the program. The tree built here is node for node the one tree-sitter builds (types,
 * ranges, children): simple-command.test.ts checks that against the wasm parser for every string literal of the test
 * suite and for generated commands, so the analysis — and every decision after it — cannot tell the two apart.
 */
import { SyntaxNode, type ParsedBash } from './parser.js';

/** Characters of a plain word: none of them is special to bash in any position of a word. */
const PLAIN_WORD = /^[A-Za-z0-9_./:@%+,=-]+$/;
/** A first word that is a command name: no assignment (`=`), no number, no option-looking start. */
const COMMAND_NAME = /^[A-Za-z_./][A-Za-z0-9_./-]*$/;
/** tree-sitter-bash lexes these as `number`; a word that merely starts like one (`2.5`, `1a`, `0x1f`) is left to it. */
const NUMBER = /^-?[0-9]+$/;
const STARTS_LIKE_NUMBER = /^-?[0-9]/;

/**
 * First words the grammar reads as something other than a command name: reserved words, and the builtins it parses
 * as declaration or unset commands.
 */
const NOT_A_COMMAND_NAME = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in',
  'function', 'time', 'coproc', 'declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv',
]);

const NO_CHILDREN: readonly SyntaxNode[] = [];

function leaf(type: 'word' | 'number', start: number, end: number, source: string): SyntaxNode {
  return new SyntaxNode(type, true, start, end, NO_CHILDREN, source);
}

function node(type: string, children: SyntaxNode[], source: string): SyntaxNode {
  const out = new SyntaxNode(type, true, children[0]!.startIndex, children[children.length - 1]!.endIndex, children, source);
  for (const c of children) c.parent = out;
  return out;
}

/** One plain command's node from its words (source ranges), or null when a word is not plain. */
function plainCommand(words: readonly [number, number][], source: string): SyntaxNode | null {
  if (words.length === 0) return null;
  const [nameStart, nameEnd] = words[0]!;
  const name = source.slice(nameStart, nameEnd);
  if (!COMMAND_NAME.test(name) || NOT_A_COMMAND_NAME.has(name)) return null;
  const children: SyntaxNode[] = [node('command_name', [leaf('word', nameStart, nameEnd, source)], source)];
  for (let w = 1; w < words.length; w++) {
    const [start, end] = words[w]!;
    const text = source.slice(start, end);
    // `==` is a token of its own to the grammar (test expressions); a word starting with `=` is left to it.
    if (!PLAIN_WORD.test(text) || text.charCodeAt(0) === 61) return null;
    let type: 'word' | 'number' = 'word';
    if (STARTS_LIKE_NUMBER.test(text)) {
      if (!NUMBER.test(text)) return null;
      type = 'number';
    }
    children.push(leaf(type, start, end, source));
  }
  return node('command', children, source);
}

type Operator = '|' | '&&' | '||' | ';';
type Token = { op: Operator; start: number; end: number } | { word: [number, number] };

/** Words and the four operators taken; null at any other use of `|`, `&` or `;`. */
function tokens(source: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source.charCodeAt(i);
    if (c === 32 || c === 9) {
      i++;
      continue;
    }
    const next = source.charCodeAt(i + 1);
    if (c === 124 /* | */) {
      if (next === 38 /* & */) return null;
      const op = next === 124 ? '||' : '|';
      out.push({ op, start: i, end: i + op.length });
      i += op.length;
      continue;
    }
    if (c === 38 /* & */) {
      if (next !== 38) return null;
      out.push({ op: '&&', start: i, end: i + 2 });
      i += 2;
      continue;
    }
    if (c === 59 /* ; */) {
      if (next === 59 || next === 38) return null;
      out.push({ op: ';', start: i, end: i + 1 });
      i++;
      continue;
    }
    const start = i;
    while (i < source.length) {
      const d = source.charCodeAt(i);
      if (d === 32 || d === 9 || d === 124 || d === 38 || d === 59) break;
      i++;
    }
    out.push({ word: [start, i] });
  }
  return out;
}

/** The parse of plain commands and the operators between them, or null when it is anything more (tree-sitter's then). */
export function parseSimpleCommand(source: string): ParsedBash | null {
  const toks = tokens(source);
  if (toks === null || toks.length === 0) return null;
  const statements: SyntaxNode[] = [];
  // The statement being built: its list so far, the pipeline's parts, the current command's words.
  let list: SyntaxNode | null = null;
  let listOp: { op: Operator; start: number; end: number } | null = null;
  let pipe: SyntaxNode[] = [];
  let words: [number, number][] = [];
  const endCommand = (): boolean => {
    const command = plainCommand(words, source);
    words = [];
    if (command === null) return false;
    pipe.push(command);
    return true;
  };
  const endPipeline = (): boolean => {
    const part = pipe.length === 1 ? pipe[0]! : node('pipeline', pipe, source);
    pipe = [];
    list = list === null ? part : node('list', [list, anonymous(listOp!, source), part], source);
    return true;
  };
  for (const t of toks) {
    if ('word' in t) {
      words.push(t.word);
      continue;
    }
    if (!endCommand()) return null;
    if (t.op === '|') {
      pipe.push(anonymous(t, source));
      continue;
    }
    endPipeline();
    if (t.op === ';') {
      statements.push(list!, anonymous(t, source));
      list = null;
    } else listOp = t;
  }
  if (words.length > 0) {
    if (!endCommand()) return null;
    endPipeline();
    statements.push(list!);
  } else if (list !== null || pipe.length > 0) return null; // a line ending in `|`, `&&` or `||`
  return { root: node('program', statements, source), hasError: false, hasMissing: false };
}

function anonymous(t: { op: Operator; start: number; end: number }, source: string): SyntaxNode {
  return new SyntaxNode(t.op, false, t.start, t.end, NO_CHILDREN, source);
}
