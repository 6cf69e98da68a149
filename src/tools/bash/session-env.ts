/**
 * The Bash session's environment: what a command leaves behind — exported variables it set, changed or unset, and the
 * functions it defined — is the next command's starting point, as the working directory is (cwd-tracking.ts).
 *
 * How: the shell writes its exported variables (`declare -px`) just before the command and again at its exit, and its
 * functions at exit when the command may have changed them (shell-script.ts, through the state descriptor, so it
 * works inside the sandbox too). The difference is a delta
 * that a `contextModifier` merges into the agent's `sessionState` — never a module global, never a file: two runtimes
 * (sessions) in one process do not see each other's, concurrent calls each see the state of their start and their
 * changes apply in call order (the executor applies concurrent calls' modifiers in call order when the batch ends), a
 * sub-agent starts from its parent's and keeps its changes to itself. The next command gets the variables through its
 * process environment and the functions as `BASH_FUNC_<name>%%` variables, which bash itself imports as exactly one
 * function definition each (nothing in them can run at import time), then stops exporting (shell-script.ts).
 *
 * The records are written by the command's own shell, so they are untrusted data (docs/security.md, section 1): a
 * change is kept only if the command's text can make it (state-effects.ts: a read-only command, `git status` or
 * `npm test` keeps nothing, whatever it wrote to the descriptor) and the policy lets it through (state-policy.ts:
 * never variables that make programs run other code or read elsewhere — `NODE_OPTIONS`, `LD_*`, `GIT_*`, `BASH_ENV`,
 * pagers, … —, a PATH with a relative entry, or a function named like a builtin, program or hook); the policy is
 * checked again as the state is applied, and the engine judges each later command with what is kept
 * (state-review.ts). Records written twice mean something else wrote there: nothing of them is used.
 *
 * Not kept either: a command killed (abort, timeout, output cap) or sent to the background (a command cut halfway
 * left a half-made environment); aliases and shell options (aliases are off in a non-interactive shell); variables
 * that are not exported; a variable whose name looks like a credential or whose value carries a known secret (the
 * runtime removed such values from the environment; they are not brought back, and the note names them, never their
 * values); anything too large to pass to a process. Variables and functions that sandboxed commands left are not
 * applied to a command that runs outside the sandbox (an auto-allowed sandboxed command must not be able to steer
 * what a later unsandboxed one runs). `bash.persistEnvironment: false` turns it off.
 */
import { redactorFor, secretEnvNames } from '../../execution/redaction.js';
import type { ToolSettings, ToolUseContext } from '../../tool/tool-use-context.js';
import { DEFAULT_SECRET_ENV_PATTERNS } from './bash-settings.js';
import { within, type StateEffects } from './state-effects.js';
import { refusedEntry, refusedFunction, refusedFunctionName, refusedPath, refusedVariable } from './state-policy.js';

export interface ShellEntry<T> {
  readonly value: T;
  /** Left by a command that ran in the sandbox: not applied outside it. */
  readonly sandboxed: boolean;
}

export interface BashShellState {
  /** Exported variables set (a string) or unset (`null`) by earlier commands, over the runtime's environment. */
  readonly variables: Readonly<Record<string, ShellEntry<string | null>>>;
  /** Functions, as bash imports them from the environment: `() { … }`. */
  readonly functions: Readonly<Record<string, ShellEntry<string>>>;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolSessionState {
    /** The Bash tool's persisted environment (session-env.ts). */
    readonly bashShell?: BashShellState;
  }
}

/** What the shell recorded (shell-script.ts): the exported variables before and after the command, the functions after. */
export interface ShellCapture {
  readonly start: ReadonlyMap<string, string>;
  readonly exit: ReadonlyMap<string, string>;
  /** Name → `declare -f` text; absent when the command could not change functions and they were not read back. */
  readonly functions?: ReadonlyMap<string, string>;
}

