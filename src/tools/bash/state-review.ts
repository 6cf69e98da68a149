/**
 * The persisted shell state a command will run with, and the state it will leave, are part of what the engine judges
 * for that command (issue 32, invariant 1). The Bash tool's own permission check (`checkPermissions`, run by the
 * engine with the call's context) asks instead of letting an allow rule or the read-only judgement stand when:
 *  - it names a function an earlier command defined (as its command or anywhere among its words: state-effects.ts
 *    counts such a command as able to change anything, so both sides use one test) — the engine judged the words,
 *    the shell would run the function's body;
 *  - a program it runs (its command, one a wrapper runs: `xargs ls`, `timeout 5 ls`, `sudo ls`, or the interpreter
 *    of its `#!/usr/bin/env` line: `npm` → `node`) would be another file than under the runtime's own PATH, because an
 *    earlier command changed PATH (`ls` → `./bin/ls`; a venv's `python3`);
 *  - the kept PATH puts a folder the session's commands can write in front of a program of the runtime's PATH (other
 *    than a venv's own python/pip): a program may start another by name without the command naming it (`egrep` →
 *    `grep`), so every command asks while that PATH is kept (path-shadows.ts);
 *  - it sets, exports or unsets a variable that would carry over to later commands (state-effects.ts names which),
 *    and no allow rule covers the subcommand that names it, or it defines a function that would carry over: what
 *    carries over is then what a person, a rule or a mode approved, never what a read-only judgement let through.
 *    Exempt: the variables the policy never keeps, and `cd`, which stays bounded to the working directories.
 * The ask goes through the engine as any other (a person, a hook, the auto-mode classifier or bypassPermissions
 * decide; deny and ask rules came first; acceptEdits does not pass it). A command the sandbox auto-allows is not
 * reviewed: it may run anything inside the sandbox anyway, and what it leaves applies only inside the sandbox.
 */
import os from 'node:os';
import path from 'node:path';
import { analyzeBashCommand } from '../../permissions/bash/analyze.js';
import { allowRuleFor } from '../../permissions/bash/check-permission.js';
import { flattenSubcommands } from '../../permissions/bash/read-only.js';
import { bashRules } from '../../permissions/bash/rule-set.js';
import type { SimpleCommand } from '../../permissions/bash/types.js';
import type { PermissionAskDecision } from '../../tool/permission-types.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { workingDirectories } from './cwd-tracking.js';
import { envInterpreter, pathShadows, type Shadows } from './path-shadows.js';
import { persistEnvironment, shellStateOf, type BashShellState } from './session-env.js';
import { mayChangeEnvironment } from './shell-script.js';
import { callsFunction, stateEffects, within } from './state-effects.js';
import { BASH_WORDS, findProgram, refusedEntry, refusedFunctionName, refusedVariable } from './state-policy.js';

export interface StateConcern {
  /** For the trace: what the state does. */
  readonly reason: string;
  /** For the person. */
  readonly message: string;
}

/** Why the engine must ask for `command` because of the shell state it runs with or leaves; undefined when not. */
export function persistedStateConcern(command: string, context: ToolUseContext, sandboxed: boolean): StateConcern | undefined {
  if (!persistEnvironment(context.options.settings)) return undefined;
  const state = shellStateOf(context);
  const review = state === undefined ? undefined : reviewWithState(command, context, state, sandboxed);
  if (review !== undefined) {
    return { reason: `persisted shell state: ${review}`, message: `This command runs differently because of the shell state earlier commands left: ${review}.` };
  }
  const change = unapprovedStateChange(command, context, state);
  if (change === undefined) return undefined;
  const what = [
    ...(change.variables.length > 0 ? [`it sets ${andList(change.variables)} for every later command (exported variables carry over in this session)`] : []),
    ...(change.functions.length > 0 ? [`it defines the function${change.functions.length > 1 ? 's' : ''} ${andList(change.functions)} for every later command`] : []),
  ].join('; ');
  return { reason: `changes the session's shell state: ${what}`, message: `This command changes what later commands run with: ${what}.` };
}

