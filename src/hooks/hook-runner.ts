/**
 * The hook runner: picks the hooks that match a tool call, runs them all in parallel (identical commands once), and
 * folds their verdicts into one outcome per event. Settings hooks come first in hook order, then callbacks.
 */
import { createPermissionContext } from '../permissions/permission-context.js';
import { preparePermissionMatcher, type PermissionMatcher, type RuleOrigin } from '../permissions/permission-matcher.js';
import { addSharedAbortListener } from '../tool/shared-abort-listener.js';
import { aggregatePermissionDenied, aggregatePermissionRequest, aggregatePostToolUse, aggregatePreToolUse } from './aggregate.js';
import { buildHookInput, serializeHookInput, type HookEventExtras } from './hook-input.js';
import { judgeHookRun, type HookVerdict } from './hook-output.js';
import { observeHookRun } from './hook-notices.js';
import { createLoopHooks } from './loop-hooks.js';
import { compileHookMatcher, type CompiledMatcher } from './matcher.js';
import { capHookOutput } from './persist-output.js';
import { runHttpHook } from './run-http-hook.js';
import { runCommandHook, type RawHookRun } from './run-hook-process.js';
import { withShellLevel } from './shell-level.js';
import type {
  CommandHookHandler,
  HookCallback,
  HookEventName,
  HookMatcherGroup,
  HookRunner,
  HookRunnerOptions,
  HookToolEvent,
  HttpHookHandler,
} from './types.js';

export const DEFAULT_HOOK_TIMEOUT_MS = 600_000;
/** The Agent SDK's default for callback hooks. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 60_000;

type RunnableHandler = CommandHookHandler | HttpHookHandler;

interface SettingsEntry {
  kind: 'settings';
  handler: RunnableHandler;
  label: string;
  dedupeKey: string;
  /** The settings file the handler came from: its `if` rule reads as that file's permission rules would. */
  origin: RuleOrigin;
  /** The group's own environment entries (a plugin's `CLAUDE_PLUGIN_ROOT`). */
  env?: Readonly<Record<string, string>>;
}
interface CallbackEntry {
  kind: 'callback';
  callback: HookCallback;
  label: string;
}
type Entry = SettingsEntry | CallbackEntry;

interface CompiledGroup {
  match: CompiledMatcher;
  entries: SettingsEntry[];
}