export interface ShellStateRecords {
  readonly cwd?: string;
  /** Present only when both dumps are complete. */
  readonly capture?: ShellCapture;
  /**
   * The records were not the one set the prologue writes (a record twice: something else wrote to the state
   * descriptor): nothing of them is used.
   */
  readonly malformed?: true;
}

/** The changes one command made, to merge into the state (`mergeShellState`). */
export interface ShellDelta {
  readonly variables: ReadonlyMap<string, string | null>;
  readonly functions: ReadonlyMap<string, string | null>;
  readonly sandboxed: boolean;
}

/** Linux's limit on one environment string (`MAX_ARG_STRLEN`, 32 pages), less the terminating NUL. */
const MAX_ENTRY_BYTES = 128 * 1024 - 1;
/** All persisted variables and functions together: the environment shares ARG_MAX (~2 MB) with the command line. */
const MAX_STATE_BYTES = 1024 * 1024;
/** A state file larger than this is not read (a command could write anything to the descriptor). */
export const MAX_STATE_FILE_BYTES = 16 * 1024 * 1024;

export function persistEnvironment(settings: ToolSettings): boolean {
  return settings.bash?.persistEnvironment !== false;
}

export function shellStateOf(context: Pick<ToolUseContext, 'sessionState'>): BashShellState | undefined {
  return context.sessionState?.bashShell;
}

export interface AppliedShellState {
  /** The functions handed to the shell (name → `() { … }`). */
  readonly functions: ReadonlyMap<string, string>;
  /** How many entries were held back because sandboxed commands left them and this one runs outside the sandbox. */
  readonly withheld: number;
}

/** Puts the state into `env` (a fresh object the caller owns) for a command that runs sandboxed or not. */
export function applyShellState(env: NodeJS.ProcessEnv, state: BashShellState | undefined, sandboxed: boolean, settings: ToolSettings): AppliedShellState {
  const functions = new Map<string, string>();
  let withheld = 0;
  if (state === undefined) return { functions, withheld };
  const secret = secretTest(settings);
  for (const [name, entry] of Object.entries(state.variables)) {
    if (entry.sandboxed && !sandboxed) {
      withheld++;
      continue;
    }
    // Checked again as it is applied (the state is data, whoever made it): nothing the policy refuses reaches a
    // command, and the settings may have changed since it was kept (a name that is secret now is not set again).
    if (refusedEntry(name, entry.value) !== undefined) continue;
    if (entry.value === null) delete env[name];
    else if (!secret(name, entry.value)) env[name] = entry.value;
  }
  for (const [name, entry] of Object.entries(state.functions)) {
    if (entry.sandboxed && !sandboxed) {
      withheld++;
      continue;
    }
    if (refusedFunctionName(name) !== undefined) continue;
    env[`BASH_FUNC_${name}%%`] = entry.value;
    functions.set(name, entry.value);
  }
  return { functions, withheld };
}

/**
 * Reads the NUL-terminated records the shell wrote (shell-script.ts); a partial or foreign record is ignored. `text` is
 * the file's bytes as latin1 (one character per byte): values are decoded from bytes here, and one that is not
 * valid UTF-8 (Node can only hand UTF-8 to a process) is left out.
 */