/** What the state earlier commands left changes in what `command` runs. */
function reviewWithState(command: string, context: ToolUseContext, state: BashShellState, sandboxed: boolean): string | undefined {
  const settings = context.options.settings;
  const functions = new Map<string, string>();
  for (const [name, entry] of Object.entries(state.functions)) {
    if ((sandboxed || !entry.sandboxed) && refusedFunctionName(name) === undefined) functions.set(name, entry.value);
  }
  const pathEntry = state.variables.PATH;
  const basePath = settings.env?.PATH ?? (settings.baseEnv ?? process.env).PATH;
  // What applyShellState would put in the command's environment (the policy is checked again there).
  const persistedPath = pathEntry !== undefined && (sandboxed || !pathEntry.sandboxed) && refusedEntry('PATH', pathEntry.value) === undefined ? pathEntry.value : null;
  const pathMoved = persistedPath !== null && persistedPath !== basePath;
  if (functions.size === 0 && !pathMoved) return undefined;
  const cwd = context.getAppState().cwd;
  const shadows = pathMoved && basePath !== undefined ? pathShadows(persistedPath, basePath, cwd, writableFolders(context)) : undefined;
  const analysis = analyzeBashCommand(command);
  // What cannot be analysed asks anyway (check-permission.ts), unless the PATH fails every command closed.
  if (analysis.ok) {
    const concern = reviewSubcommands(analysis.subcommands, functions, pathMoved ? { persistedPath: persistedPath!, basePath, cwd, shadows } : undefined);
    if (concern !== undefined) return concern;
  }
  const closed = shadows?.failClosed;
  if (closed === undefined) return undefined;
  return (
    `an earlier command put ${path.dirname(closed.file)} on PATH in front of the runtime's programs, and ${closed.name} there hides ` +
    `${closed.hides}; any program may start ${closed.name} by name, so every command asks while that PATH is kept`
  );
}

interface PathView {
  readonly persistedPath: string;
  readonly basePath: string | undefined;
  readonly cwd: string;
  readonly shadows: Shadows | undefined;
}

function reviewSubcommands(subs: readonly SimpleCommand[], functions: ReadonlyMap<string, string>, view: PathView | undefined): string | undefined {
  const names = new Set(functions.keys());
  const looked = new Set<string>();
  // Usually entries put in front of the runtime's PATH (a venv, nvm): only they can change what a name runs, so a name
  // is looked for in them alone first (a stat or two, where the whole PATH twice is tens: ~2 ms on a long PATH).
  const front = view === undefined ? undefined : entriesInFront(view.persistedPath, view.basePath);
  const hidden = view?.shadows?.hidden;
  for (const sub of flattenSubcommands(subs)) {
    if (callsFunction(sub, names)) {
      const name = [...sub.words, ...sub.strippedWords].find((w) => names.has(w.value))!.value;
      const body = functions.get(name)!;
      return `${name} is a shell function an earlier command defined, not the program the command names: ${name} ${excerpt(body)}`;
    }
    if (view === undefined) continue;
    const { persistedPath, basePath, cwd } = view;
    for (const word of [sub.words[0], sub.strippedWords[0], ...sub.denyWords.map((v) => v[0])]) {
      if (word === undefined || !word.literal || looked.has(word.value) || BASH_WORDS.has(word.value)) continue;
      looked.add(word.value);
      if (front === undefined || findProgram(word.value, front, cwd) !== undefined) {
        const now = findProgram(word.value, persistedPath, cwd);
        const before = findProgram(word.value, basePath, cwd);
        if (now !== before) {
          const what = now === undefined ? 'would not be found' : `would run ${now}`;
          return `${word.value} ${what}${before === undefined ? '' : ` instead of ${before}`}: an earlier command changed PATH`;
        }
      }
      // A script started through `env`: its interpreter is looked up on PATH too (`npm` → `node`, a venv's `python3`).
      if (hidden === undefined) continue;
      const file = findProgram(word.value, persistedPath, cwd);
      const interpreter = file === undefined ? undefined : envInterpreter(file);
      if (interpreter !== undefined && hidden.has(interpreter)) {
        return `${word.value} is a script run by ${interpreter}, which would run ${hidden.get(interpreter)} instead of the runtime's: an earlier command changed PATH`;
      }
    }
  }
  return undefined;
}

