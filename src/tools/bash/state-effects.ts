/**
 * Which shell state a command's *text* can change, read from the permission engine's own analysis of it (the parsed
 * tree: quoted text and comments name nothing): the variables it names in an assignment, a declaration (`export`,
 * `declare`, `unset`, …), `read`, `printf -v`, `for`, `getopts`, `wait -p` or `${name:=…}`, and which of them it
 * exports; the functions it defines or unsets; the directories its `cd`s can lead to.
 * What the shell reports after the command is kept only within these bounds (session-env.ts, cwd-tracking.ts): the
 * records are written by the command's own shell, so a command could forge them (`cat forged >&10`), and a command
 * whose text cannot change the state — a read-only one, `git status`, `npm test` — leaves nothing, whatever it wrote.
 *
 * Unbounded (`any`) only for what the engine never lets run without a person, a rule that names it or a mode:
 * `source`/`.`, `eval`, `exec`, `trap`, `enable`, a call to a function an earlier command left (state-review.ts
 * asks for any command that names one), a construct the analyser cannot reason about, or a command it cannot parse.
 */
import { analyzeBashCommand } from '../../permissions/bash/analyze.js';
import { assignmentName } from '../../permissions/bash/assignments.js';
import { classifySubcommand } from '../../permissions/bash/classify.js';
import { nextCwdState, type CwdState } from '../../permissions/bash/paths.js';
import type { SimpleCommand } from '../../permissions/bash/types.js';

/** Names a command may change; `any` when it runs code the text does not show. */
export type NameBound = ReadonlySet<string> | 'any';

/** Where the command may leave the shell: nowhere new, anywhere (still inside the working directories), or one of `dirs`. */
export type CwdBound = { readonly kind: 'none' } | { readonly kind: 'any' } | { readonly kind: 'dirs'; readonly dirs: readonly string[] };

export interface StateEffects {
  /** Variables the text may set or unset. */
  readonly variables: NameBound;
  /**
   * Variables the text may export or stop exporting (`export`, `declare -x`, `declare +x`, `export -n`; every one
   * after `set -a`). A name neither exported here nor in the environment the command starts with cannot carry over.
   */
  readonly exports: NameBound;
  readonly functions: NameBound;
  readonly cwd: CwdBound;
  /**
   * Which subcommand names which variables (an allow rule that covers that subcommand approves them, state-review.ts);
   * the variables of `for` loops and `${x:=…}` belong to no subcommand (`loose`): only a person or a mode approves them.
   */
  readonly setters: ReadonlyMap<SimpleCommand, ReadonlySet<string>>;
  readonly loose: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();
export const NO_EFFECTS: StateEffects = Object.freeze({
  variables: NONE,
  exports: NONE,
  functions: NONE,
  cwd: { kind: 'none' as const },
  setters: new Map(),
  loose: NONE,
});
const ALL_EFFECTS: StateEffects = Object.freeze({
  variables: 'any' as const,
  exports: 'any' as const,
  functions: 'any' as const,
  cwd: { kind: 'any' as const },
  setters: new Map(),
  loose: NONE,
});

/** Heads that run code the text does not show, or change how the shell runs the rest. */
const OPAQUE = new Set(['source', '.', 'eval', 'exec', 'trap', 'enable', 'fc', 'coproc']);
const DECLARATIONS = new Set(['export', 'declare', 'typeset', 'local', 'readonly', 'unset']);
/**
 * POSIX special builtins: an assignment before one stays in the shell when bash runs in POSIX mode (`set -o posix`,
 * POSIXLY_CORRECT). Before any other command an assignment is that command's alone and leaves the shell unchanged.
 */
const SPECIAL_BUILTINS = new Set([':', '.', 'break', 'continue', 'eval', 'exec', 'exit', 'export', 'readonly', 'return', 'set', 'shift', 'times', 'trap', 'unset', 'source']);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * What `command` can change, given the functions earlier commands left (`functions`), its start directory and home
 * (for `cd` targets). Everything comes from the engine's analysis of the text (the parsed tree: quoted text and
 * comments name nothing). Needs the Bash parser loaded for anything but plain commands (`loadBashParser`): an
 * analysis that fails for any reason counts as unbounded, as the engine asked about it.
 */