export function parseShellStateRecords(text: string): ShellStateRecords {
  const records = text.split('\0');
  records.pop(); // after the last NUL: empty, or a record cut short
  let cwd: string | undefined;
  let start: Map<string, string> | undefined;
  let startText: string | undefined;
  let exit: Map<string, string> | undefined;
  const functions = new Map<string, string>();
  let functionsRead = false;
  let ready = false;
  let complete = false;
  const seen = new Set<string>();
  for (const record of records) {
    const body = record.slice(1);
    const kind = record[0] === 'F' ? record.slice(0, record.indexOf('\n') + 1 || record.length) : record[0]!;
    // The prologue writes each record once (the EXIT trap runs once; subshells do not inherit it).
    if (seen.has(kind)) return { malformed: true };
    seen.add(kind);
    switch (record[0]) {
      case 'C': {
        const dir = utf8(body.endsWith('\n') ? body.slice(0, -1) : body);
        if (dir !== undefined && dir !== '') cwd = dir;
        break;
      }
      case 'S':
        start = parseDeclarations(body);
        startText = body;
        break;
      case 'E':
        // Most commands change no variable: the same dump is the same map (one parse, not two, on every call).
        exit = body === startText ? start : parseDeclarations(body);
        break;
      case 'F': {
        const nl = body.indexOf('\n');
        const name = body.slice(0, nl);
        const definition = utf8(body.slice(nl + 1));
        if (nl > 0 && definition !== undefined) functions.set(name, definition);
        break;
      }
      case 'f':
        functionsRead = true;
        break;
      case 'R':
        ready = true;
        break;
      case 'Z':
        complete = true;
        break;
    }
  }
  const capture = ready && complete && start !== undefined && exit !== undefined ? { start, exit, ...(functionsRead ? { functions } : {}) } : undefined;
  return { cwd, capture };
}

const DECLARATION = /^declare -([A-Za-z]+) ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

/** `declare -px` output: exported scalars with a value (`"…"` or `$'…'`); arrays and value-less names are skipped. */
export function parseDeclarations(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = DECLARATION.exec(line);
    if (m === null || !m[1]!.includes('x') || /[aA]/.test(m[1]!)) continue;
    const bytes = unquote(m[3]!);
    const value = bytes === undefined ? undefined : utf8(bytes);
    if (value !== undefined) out.set(m[2]!, value);
  }
  return out;
}

