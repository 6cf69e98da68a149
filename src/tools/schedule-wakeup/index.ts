/**
 * ScheduleWakeup (alias Sleep, the seeds' name): a wait without a shell. Claude Code's input (`delaySeconds`,
 * `reason`, `prompt`, `stop`, `noop`) and output (`scheduledFor`, `clampedDelaySeconds`, `wasClamped`, `stopped`,
 * `cancelledWakeups`). Where Claude Code ends the turn and fires `prompt` later as a turn of its own (its /loop),
 * toolgate's call waits inside the turn, as the seeds' Sleep does: the faces need nothing of their own, and what ends
 * the wait early reaches the model with the result — news pushed to the session's notification queue (a background
 * task's end, a Monitor event, a cron job firing: the executor drains them into this result) or a person's message
 * (the loop pokes the queue). A user interrupt aborts it like any call. Main thread only, as in Claude Code.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ArrivalKind } from '../../tool/notification-queue.js';
import type { ValidationResult } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { DEFAULT_MAX_DELAY_SECONDS, DEFAULT_MIN_DELAY_SECONDS, SCHEDULE_WAKEUP_TOOL_NAME, scheduleWakeupToolPrompt } from './prompt.js';

export { SCHEDULE_WAKEUP_TOOL_NAME };

/** ScheduleWakeup's settings (`toolgate.scheduleWakeup`). */
export interface ScheduleWakeupSettings {
  /** The shortest wait (default 60 s, Claude Code's bound); a smaller `delaySeconds` is raised to it. */
  readonly minDelaySeconds?: number;
  /** The longest wait (default 3600 s). */
  readonly maxDelaySeconds?: number;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolSettings {
    readonly scheduleWakeup?: ScheduleWakeupSettings;
  }
}

export const scheduleWakeupInputSchema = z.strictObject({
  delaySeconds: z.number().optional().describe('Seconds to wait at most (kept within the bounds the description gives). Required unless stop is true'),
  reason: z.string().optional().describe('One short, specific sentence: why this delay. Shown to the user. Required unless stop is true'),
  prompt: z.string().optional().describe('What to go on with on waking; repeated back in the result'),
  stop: z.boolean().optional().describe('true: end any pending wait of this session now; the other fields are ignored'),
  noop: z.boolean().optional().describe('true: this check found nothing new; false: something changed worth keeping'),
});
export type ScheduleWakeupInput = z.infer<typeof scheduleWakeupInputSchema>;

/** What woke the call: its time, news, a person's message, or a `stop` call. */
export type WokeBy = 'time' | ArrivalKind | 'stop';

export interface ScheduleWakeupOutput {
  /** Epoch ms the wait was to end at (for a stop call: when it was made). */
  readonly scheduledFor: number;
  readonly clampedDelaySeconds: number;
  readonly wasClamped: boolean;
  /** A `stop: true` call. */
  readonly stopped?: boolean;
  /** How many pending waits a stop call ended. */
  readonly cancelledWakeups?: number;
  /** toolgate's: what ended the wait, and after how long. */
  readonly wokeBy?: WokeBy;
  readonly waitedMs?: number;
  readonly reason?: string;
  readonly prompt?: string;
  readonly noop?: boolean;
}

/** Pending waits per session (its services object: a runtime's calls share it), so that a stop call reaches them. */
const pending = new WeakMap<object, Set<(by: WokeBy) => void>>();

function bounds(context: ToolUseContext): { min: number; max: number } {
  const s = context.options.settings.scheduleWakeup;
  const min = s?.minDelaySeconds !== undefined && Number.isFinite(s.minDelaySeconds) && s.minDelaySeconds >= 0 ? s.minDelaySeconds : DEFAULT_MIN_DELAY_SECONDS;
  const max = s?.maxDelaySeconds !== undefined && Number.isFinite(s.maxDelaySeconds) && s.maxDelaySeconds >= min ? s.maxDelaySeconds : Math.max(min, DEFAULT_MAX_DELAY_SECONDS);
  return { min, max };
}

function validate(input: ScheduleWakeupInput, context: ToolUseContext): ValidationResult {
  if (context.agentDepth > 0) return { result: false, message: 'ScheduleWakeup is for the main session only; a sub-agent ends its work with its report instead.', errorCode: 1 };
  if (input.stop === true) return { result: true };
  if (input.delaySeconds === undefined || !Number.isFinite(input.delaySeconds)) return { result: false, message: 'delaySeconds is required (a number of seconds) unless stop is true.', errorCode: 2 };
  if (input.reason === undefined || input.reason.trim() === '') return { result: false, message: 'reason is required (one sentence: why this delay) unless stop is true.', errorCode: 3 };
  return { result: true };
}

