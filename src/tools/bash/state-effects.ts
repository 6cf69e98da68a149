/**
 * Which shell state a command's *text* can change, read from the permission engine's own analysis of it: the
 * variables it names in an assignment, a declaration (`export`, `declare`, `unset`, …), `read`, `printf -v`, `for`,
 * `getopts`, `wait -p` or `${name:=…}`; the functions it defines or unsets; the directories its `cd`s can lead to.
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
import { flattenSubcommands } from '../../permissions/bash/read-only.js';
import type { SimpleCommand } from '../../permissions/bash/types.js';

/** Names a command may change; `any` when it runs code the text does not show. */
export type NameBound = ReadonlySet<string> | 'any';

/** Where the command may leave the shell: nowhere new, anywhere (still inside the working directories), or one of `dirs`. */
export type CwdBound = { readonly kind: 'none' } | { readonly kind: 'any' } | { readonly kind: 'dirs'; readonly dirs: readonly string[] };

export interface StateEffects {
  readonly variables: NameBound;
  readonly functions: NameBound;
  readonly cwd: CwdBound;
}

export const NO_EFFECTS: StateEffects = Object.freeze({ variables: new Set<string>(), functions: new Set<string>(), cwd: { kind: 'none' as const } });
const ALL_EFFECTS: StateEffects = Object.freeze({ variables: 'any' as const, functions: 'any' as const, cwd: { kind: 'any' as const } });

/** Heads that run code the text does not show, or change how the shell runs the rest. */
const OPAQUE = new Set(['source', '.', 'eval', 'exec', 'trap', 'enable', 'fc', 'coproc']);
const DECLARATIONS = new Set(['export', 'declare', 'typeset', 'local', 'readonly', 'unset']);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `${name:=…}` and `${name=…}` assign when the name is unset (or empty). */
const DEFAULT_ASSIGN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?:?=/g;
const LOOP_VARIABLE = /(?:^|[\s;&|(){}])(?:for|select)\s+([A-Za-z_][A-Za-z0-9_]*)/g;
/** `name()` or `function name`: the definitions in the text. */
const FUNCTION_DEFINITION = /(?:^|[\s;&|(){}`])(?:function\s+([^\s;&|()<>{}$`'"\\=]+)|([^\s;&|()<>{}$`'"\\=]+)\s*\(\s*\))/g;

/**
 * What `command` can change, given the functions earlier commands left (`functions`), its start directory and home
 * (for `cd` targets). Needs the Bash parser loaded for anything but plain commands (`loadBashParser`): an analysis
 * that fails for any reason counts as unbounded, as the engine asked about it.
 */
export function stateEffects(command: string, functions: ReadonlySet<string>, start: string, home: string | undefined): StateEffects {
  const analysis = analyzeBashCommand(command);
  if (!analysis.ok) return ALL_EFFECTS;
  const variables = new Set<string>();
  const defined = new Set<string>();
  let cwd: CwdState | undefined;
  const initial: CwdState = { dirs: [start], unknown: false };
  for (const sub of flattenSubcommands(analysis.subcommands)) {
    if (sub.unsafeReason !== undefined || callsFunction(sub, functions)) return ALL_EFFECTS;
    for (const a of sub.assignments) variables.add(assignmentName(a));
    const words = sub.kind === 'declaration' ? sub.words : sub.strippedWords;
    const head = words[0];
    if (sub.kind === 'command') {
      // The command as written and as allow rules see it (wrappers such as `command` and `time` taken off).
      for (const w of [sub.words[0], head]) if (w !== undefined && (!w.literal || OPAQUE.has(w.value))) return ALL_EFFECTS;
    }
    if (head?.literal !== true) continue;
    const args = words.slice(1).map((w) => w.value);
    if (DECLARATIONS.has(head.value)) declared(head.value, args, variables, defined);
    else if (head.value === 'read') readTargets(args, variables);
    else if (head.value === 'printf') optionValue(args, '-v', variables);
    else if (head.value === 'wait') optionValue(args, '-p', variables);
    else if (head.value === 'getopts' && args[1] !== undefined) variables.add(args[1]).add('OPTARG').add('OPTIND');
    const verdict = classifySubcommand(sub);
    if (verdict.cd) cwd = nextCwdState(cwd ?? initial, verdict.cd.target, home, sub.cdCertain);
  }
  for (const m of command.matchAll(DEFAULT_ASSIGN)) variables.add(m[1]!);
  for (const m of command.matchAll(LOOP_VARIABLE)) variables.add(m[1]!);
  for (const m of command.matchAll(FUNCTION_DEFINITION)) defined.add((m[1] ?? m[2])!);
  for (const name of variables) if (!IDENT.test(name)) variables.delete(name);
  const cwdBound: CwdBound = cwd === undefined ? { kind: 'none' } : cwd.unknown ? { kind: 'any' } : { kind: 'dirs', dirs: cwd.dirs };
  return { variables, functions: defined, cwd: cwdBound };
}

/**
 * Whether a subcommand names one of the functions earlier commands left, anywhere among its words (not only as the
 * command: state-review.ts asks for every such command, so nothing unbounded here is approved without being seen).
 */
export function callsFunction(sub: SimpleCommand, functions: ReadonlySet<string>): boolean {
  if (functions.size === 0) return false;
  return sub.words.some((w) => functions.has(w.value)) || sub.strippedWords.some((w) => functions.has(w.value));
}

/** `export a=1 b`, `declare -x c`, `unset d`, `unset -f e`, `export -f f`: the names, as variables or functions. */
function declared(keyword: string, args: readonly string[], variables: Set<string>, functions: Set<string>): void {
  const flags = args.filter((a) => a.startsWith('-')).join('');
  const names = args.filter((a) => !a.startsWith('-')).map(assignmentName);
  // `unset name` with no option removes a variable, or a function of that name when there is no such variable.
  const fns = flags.includes('f') || (keyword === 'unset' && !flags.includes('v'));
  const vars = !flags.includes('f');
  for (const name of names) {
    if (vars) variables.add(name);
    if (fns) functions.add(name);
  }
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
