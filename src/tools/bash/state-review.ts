/**
 * The persisted shell state a command will run with is part of what the engine judges for that command (issue 32,
 * invariant 1). The Bash tool's own permission check (`checkPermissions`, run by the engine with the call's context)
 * asks instead of letting an allow rule or the read-only judgement stand when what earlier commands left changes what
 * this one runs:
 *  - it names a function an earlier command defined (as its command or anywhere among its words: state-effects.ts
 *    counts such a command as able to change anything, so both sides use one test) — the engine judged the words,
 *    the shell would run the function's body;
 *  - a program it runs (its command, or one a wrapper runs: `xargs ls`, `timeout 5 ls`, `sudo ls`) would be another
 *    file than under the runtime's own PATH, because an earlier command changed PATH (`ls` → `./bin/ls`; a venv's
 *    `python3`).
 * The ask goes through the engine as any other (a person, a hook, the auto-mode classifier or bypassPermissions
 * decide; deny and ask rules came first). A command the sandbox auto-allows is not reviewed: it may run anything
 * inside the sandbox anyway.
 */
import { analyzeBashCommand } from '../../permissions/bash/analyze.js';
import { flattenSubcommands } from '../../permissions/bash/read-only.js';
import type { PermissionAskDecision } from '../../tool/permission-types.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { persistEnvironment, shellStateOf } from './session-env.js';
import { callsFunction } from './state-effects.js';
import { BASH_WORDS, findProgram, refusedFunctionName, refusedVariable } from './state-policy.js';

/** Why the persisted state changes what `command` runs; undefined when it does not (or nothing persists). */
export function persistedStateConcern(command: string, context: ToolUseContext, sandboxed: boolean): string | undefined {
  const settings = context.options.settings;
  const state = shellStateOf(context);
  if (state === undefined || !persistEnvironment(settings)) return undefined;
  const functions = new Map<string, string>();
  for (const [name, entry] of Object.entries(state.functions)) {
    if ((sandboxed || !entry.sandboxed) && refusedFunctionName(name) === undefined) functions.set(name, entry.value);
  }
  const pathEntry = state.variables.PATH;
  const basePath = settings.env?.PATH ?? (settings.baseEnv ?? process.env).PATH;
  const persistedPath = pathEntry !== undefined && (sandboxed || !pathEntry.sandboxed) && refusedVariable('PATH') === undefined ? pathEntry.value : undefined;
  const pathMoved = persistedPath !== undefined && persistedPath !== basePath;
  if (functions.size === 0 && !pathMoved) return undefined;
  const analysis = analyzeBashCommand(command);
  // What cannot be analysed asks anyway (check-permission.ts): nothing to add.
  if (!analysis.ok) return undefined;
  const names = new Set(functions.keys());
  const cwd = context.getAppState().cwd;
  const looked = new Set<string>();
  // Usually entries put in front of the runtime's PATH (a venv, nvm): only they can change what a name runs, so a name
  // is looked for in them alone first (a stat or two, where the whole PATH twice is tens: ~2 ms on a long PATH).
  const front = pathMoved ? entriesInFront(persistedPath, basePath) : undefined;
  for (const sub of flattenSubcommands(analysis.subcommands)) {
    if (callsFunction(sub, names)) {
      const name = [...sub.words, ...sub.strippedWords].find((w) => names.has(w.value))!.value;
      const body = functions.get(name)!;
      return `${name} is a shell function an earlier command defined, not the program the command names: ${name} ${excerpt(body)}`;
    }
    if (!pathMoved) continue;
    for (const word of [sub.words[0], sub.strippedWords[0], ...sub.denyWords.map((view) => view[0])]) {
      if (word === undefined || !word.literal || looked.has(word.value) || BASH_WORDS.has(word.value)) continue;
      looked.add(word.value);
      if (front !== undefined && findProgram(word.value, front, cwd) === undefined) continue;
      const now = findProgram(word.value, persistedPath ?? undefined, cwd);
      const before = findProgram(word.value, basePath, cwd);
      if (now !== before) {
        const what = now === undefined ? 'would not be found' : `would run ${now}`;
        return `${word.value} ${what}${before === undefined ? '' : ` instead of ${before}`}: an earlier command changed PATH`;
      }
    }
  }
  return undefined;
}

/** The engine's answer for such a command: ask, saying why. */
export function persistedStateAsk(reason: string): PermissionAskDecision {
  const message = `This command runs differently because of the shell state earlier commands left: ${reason}.`;
  return { behavior: 'ask', message, decisionReason: { layer: 'toolCheck', reason: `persisted shell state: ${reason}` } };
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