export function createHookRunner(opts: HookRunnerOptions): HookRunner {
  const baseEnv = hookBaseEnv(opts.env ?? process.env);
  const defaultTimeoutMs = opts.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const groups = new Map<HookEventName, CompiledGroup[]>();
  for (const [event, list] of Object.entries(opts.config) as [HookEventName, readonly HookMatcherGroup[]][]) {
    groups.set(event, list.map((g) => ({ match: compileHookMatcher(g.matcher), entries: settingsEntries(event, g) })));
  }
  const callbacks = (opts.callbacks ?? []).map((cb, i) => ({
    match: compileHookMatcher(cb.matcher),
    entry: { kind: 'callback', callback: cb, label: cb.name ?? `callback#${i} (${cb.event})` } satisfies CallbackEntry,
  }));
  const hasCache = new Map<string, boolean>();

  function hasHooks(event: HookEventName, toolName: string): boolean {
    const key = `${event}\0${toolName}`;
    let hit = hasCache.get(key);
    if (hit === undefined) {
      hit =
        (groups.get(event) ?? []).some((g) => g.entries.length > 0 && g.match(toolName)) ||
        callbacks.some((c) => c.entry.callback.event === event && c.match(toolName));
      hasCache.set(key, hit);
    }
    return hit;
  }

  async function select(event: HookEventName, e: HookToolEvent): Promise<Entry[]> {
    const out: Entry[] = [];
    const byKey = new Map<string, SettingsEntry>();
    let matcher: Promise<PermissionMatcher> | undefined;
    for (const g of groups.get(event) ?? []) {
      if (!g.match(e.toolName)) continue;
      for (const entry of g.entries) {
        const cond = entry.handler.if;
        let label = entry.label;
        if (cond !== undefined) {
          // The permission engine's own matcher, prepared once per event and only when some handler has an `if`.
          const m = (await (matcher ??= matcherFor(e)))(cond, entry.origin);
          if (m.verdict === 'none') continue;
          const what = m.verdict === 'match' ? 'matched' : 'could not be ruled out';
          label = `${entry.label} [if ${m.rule} ${what}${m.subcommand !== undefined ? `: ${m.subcommand}` : ''}]`;
        }
        const seen = byKey.get(entry.dedupeKey);
        if (seen) {
          // The same command from several files runs once; if any copy is fail-closed, the run is.
          if (entry.handler.failClosed && !seen.handler.failClosed) seen.handler = { ...seen.handler, failClosed: true };
          continue;
        }
        const copy = { ...entry, label };
        byKey.set(entry.dedupeKey, copy);
        out.push(copy);
      }
    }
    for (const c of callbacks) {
      if (c.entry.callback.event === event && c.match(e.toolName)) out.push(c.entry);
    }
    return out;
  }

  async function runEntry(event: HookEventName, entry: Entry, body: string, e: HookToolEvent, signal: AbortSignal): Promise<HookVerdict> {
    const meta = { label: entry.label, toolName: e.toolName, isCallback: entry.kind === 'callback' };
    let run: RawHookRun;
    let failClosed: boolean;
    try {
      if (entry.kind === 'callback') {
        failClosed = entry.callback.failClosed ?? false;
        run = await runCallback(entry.callback, body, entry.callback.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS, signal);
      } else {
        const h = entry.handler;
        failClosed = h.failClosed ?? false;
        const timeoutMs = h.timeout !== undefined ? Math.round(h.timeout * 1000) : defaultTimeoutMs;
        const env = { ...baseEnv, ...entry.env, CLAUDE_PROJECT_DIR: e.projectDir, TOOLGATE_PROJECT_DIR: e.projectDir };
        run = await observeHookRun(
          opts.onHookRun,
          event,
          `${event}:${e.toolName}`,
          h.type === 'http' ? runHttpHook(h, { body, env, timeoutMs, signal }) : runCommandHook(h, { cwd: e.cwd, env, stdin: body, timeoutMs, signal }),
        );
      }
    } catch (err) {
      failClosed = entry.kind === 'callback' ? (entry.callback.failClosed ?? false) : (entry.handler.failClosed ?? false);
      run = { kind: 'error', message: (err as Error)?.message ?? String(err) };
    }
    return judgeHookRun(event, run, { ...meta, failClosed });
  }

  async function fire(event: HookEventName, e: HookToolEvent, extras: HookEventExtras, signal: AbortSignal): Promise<HookVerdict[]> {
    if (!hasHooks(event, e.toolName)) return [];
    const entries = await select(event, e);
    if (entries.length === 0) return [];
    const body = serializeHookInput(buildHookInput(event, e, extras));
    const waited: Promise<HookVerdict>[] = [];
    for (const entry of entries) {
      if (entry.kind === 'settings' && entry.handler.type === 'command' && (entry.handler.async || entry.handler.asyncRewake)) {
        // Background hooks cannot decide; they get their own lifetime (not the call's abort signal).
        void runEntry(event, entry, body, e, new AbortController().signal).catch(() => {});
        continue;
      }
      waited.push(runEntry(event, entry, body, e, signal));
    }
    return Promise.all(waited);
  }

  const capperFor = (e: HookToolEvent, event: HookEventName) => (text: string) =>
    capHookOutput(text, opts.sessionDir, `${e.toolUseId}-${event}`);

  return {
    loop: createLoopHooks({ config: opts.config, callbacks: opts.callbacks, env: opts.env, defaultTimeoutMs: opts.defaultTimeoutMs, onHookRun: opts.onHookRun }),
    hasHooks,
    async preToolUse(e, signal) {
      return aggregatePreToolUse(await fire('PreToolUse', e, {}, signal), capperFor(e, 'PreToolUse'));
    },
    async postToolUse(e, signal) {
      const verdicts = await fire('PostToolUse', e, { toolResponse: e.toolResponse, durationMs: e.durationMs }, signal);
      return aggregatePostToolUse(verdicts, capperFor(e, 'PostToolUse'));
    },
    async postToolUseFailure(e, signal) {
      const extras = { error: e.error, isInterrupt: e.isInterrupt, durationMs: e.durationMs };
      return aggregatePostToolUse(await fire('PostToolUseFailure', e, extras, signal), capperFor(e, 'PostToolUseFailure'));
    },
    async permissionRequest(e, signal) {
      const verdicts = await fire('PermissionRequest', e, { permissionSuggestions: e.permissionSuggestions }, signal);
      return aggregatePermissionRequest(verdicts, capperFor(e, 'PermissionRequest'));
    },
    async permissionDenied(e, signal) {
      return aggregatePermissionDenied(await fire('PermissionDenied', e, { reason: e.reason }, signal), capperFor(e, 'PermissionDenied'));
    },
  };
}