function stopPending(context: ToolUseContext): ScheduleWakeupOutput {
  const waits = pending.get(context.services);
  const count = waits?.size ?? 0;
  for (const wake of [...(waits ?? [])]) wake('stop');
  return { scheduledFor: Date.now(), clampedDelaySeconds: 0, wasClamped: false, stopped: true, cancelledWakeups: count, wokeBy: 'stop', waitedMs: 0 };
}

/** Resolves with what ended the wait; rejects when the call's signal aborts (a user interrupt, shutdown). */
function wait(ms: number, context: ToolUseContext): Promise<WokeBy> {
  const signal = context.abortController.signal;
  const queue = context.services.notifications;
  // News already queued: the model gets it with this result, so there is nothing to wait for.
  if (queue !== undefined && queue.size > 0) return Promise.resolve('notification');
  return new Promise<WokeBy>((resolve, reject) => {
    let waits = pending.get(context.services);
    if (!waits) pending.set(context.services, (waits = new Set()));
    const done = (by: WokeBy | Error) => {
      clearTimeout(timer);
      off?.();
      signal.removeEventListener('abort', onAbort);
      waits.delete(done);
      if (by instanceof Error) reject(by);
      else resolve(by);
    };
    const timer = setTimeout(() => done('time'), ms);
    const off = queue?.onArrival((kind) => done(kind));
    const onAbort = () => done(new Error('The wait was interrupted.'));
    waits.add(done);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

function resultText(data: ScheduleWakeupOutput): string {
  if (data.stopped) return `Stopped: ${data.cancelledWakeups ?? 0} pending wait${data.cancelledWakeups === 1 ? '' : 's'} ended.`;
  const waited = Math.round((data.waitedMs ?? 0) / 1000);
  const clamp = data.wasClamped ? ` (delay adjusted to ${data.clampedDelaySeconds}s)` : '';
  const why: Record<WokeBy, string> = {
    time: `Woke up after ${data.clampedDelaySeconds}s, as scheduled${clamp}.`,
    notification: `Woke up after ${waited}s of ${data.clampedDelaySeconds}s${clamp}: news arrived; it follows this result.`,
    'user-message': `Woke up after ${waited}s of ${data.clampedDelaySeconds}s${clamp}: the user sent a message.`,
    stop: `Woke up after ${waited}s of ${data.clampedDelaySeconds}s${clamp}: a stop call ended the wait.`,
  };
  const text = why[data.wokeBy ?? 'time'];
  return data.prompt !== undefined && data.prompt.trim() !== '' ? `${text}\nGo on with: ${data.prompt}` : text;
}

export const ScheduleWakeupTool = buildTool<typeof scheduleWakeupInputSchema, ScheduleWakeupOutput>({
  name: SCHEDULE_WAKEUP_TOOL_NAME,
  aliases: ['Sleep'],
  searchHint: 'wait sleep pause until something happens, without a shell',
  waitsFor: 'time',
  inputSchema: scheduleWakeupInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async (options) => scheduleWakeupToolPrompt(options.settings),
  // It changes nothing: no permission is needed to wait.
  isReadOnly: () => true,
  validateInput: async (input, context) => validate(input, context),
  call: async (input, context) => {
    const check = validate(input, context);
    if (!check.result) throw new Error(check.message);
    if (input.stop === true) return { data: stopPending(context) };
    const { min, max } = bounds(context);
    const requested = input.delaySeconds!;
    const clamped = Math.min(max, Math.max(min, requested));
    const started = Date.now();
    const scheduledFor = started + clamped * 1000;
    const wokeBy = await wait(clamped * 1000, context);
    return {
      data: {
        scheduledFor,
        clampedDelaySeconds: clamped,
        wasClamped: clamped !== requested,
        wokeBy,
        waitedMs: Date.now() - started,
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
        ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
        ...(input.noop !== undefined ? { noop: input.noop } : {}),
      },
    };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: resultText(data) }),
  renderToolUseMessage: (input) => (input.stop ? 'stop' : `${input.delaySeconds ?? ''}s${input.reason ? ` — ${input.reason}` : ''}`),
  renderToolResultMessage: (data) => resultText(data).split('\n')[0]!,
  loadViews: () => import('./render.js').then((m) => m.scheduleWakeupViews),
});