export function stateEffects(command: string, functions: ReadonlySet<string>, start: string, home: string | undefined): StateEffects {
  const analysis = analyzeBashCommand(command);
  if (!analysis.ok) return ALL_EFFECTS;
  const variables = new Set<string>();
  const exports = new Set<string>();
  let exportsAll = false;
  const defined = new Set<string>();
  const setters = new Map<SimpleCommand, Set<string>>();
  let cwd: CwdState | undefined;
  const initial: CwdState = { dirs: [start], unknown: false };
  // The commands of a `bash -c '…'` run in a child shell: they change nothing here (and are not looked at).
  for (const sub of analysis.subcommands) {
    if (sub.unsafeReason !== undefined || callsFunction(sub, functions)) return ALL_EFFECTS;
    const words = sub.kind === 'declaration' ? sub.words : sub.strippedWords;
    const head = words[0];
    if (sub.kind === 'command') {
      // The command as written and as allow rules see it (wrappers such as `command` and `time` taken off).
      for (const w of [sub.words[0], head]) if (w !== undefined && (!w.literal || OPAQUE.has(w.value))) return ALL_EFFECTS;
    }
    const named = new Set<string>();
    if (sub.kind === 'assignment' || (sub.kind === 'command' && SPECIAL_BUILTINS.has(sub.words[0]?.value ?? ''))) {
      for (const a of sub.assignments) named.add(assignmentName(a));
    }
    if (head?.literal === true) {
      const args = words.slice(1).map((w) => w.value);
      if (DECLARATIONS.has(head.value)) declared(head.value, args, named, exports, defined);
      else if (head.value === 'read') readTargets(args, named);
      else if (head.value === 'printf') optionValue(args, '-v', named);
      else if (head.value === 'wait') optionValue(args, '-p', named);
      else if (head.value === 'getopts' && args[1] !== undefined) named.add(args[1]).add('OPTARG').add('OPTIND');
      else if (head.value === 'set' && allExport(args)) exportsAll = true;
    }
    for (const name of named) if (!IDENT.test(name)) named.delete(name);
    if (named.size > 0) {
      setters.set(sub, named);
      for (const name of named) variables.add(name);
    }
    const verdict = classifySubcommand(sub);
    if (verdict.cd) cwd = nextCwdState(cwd ?? initial, verdict.cd.target, home, sub.cdCertain);
  }
  const loose = new Set<string>();
  for (const name of [...(analysis.names?.loops ?? []), ...(analysis.names?.defaults ?? [])]) if (IDENT.test(name)) loose.add(name);
  for (const name of loose) variables.add(name);
  for (const name of analysis.names?.functions ?? []) defined.add(name);
  const cwdBound: CwdBound = cwd === undefined ? { kind: 'none' } : cwd.unknown ? { kind: 'any' } : { kind: 'dirs', dirs: cwd.dirs };
  return { variables, exports: exportsAll ? 'any' : exports, functions: defined, cwd: cwdBound, setters, loose };
}

/**
 * Whether a subcommand names one of the functions earlier commands left, anywhere among its words (not only as the
 * command: state-review.ts asks for every such command, so nothing unbounded here is approved without being seen).
 */
export function callsFunction(sub: SimpleCommand, functions: ReadonlySet<string>): boolean {
  if (functions.size === 0) return false;
  return sub.words.some((w) => functions.has(w.value)) || sub.strippedWords.some((w) => functions.has(w.value));
}

/** `export a=1 b`, `declare -x c`, `unset d`, `unset -f e`, `export -f f`, `declare +x g`: the names, as variables or functions. */
function declared(keyword: string, args: readonly string[], variables: Set<string>, exports: Set<string>, functions: Set<string>): void {
  const flags = args.filter((a) => /^[-+]/.test(a)).join('');
  const names = args.filter((a) => !/^[-+]/.test(a)).map(assignmentName);
  // `unset name` with no option removes a variable, or a function of that name when there is no such variable.
  const fns = flags.includes('f') || (keyword === 'unset' && !flags.includes('v'));
  const vars = !flags.includes('f');
  const exported = vars && (keyword === 'export' || flags.includes('x'));
  for (const name of names) {
    if (vars) variables.add(name);
    if (exported) exports.add(name);
    if (fns) functions.add(name);
  }
}

/** `set -a`, `set -o allexport` (or a cluster with `a`): every variable assigned afterwards is exported. */
function allExport(args: readonly string[]): boolean {
  return args.some((a, i) => /^-[A-Za-z]*a/.test(a) || (a === '-o' && args[i + 1] === 'allexport') || a === '-oallexport');
}

/** `read [-options] name…` (`-a array` too; the values of `-d -i -n -N -p -t -u` are not names). */
function readTargets(args: readonly string[], variables: Set<string>): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^-[dinNptu]$/.test(a)) i++;
    else if (a === '-a') variables.add(args[++i] ?? '');
    else if (!a.startsWith('-')) variables.add(a);
  }
}

function optionValue(args: readonly string[], option: string, variables: Set<string>): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === option) variables.add(args[i + 1] ?? '');
    else if (a.startsWith(option) && a.length > option.length) variables.add(a.slice(option.length));
  }
}

/** Whether `name` is within `bound`. */
export function within(bound: NameBound, name: string): boolean {
  return bound === 'any' || bound.has(name);
}

/** Whether the bound allows anything at all. */
export function anyEffect(bound: NameBound): boolean {
  return bound === 'any' || bound.size > 0;
}
