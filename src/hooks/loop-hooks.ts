/**
 * The agent loop's own hook events, in Claude Code's protocol (reference A4-A6): `SessionStart`, `UserPromptSubmit`,
 * `Stop` and `SessionEnd`. They come from the same `hooks` settings and in-process callbacks as the tool events, run
 * the same way (command in its own process group, http POST, callback), but decide different things: a prompt can be
 * blocked or given context, a stop can be refused (the loop goes on, with `stop_hook_active`), and the session's
 * start and end are announced.
 */
import { DEFAULT_CALLBACK_TIMEOUT_MS, DEFAULT_HOOK_TIMEOUT_MS, runCallback } from './hook-runner.js';
import { serializeHookInput } from './hook-input.js';
import { observeHookRun } from './hook-notices.js';
import { compileHookMatcher } from './matcher.js';
import { runHttpHook } from './run-http-hook.js';
import { runCommandHook, type RawHookRun } from './run-hook-process.js';
import type { HookCallback, HookRunnerOptions } from './types.js';
import type { PermissionMode } from '../tool/permission-types.js';

export const LOOP_HOOK_EVENT_NAMES = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd', 'SubagentStart', 'SubagentStop', 'PreCompact'] as const;
export type LoopHookEventName = (typeof LOOP_HOOK_EVENT_NAMES)[number];

/** UserPromptSubmit's command/http hooks default to 30 s (reference A8); SessionEnd hooks must not hold the exit. */
const DEFAULT_TIMEOUTS: Partial<Record<LoopHookEventName, number>> = { UserPromptSubmit: 30_000, SessionEnd: 5_000 };

export interface LoopHookEvent {
  sessionId: string;
  transcriptPath?: string;
  cwd: string;
  permissionMode: PermissionMode;
  projectDir: string;
}

export interface LoopHookOutcome {
  /** UserPromptSubmit: the prompt is refused. Stop: the stop is refused and `reason` goes to the model. */
  block?: { reason: string; source: string };
  /** Text for the model (hookSpecificOutput.additionalContext; plain stdout on SessionStart/UserPromptSubmit). */
  additionalContext: string[];
  /** For a person: `systemMessage`s and exit-2 stderr of events that cannot block. */
  systemMessages: string[];
  /** Some hook said `continue: false`: the loop stops. */
  preventContinuation?: { stopReason?: string };
  /** Hooks that failed without deciding, one line each. */
  errors: string[];
}

export interface LoopHooks {
  /**
   * Whether any hook (settings or callback) listens to `event` now, asked as each event would be fired: a loop that
   * runs its steps in this process skips an event nobody listens to — no event built, no step. Absent: maybe.
   */
  configured?(event: LoopHookEventName): boolean;
  sessionStart(e: LoopHookEvent & { source: 'startup' | 'resume' | 'clear' | 'compact'; model?: string }, signal: AbortSignal): Promise<LoopHookOutcome>;
  userPromptSubmit(e: LoopHookEvent & { prompt: string }, signal: AbortSignal): Promise<LoopHookOutcome>;
  stop(e: LoopHookEvent & { stopHookActive: boolean; lastAssistantMessage: string }, signal: AbortSignal): Promise<LoopHookOutcome>;
  sessionEnd(e: LoopHookEvent & { reason: 'clear' | 'logout' | 'prompt_input_exit' | 'other' | 'error' }, signal: AbortSignal): Promise<LoopHookOutcome>;
  /** A sub-agent starts (matcher: its agent type); `additionalContext` goes into the sub-agent's first message. */
  subagentStart(e: LoopHookEvent & SubagentHookFields, signal: AbortSignal): Promise<LoopHookOutcome>;
  /** A sub-agent is about to finish (matcher: its agent type); a block makes it go on with the reason. */
  subagentStop(e: LoopHookEvent & SubagentHookFields & { stopHookActive: boolean; lastAssistantMessage: string; agentTranscriptPath?: string }, signal: AbortSignal): Promise<LoopHookOutcome>;
  /** Before a conversation is summarised (matcher: `manual` for /compact, `auto`); a block keeps it as it is. */
  preCompact(e: LoopHookEvent & { trigger: 'manual' | 'auto'; customInstructions: string }, signal: AbortSignal): Promise<LoopHookOutcome>;
}