/** The engine's matcher for this call (by name alone when the event does not carry the tool). */
function matcherFor(e: HookToolEvent): Promise<PermissionMatcher> {
  try {
    const ctx = e.permissionContext ?? createPermissionContext({ cwd: e.cwd, projectDir: e.projectDir });
    return preparePermissionMatcher(e.tool ?? e.toolName, e.toolInput, ctx);
  } catch (error) {
    // An `if` that cannot be evaluated must not silently disable a hook.
    const reason = `the call could not be matched (${error instanceof Error ? error.message : String(error)})`;
    return Promise.resolve((rule) => ({ verdict: 'maybe', rule, reason }));
  }
}

function settingsEntries(event: HookEventName, g: HookMatcherGroup): SettingsEntry[] {
  const out: SettingsEntry[] = [];
  g.hooks.forEach((h, i) => {
    if (h.type !== 'command' && h.type !== 'http') return; // prompt/agent/mcp_tool: reported at parse time
    const what = h.type === 'command' ? [h.command, ...(h.args ?? [])].join(' ') : h.url;
    const short = what.length > 60 ? `${what.slice(0, 57)}...` : what;
    const where = `${g.file ?? g.source}${g.path ? ` ${g.path}.hooks[${i}]` : ''}`;
    out.push({
      kind: 'settings',
      handler: h,
      label: `${event} hook "${short}" (${where})`,
      origin: { source: g.source, ...(g.file !== undefined ? { sourceFile: g.file } : {}) },
      ...(g.env ? { env: g.env } : {}),
      // A plugin's copy stays apart from the same command in a settings file (reference A1): its environment differs.
      dedupeKey:
        h.type === 'command'
          ? JSON.stringify(['command', h.command, h.args ?? null, h.shell ?? 'bash', h.async ?? false, g.env ?? null])
          : JSON.stringify(['http', h.url, h.headers ?? null, g.env ?? null]),
    });
  });
  return out;
}

/** A callback gets the same JSON as stdin and a signal that fires on timeout or abort; its return is the stdout JSON. */
export async function runCallback(cb: HookCallback, body: string, timeoutMs: number, signal: AbortSignal): Promise<RawHookRun> {
  if (signal.aborted) return { kind: 'aborted' };
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let unlink: (() => void) | undefined;
  const stop = new Promise<RawHookRun>((resolve) => {
    timer = setTimeout(() => {
      ac.abort(new Error('hook timeout'));
      resolve({ kind: 'timeout', timeoutMs });
    }, timeoutMs);
    // Many callbacks may run for one call at once: one shared listener on its signal (shared-abort-listener.ts).
    unlink = addSharedAbortListener(signal, () => {
      ac.abort(signal.reason);
      resolve({ kind: 'aborted' });
    });
  });
  try {
    // Parsed from the stdin text: the very JSON a shell hook sees, and a copy the callback may mutate freely.
    const call = Promise.resolve()
      .then(() => cb.callback(JSON.parse(body) as Record<string, unknown>, ac.signal))
      .then(
        (output): RawHookRun => ({ kind: 'json', output: output ?? {} }),
        (err: unknown): RawHookRun => ({ kind: 'error', message: `callback threw: ${(err as Error)?.message ?? String(err)}` }),
      );
    return await Promise.race([call, stop]);
  } finally {
    clearTimeout(timer);
    unlink?.();
  }
}

/** OpenTelemetry exporter settings would make every hook process export telemetry as if it were us. */
function hookBaseEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('OTEL_')) out[k] = v;
  // The hook's bash must not run ~/.bashrc (shell-level.ts).
  return withShellLevel(out);
}