/**
 * The names whose change `command` would leave for later commands without a person or a rule having approved it:
 * names its text sets (state-effects.ts) that are exported — by the text, or already when it starts — that the policy
 * does not refuse and that are not kept freely, and that no allow rule covering the subcommand naming them approves.
 * The keeping side (session-env.ts) keeps a change only under the same conditions, so whatever carries over was
 * approved. Undefined when there are none. Commands whose text is unbounded (`source`, `eval`, …) are left to the
 * analyser, which never allows them on its own.
 */
function unapprovedStateChange(command: string, context: ToolUseContext, state: BashShellState | undefined): { variables: string[]; functions: string[] } | undefined {
  // The regular expression run-bash.ts uses to skip reading the variables back: `echo hi`, `ls`, `git status` stop here.
  if (!mayChangeEnvironment(command, NO_ENV)) return undefined;
  const settings = context.options.settings;
  const base = settings.baseEnv ?? process.env;
  const effects = stateEffects(command, new Set(Object.keys(state?.functions ?? {})), context.getAppState().cwd, base.HOME);
  if (effects.variables === 'any') return undefined;
  const analysis = analyzeBashCommand(command);
  // A function the text defines carries over (unless the policy refuses its name): no allow rule names a definition.
  const functions = analysis.ok ? [...new Set(analysis.names?.functions ?? [])].filter((n) => refusedFunctionName(n) === undefined).sort() : [];
  // Exported when the command starts: a superset of what run-bash.ts puts in its environment.
  const exported = (name: string): boolean =>
    base[name] !== undefined || settings.env?.[name] !== undefined || (state?.variables[name]?.value ?? null) !== null || STARTED_WITH.has(name);
  const persisting = [...effects.variables].filter((n) => refusedVariable(n) === undefined && (within(effects.exports, n) || exported(n)));
  if (persisting.length === 0 && functions.length === 0) return undefined;
  const allow = bashRules(context.getAppState().toolPermissionContext.alwaysAllowRules);
  const whole = command.trim();
  if (allow.some((r) => r.trimmed === whole && r.compiled?.kind === 'exact')) return undefined;
  const approved = new Set<string>();
  for (const [sub, names] of effects.setters) if (allowRuleFor(sub, allow).rule !== undefined) for (const n of names) approved.add(n);
  const variables = persisting.filter((n) => !approved.has(n)).sort();
  return variables.length > 0 || functions.length > 0 ? { variables, functions } : undefined;
}

function andList(names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

const NO_ENV: NodeJS.ProcessEnv = Object.freeze({});
/** Set by the tool in every command's environment. */
const STARTED_WITH = new Set(['TOOLGATE', 'TMPDIR']);

/** Folders the session's commands can write: the working directories, the session temp folder, the sandbox's extra ones. */
function writableFolders(context: ToolUseContext): string[] {
  const settings = context.options.settings;
  const dirs = [...workingDirectories(context), path.join(context.options.sessionDir, 'tmp')];
  const home = context.getAppState().toolPermissionContext.homeDir ?? os.homedir();
  for (const dir of settings.sandbox?.filesystem?.allowWrite ?? []) {
    dirs.push(dir === '~' || dir.startsWith('~/') ? path.join(home, dir.slice(1)) : path.resolve(dirs[0]!, dir));
  }
  return dirs;
}

/** The engine's answer for such a command: ask, saying why. */
export function persistedStateAsk(concern: StateConcern): PermissionAskDecision {
  return { behavior: 'ask', message: concern.message, decisionReason: { layer: 'toolCheck', reason: concern.reason } };
}

/** The entries `now` puts in front of `base` when it is exactly those followed by `base`; undefined otherwise. */
function entriesInFront(now: string | null, base: string | undefined): string | undefined {
  if (now === null || base === undefined || base === '') return undefined;
  if (!now.endsWith(`:${base}`)) return undefined;
  return now.slice(0, now.length - base.length - 1);
}

function excerpt(body: string): string {
  const flat = body.replace(/\s+/g, ' ');
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