export interface SubagentHookFields {
  agentId: string;
  agentType: string;
}

/** An in-process callback for a loop event (the tool events' `HookCallback` takes tool events only). */
export interface LoopHookCallback extends Omit<HookCallback, 'event'> {
  event: LoopHookEventName;
}

export function createLoopHooks(opts: Pick<HookRunnerOptions, 'config' | 'env' | 'defaultTimeoutMs' | 'onHookRun'> & { callbacks?: readonly (HookCallback | LoopHookCallback)[] }): LoopHooks {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(opts.env ?? process.env)) if (!k.startsWith('OTEL_')) env[k] = v;

  async function fire(event: LoopHookEventName, matchOn: string | undefined, e: LoopHookEvent, extra: Record<string, unknown>, signal: AbortSignal): Promise<LoopHookOutcome> {
    const out: LoopHookOutcome = { additionalContext: [], systemMessages: [], errors: [] };
    // Most sessions configure none of the loop's hooks: nothing to match, serialise or wait for.
    if (!configured(event)) return out;
    const groups = opts.config[event] ?? [];
    const input = {
      session_id: e.sessionId,
      transcript_path: e.transcriptPath ?? '',
      cwd: e.cwd,
      permission_mode: e.permissionMode === 'bubble' ? 'default' : e.permissionMode,
      hook_event_name: event,
      ...extra,
    };
    const body = serializeHookInput(input);
    const runs: Promise<{ label: string; run: RawHookRun }>[] = [];
    const seen = new Set<string>();
    for (const group of groups) {
      if (matchOn !== undefined && !compileHookMatcher(group.matcher)(matchOn)) continue;
      group.hooks.forEach((h, i) => {
        if (h.type !== 'command' && h.type !== 'http') return;
        // `if` filters tool calls; on an event without one such a hook never runs (reference A1).
        if (h.if !== undefined) return;
        const key = JSON.stringify(h.type === 'command' ? [h.command, h.args ?? null, group.env ?? null] : [h.url, group.env ?? null]);
        if (seen.has(key)) return;
        seen.add(key);
        const label = `${event} hook "${h.type === 'command' ? h.command : h.url}" (${group.file ?? group.source}${group.path ? ` ${group.path}.hooks[${i}]` : ''})`;
        const timeoutMs = h.timeout !== undefined ? Math.round(h.timeout * 1000) : (DEFAULT_TIMEOUTS[event] ?? opts.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS);
        const hookEnv = { ...env, ...group.env, CLAUDE_PROJECT_DIR: e.projectDir, TOOLGATE_PROJECT_DIR: e.projectDir };
        const run = observeHookRun(
          opts.onHookRun,
          event,
          event,
          h.type === 'http' ? runHttpHook(h, { body, env: hookEnv, timeoutMs, signal }) : runCommandHook(h, { cwd: e.cwd, env: hookEnv, stdin: body, timeoutMs, signal }),
        );
        runs.push(run.then((r) => ({ label, run: r }), (err: unknown) => ({ label, run: { kind: 'error', message: String(err) } })));
      });
    }
    (opts.callbacks ?? []).forEach((cb, i) => {
      if ((cb.event as string) !== event) return;
      if (matchOn !== undefined && !compileHookMatcher(cb.matcher)(matchOn)) return;
      const label = cb.name ?? `callback#${i} (${event})`;
      runs.push(runCallback(cb as HookCallback, body, cb.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS, signal).then((run) => ({ label, run })));
    });
    for (const { label, run } of await Promise.all(runs)) judge(event, label, run, out);
    return out;
  }

  function configured(event: LoopHookEventName): boolean {
    return (opts.config[event]?.length ?? 0) > 0 || (opts.callbacks ?? []).some((cb) => (cb.event as string) === event);
  }

  return {
    configured,
    sessionStart: (e, signal) => fire('SessionStart', e.source, e, { source: e.source, ...(e.model ? { model: e.model } : {}) }, signal),
    userPromptSubmit: (e, signal) => fire('UserPromptSubmit', undefined, e, { prompt: e.prompt }, signal),
    stop: (e, signal) => fire('Stop', undefined, e, { stop_hook_active: e.stopHookActive, last_assistant_message: e.lastAssistantMessage }, signal),
    sessionEnd: (e, signal) => fire('SessionEnd', e.reason, e, { reason: e.reason }, signal),
    subagentStart: (e, signal) => fire('SubagentStart', e.agentType, e, { agent_id: e.agentId, agent_type: e.agentType }, signal),
    preCompact: (e, signal) => fire('PreCompact', e.trigger, e, { trigger: e.trigger, custom_instructions: e.customInstructions }, signal),
    subagentStop: (e, signal) =>
      fire(
        'SubagentStop',
        e.agentType,
        e,
        {
          stop_hook_active: e.stopHookActive,
          agent_id: e.agentId,
          agent_type: e.agentType,
          agent_transcript_path: e.agentTranscriptPath ?? '',
          last_assistant_message: e.lastAssistantMessage,
        },
        signal,
      ),
  };
}

