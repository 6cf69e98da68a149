/**
 * `for f in *.md; do wc -l "$f"; done`: inside the loop, `"$f"` is one of the words the loop went over — a name the
 * glob `*.md` matched (or the pattern itself when nothing matched). Judged as written, `"$f"` is a value the engine
 * cannot see, so every such loop asks (and under a Read deny, asks even in bypass mode). Judged with `"$f"` replaced by
 * the loop's word (`wc -l *.md`), it is what the shell could read: a quoted `"$f"` is exactly one name the glob
 * matches, never split or globbed again, and the engine already judges an unquoted glob as any of its matches.
 *
 * The replacement holds only while nothing can change `f` between the loop's start and its use, so it is made only
 * when all of these hold (else the command is judged as written):
 * - the loop goes over exactly one word, plain characters and the glob characters `*` `?` only (no quotes, `$`,
 *   braces, tildes, brackets or `=`): its expansion is names matching that pattern, nothing else;
 * - `f` is an ordinary lower-case shell variable (not `_`, which every command resets), and the command mentions it nowhere but in `$f`/`${f}` and the loop
 *   header (no assignment, `read f`, `declare`, nested `for f`, `printf -v f`…);
 * - the whole command has no function definition, assignment, declaration, arithmetic, `${…}` other than `${f}`, and
 *   no command that can assign a variable or run code in this shell (`eval`, `source`/`.`, `read`, `printf`, `let`,
 *   `trap`, `set`, `builtin`, `command`, `exec`, …): the set of ways a computed name could reach `f` is closed;
 * - `"$f"` (or `"${f}"`), a whole quoted word, is an argument of a command inside the loop's body, not its name and
 *   not a redirection: the only places where a glob and one of its matches are read alike.
 * Only the judgement sees the replaced text; the command that runs is the one the model wrote.
 */
import type { SyntaxNode } from './parser.js';

/** A loop word whose expansion is names matching it: plain characters and `*`, `?`. */
const LOOP_WORD = /^[A-Za-z0-9_./:@%+,*?-]+$/;
/** An ordinary lower-case name; not `_`, which bash sets to the previous command's last argument (`: .env; cat "$_"`). */
const LOOP_VARIABLE = /^(?!_$)[a-z_][a-z0-9_]*$/;

/** Node types after which a computed name could reach the variable, or code could run in this shell. */
const CLOSED_TYPES = new Set([
  'function_definition', 'variable_assignment', 'variable_assignments', 'declaration_command', 'unset_command',
  'arithmetic_expansion', 'c_style_for_statement', 'herestring_redirect',
]);

/** Builtins (and keywords parsed as commands) that assign variables or run code in the current shell. */
const SHELL_STATE = new Set([
  'eval', 'source', '.', 'read', 'mapfile', 'readarray', 'printf', 'getopts', 'declare', 'typeset', 'local', 'export',
  'readonly', 'let', 'unset', 'trap', 'set', 'shopt', 'builtin', 'command', 'enable', 'exec', 'alias', 'unalias', 'hash',
  'select', 'coproc', 'fc', 'history', 'bind', 'complete', 'compgen', 'compopt', 'caller',
  // `jobs -x CMD` runs CMD as a command of this shell (`jobs -x . ./setf`); `wait -p NAME` assigns NAME.
  'jobs', 'wait',
]);

/**
 * A command name as bash looks it up: a backslash quotes the next character and is removed (`\.`, `so\urce` are
 * `.` and `source`), a backslash-newline with its newline. Quotes and expansions never reach here: such a name is
 * not a plain `word` node.
 */
const lookedUp = (name: string): string => name.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');

/** The command with the first substitutable loop's `"$f"` words replaced, or undefined when none qualifies. */
export function loopSubstituted(command: string, root: SyntaxNode): string | undefined {
  if (!command.includes('for')) return undefined;
  const loops: SyntaxNode[] = [];
  let open = true;
  const visit = (n: SyntaxNode): void => {
    if (!open) return;
    if (CLOSED_TYPES.has(n.type) || (n.type === 'compound_statement' && n.firstChild?.type === '((')) open = false;
    if (n.type === 'command_name' && (n.firstChild?.type !== 'word' || SHELL_STATE.has(lookedUp(n.text)))) open = false;
    if (n.type === 'for_statement') loops.push(n);
    for (const c of n.children) visit(c);
  };
  visit(root);
  if (!open) return undefined;
  for (const loop of loops) {
    const out = substituteLoop(command, root, loop);
    if (out !== undefined) return out;
  }
  return undefined;
}

function substituteLoop(command: string, root: SyntaxNode, loop: SyntaxNode): string | undefined {
  const kids = loop.children;
  const variable = kids[1];
  const inAt = kids.findIndex((c) => c.type === 'in');
  const body = kids.find((c) => c.type === 'do_group');
  if (loop.firstChild?.type !== 'for' || variable?.type !== 'variable_name' || inAt !== 2 || !body) return undefined;
  const name = variable.text;
  if (!LOOP_VARIABLE.test(name)) return undefined;
  const words = kids.slice(inAt + 1).filter((c) => c.isNamed && c.type !== 'do_group' && c.type !== 'comment');
  if (words.length !== 1 || words[0]!.type !== 'word' || !LOOP_WORD.test(words[0]!.text)) return undefined;
  const value = words[0]!.text;
  if (mentionedElsewhere(command, name, variable)) return undefined;
  if (!onlyFAsExpansions(root, name)) return undefined;
  const spots: SyntaxNode[] = [];
  collectArguments(body, name, spots);
  if (spots.length === 0) return undefined;
  let out = '';
  let at = 0;
  for (const s of spots.sort((a, b) => a.startIndex - b.startIndex)) {
    out += command.slice(at, s.startIndex) + value;
    at = s.endIndex;
  }
  return out + command.slice(at);
}

/** Whether `name` appears in the text other than as `$name`, `${name}` or the loop's own header. */
function mentionedElsewhere(command: string, name: string, header: SyntaxNode): boolean {
  const text = command.slice(0, header.startIndex) + command.slice(header.endIndex);
  const withoutUses = text.replace(new RegExp(`\\$(?:${name}|\\{${name}\\})(?![A-Za-z0-9_])`, 'g'), '');
  return new RegExp(`(^|[^A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(withoutUses);
}

/** Every `${…}` in the command is exactly `${name}` (no operators, no other variable, no indirection). */
function onlyFAsExpansions(root: SyntaxNode, name: string): boolean {
  let ok = true;
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'expansion' && n.text !== `\${${name}}`) ok = false;
    for (const c of n.children) if (ok) visit(c);
  };
  visit(root);
  return ok;
}

/** `"$name"` / `"${name}"` strings that are whole arguments (not the name, not a redirection) of commands under `n`. */
function collectArguments(n: SyntaxNode, name: string, out: SyntaxNode[]): void {
  if (n.type === 'command') {
    for (const arg of n.children) {
      if (arg.type === 'string' && (arg.text === `"$${name}"` || arg.text === `"\${${name}}"`)) out.push(arg);
    }
  }
  for (const c of n.children) collectArguments(c, name, out);
}