const C_ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** A value as bash quotes it, back to its bytes (as latin1 characters); undefined when it is not one of its forms. */
function unquote(quoted: string): string | undefined {
  if (quoted.length >= 2 && quoted.startsWith('"') && quoted.endsWith('"')) {
    // Inside "…" bash escapes only \ " $ and `.
    return quoted.slice(1, -1).replace(/\\([\\"$`])/g, '$1');
  }
  if (quoted.length >= 3 && quoted.startsWith("$'") && quoted.endsWith("'")) {
    return quoted.slice(2, -1).replace(/\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|c.|.)/g, (_, e: string) => {
      if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
      if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
      if (e[0] === 'c') return String.fromCharCode(e.charCodeAt(1) & 0x1f);
      return C_ESCAPES[e] ?? `\\${e}`;
    });
  }
  return undefined;
}

/** Outside bytes 0x09–0x7e (tab to `~`), which read the same in latin1 and UTF-8. */
const NOT_PLAIN_ASCII = /[^\t-~]/;

/** latin1 characters (bytes) as UTF-8 text; undefined when they are not valid UTF-8. */
function utf8(bytes: string): string | undefined {
  // ASCII (nearly every value) is the same in both: no round trip through buffers.
  if (!NOT_PLAIN_ASCII.test(bytes)) return bytes;
  const buffer = Buffer.from(bytes, 'latin1');
  const text = buffer.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buffer) ? text : undefined;
}

export interface DeltaResult {
  readonly delta?: ShellDelta;
  /** For the model: what was not kept and why (names only, never values). */
  readonly notes: readonly string[];
}

/**
 * What the command changed, as the next command's starting point: variables against the start dump, functions against
 * those the command was given — only names its text can change (`effects`, state-effects.ts) and the policy lets
 * through (state-policy.ts). `cwd` is where the command ended (for PATH entries that are relative).
 */
export function shellDelta(
  capture: ShellCapture,
  applied: AppliedShellState,
  options: {
    readonly context: Pick<ToolUseContext, 'options'>;
    readonly sandboxed: boolean;
    readonly cwd: string;
    readonly effects: StateEffects;
    readonly state?: BashShellState;
    /** The environment the command was started with (what it had exported before its text ran). */
    readonly startEnv: NodeJS.ProcessEnv;
  },
): DeltaResult {
  const settings = options.context.options.settings;
  const secret = secretTest(settings);
  const redactor = redactorFor(options.context);
  const bound = options.effects;
  const variables = new Map<string, string | null>();
  const secrets: string[] = [];
  const tooLarge: string[] = [];
  const unseen: string[] = [];
  const steering: string[] = [];
  const notes: string[] = [];
  const locale: string[] = [];
  /**
   * Whether a change of `name` may be kept, noting why not: only a name the text sets, and one the text exports or
   * that was exported when the command started (the test the engine made before it let the command run without
   * asking: state-review.ts asks for every such change no rule approves).
   */
  const admissible = (name: string, value: string | null): boolean => {
    const refused = refusedVariable(name, value);
    if (refused === 'internal') return false;
    if (!within(bound.variables, name)) {
      unseen.push(name);
      return false;
    }
    if (refused === 'locale') {
      locale.push(name);
      return false;
    }
    if (refused !== undefined) {
      steering.push(name);
      return false;
    }
    if (name === 'PATH') {
      const why = refusedPath(value);
      if (why !== undefined) notes.push(`(not kept for later commands: PATH, because of ${why}; use absolute directories)`);
      return why === undefined;
    }
    if (options.startEnv[name] === undefined && !within(bound.exports, name)) {
      unseen.push(name);
      return false;
    }
    return true;
  };
  for (const [name, value] of capture.exit) {
    if (capture.start.get(name) === value || !admissible(name, value)) continue;
    if (secret(name, value) || (redactor !== undefined && redactor.redactText(value) !== value)) secrets.push(name);
    else if (Buffer.byteLength(name) + Buffer.byteLength(value) + 1 > MAX_ENTRY_BYTES) tooLarge.push(name);
    else variables.set(name, value);
  }
  for (const name of capture.start.keys()) if (!capture.exit.has(name) && admissible(name, null)) variables.set(name, null);

  // The PATH later commands will run with: a function is checked against the programs it would hide there.
  const pathVar = variables.has('PATH') ? (variables.get('PATH') ?? '') : (capture.start.get('PATH') ?? '');
  const pathMoved = variables.has('PATH');
  const kept = new Map(applied.functions);
  if (capture.functions !== undefined) {
    for (const [name, text] of capture.functions) {
      if (!within(bound.functions, name)) continue;
      const value = importForm(name, text);
      if (value !== undefined) kept.set(name, value);
    }
    // Unset (`unset -f`): only what the command could name.
    for (const name of applied.functions.keys()) if (!capture.functions.has(name) && within(bound.functions, name)) kept.delete(name);
  }
  const shadowing: string[] = [];
  for (const [name, value] of kept) {
    const changed = applied.functions.get(name) !== value;
    // Unchanged ones are looked at again only when PATH moved (a look along PATH per function: not paid otherwise).
    if ((changed || pathMoved) && refusedFunction(name, pathVar, options.cwd) !== undefined) {
      if (changed) shadowing.push(name);
      kept.delete(name);
    } else if (changed && Buffer.byteLength(value) + name.length + 12 > MAX_ENTRY_BYTES) {
      tooLarge.push(`function ${name}`);
      kept.delete(name);
    }
  }
  const functions = new Map<string, string | null>();
  for (const [name, value] of kept) if (applied.functions.get(name) !== value) functions.set(name, value);
  for (const name of applied.functions.keys()) if (!kept.has(name)) functions.set(name, null);

  if (secrets.length > 0) {
    notes.push(`(not kept for later commands: ${list(secrets)} — variables that look like credentials, or carry one, are not carried over; set them in the command that needs them)`);
  }
  if (steering.length > 0) {
    notes.push(`(not kept for later commands: ${list(steering)} — variables that make programs run other code or read their configuration elsewhere are not carried over; set them in the command that needs them)`);
  }
  if (locale.length > 0) {
    notes.push(`(not kept for later commands: ${list(locale)} — a locale other than C, POSIX or UTF-8 changes how bash reads commands)`);
  }
  if (unseen.length > 0) {
    notes.push(`(not kept for later commands: ${list(unseen)} — the shell reported a change the command's text does not make)`);
  }
  if (shadowing.length > 0) {
    notes.push(`(not kept for later commands: the function${shadowing.length > 1 ? 's' : ''} ${list(shadowing)} — a builtin, a program or a shell hook of that name exists)`);
  }
  let delta: ShellDelta | undefined = variables.size > 0 || functions.size > 0 ? { variables, functions, sandboxed: options.sandboxed } : undefined;
  if (delta !== undefined && stateBytes(mergeShellState(options.state, delta)) > MAX_STATE_BYTES) {
    // Too much to pass on: keep what removes, drop what adds.
    const removals = (m: ReadonlyMap<string, string | null>) => new Map([...m].filter(([, v]) => v === null));
    tooLarge.push(...[...variables].filter(([, v]) => v !== null).map(([n]) => n), ...[...functions].filter(([, v]) => v !== null).map(([n]) => `function ${n}`));
    const trimmed = { variables: removals(variables), functions: removals(functions), sandboxed: options.sandboxed };
    delta = trimmed.variables.size > 0 || trimmed.functions.size > 0 ? trimmed : undefined;
  }
  if (tooLarge.length > 0) notes.push(`(not kept for later commands: ${list(tooLarge)} — too large to pass on to a process)`);
  return { delta, notes };
}

/** The state with one command's changes merged in (a new frozen object; the old one is untouched). */
export function mergeShellState(state: BashShellState | undefined, delta: ShellDelta): BashShellState {
  const variables: Record<string, ShellEntry<string | null>> = { ...state?.variables };
  for (const [name, value] of delta.variables) variables[name] = Object.freeze({ value, sandboxed: delta.sandboxed });
  const functions: Record<string, ShellEntry<string>> = { ...state?.functions };
  for (const [name, value] of delta.functions) {
    if (value === null) delete functions[name];
    else functions[name] = Object.freeze({ value, sandboxed: delta.sandboxed });
  }
  return Object.freeze({ variables: Object.freeze(variables), functions: Object.freeze(functions) });
}

/** The context modifier that merges `delta` into whatever state the context has when the executor applies it. */
export function withShellDelta(delta: ShellDelta): (context: ToolUseContext) => ToolUseContext {
  return (context) => ({ ...context, sessionState: { ...context.sessionState, bashShell: mergeShellState(shellStateOf(context), delta) } });
}

function stateBytes(state: BashShellState): number {
  let n = 0;
  for (const [name, e] of Object.entries(state.variables)) n += name.length + (e.value?.length ?? 0) + 2;
  for (const [name, e] of Object.entries(state.functions)) n += name.length + e.value.length + 14;
  return n;
}

/** `declare -f` prints `name () \n{ …`; bash imports `BASH_FUNC_name%%` only when it starts with `() {`. */
function importForm(name: string, text: string): string | undefined {
  const head = `${name} () \n{`;
  if (!text.startsWith(head)) return undefined;
  return `() {${text.slice(head.length).replace(/\n$/, '')}`;
}

function secretTest(settings: ToolSettings): (name: string, value: string) => boolean {
  const options = { patterns: settings.bash?.secretEnvPatterns ?? DEFAULT_SECRET_ENV_PATTERNS, passEnv: settings.bash?.passEnv };
  return (name, value) => secretEnvNames({ [name]: value }, options).length > 0;
}

function list(names: readonly string[]): string {
  const sorted = [...new Set(names)].sort();
  return sorted.length > 12 ? `${sorted.slice(0, 12).join(', ')} and ${sorted.length - 12} more` : sorted.join(', ');
}