const CAN_BLOCK = new Set<LoopHookEventName>(['UserPromptSubmit', 'Stop', 'SubagentStop', 'PreCompact']);
const PLAIN_STDOUT_IS_CONTEXT = new Set<LoopHookEventName>(['UserPromptSubmit', 'SessionStart']);

function judge(event: LoopHookEventName, label: string, run: RawHookRun, out: LoopHookOutcome): void {
  switch (run.kind) {
    case 'aborted':
      out.errors.push(`${label}: cancelled`);
      return;
    case 'error':
      out.errors.push(`${label}: failed to run: ${run.message}`);
      return;
    case 'timeout':
      out.errors.push(`${label}: timed out after ${run.timeoutMs} ms; no decision`);
      return;
    case 'json':
      applyJson(event, label, run.output, out);
      return;
    case 'exited': {
      const stdout = run.stdout.trim();
      const stderr = run.stderr.trim();
      let json: unknown;
      if (stdout.startsWith('{')) {
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
      }
      if (run.code === 0) {
        if (json !== undefined) applyJson(event, label, json, out);
        else if (stdout && PLAIN_STDOUT_IS_CONTEXT.has(event)) out.additionalContext.push(stdout);
        return;
      }
      if (run.code === 2) {
        if (CAN_BLOCK.has(event)) {
          const reason = (json as { reason?: unknown } | undefined)?.reason;
          out.block ??= { reason: typeof reason === 'string' && reason ? reason : stderr || `Blocked by ${label} (exit code 2)`, source: label };
        } else if (stderr) out.systemMessages.push(stderr);
        return;
      }
      out.errors.push(`${label}: failed with status ${run.code ?? run.signal}${stderr ? `: ${stderr.split('\n', 1)[0]}` : ''}`);
    }
  }
}

function applyJson(event: LoopHookEventName, label: string, value: unknown, out: LoopHookOutcome): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    out.errors.push(`${label}: output must be a JSON object`);
    return;
  }
  const v = value as Record<string, unknown>;
  if (v.continue === false) out.preventContinuation ??= { stopReason: typeof v.stopReason === 'string' ? v.stopReason : undefined };
  if (typeof v.systemMessage === 'string') out.systemMessages.push(v.systemMessage);
  if (v.decision === 'block' && CAN_BLOCK.has(event)) {
    out.block ??= { reason: typeof v.reason === 'string' && v.reason ? v.reason : `Blocked by ${label}`, source: label };
  }
  const hso = v.hookSpecificOutput as Record<string, unknown> | undefined;
  if (hso && typeof hso === 'object' && (hso.hookEventName === undefined || hso.hookEventName === event)) {
    const ctx = hso.additionalContext;
    if (typeof ctx === 'string' && ctx) out.additionalContext.push(ctx);
    else if (Array.isArray(ctx)) out.additionalContext.push(...ctx.filter((x): x is string => typeof x === 'string'));
  }
}
