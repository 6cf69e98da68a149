/**
 * What one `query()` call holds while it runs (query.ts): the hooks it may call, the transcript it writes, the
 * conversation so far, the events from under the loop waiting to be yielded — and the figures of the user turn running
 * now, from which its `result` is made. Opened once per call; nothing here is shared between calls.
 */
import type { LoopHookEvent, LoopHookEventName, LoopHooks } from '../hooks/loop-hooks.js';
import { ModelTally, PromptInbox } from './loop-session.js';
import { inProcessSteps, type LoopSteps } from './loop-steps.js';
import { emptyUsage } from './pricing.js';
import { finalText } from './prompt-messages.js';
import { resolveModel } from '../tool/models.js';
import { isoTimestamp, readTranscript, subagentTranscriptPath, transcriptPath, TranscriptWriter, type TranscriptEntry } from './transcript.js';
import type { MessageParam } from '../tool/tool.js';
import type { QueryEvent, QueryResult, ToolRuntime, Usage } from './types.js';
import type { QueryOptions } from './query-options.js';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { contextOf } from './runtime-context.js';

export interface LoopContext {
  readonly runtime: ToolRuntime;
  readonly steps: LoopSteps;
  readonly baseModel: string;
  /** A sub-agent's conversation is its own: its own transcript file, and SubagentStop instead of the session's hooks. */
  readonly subagent: { readonly agentId: string; readonly agentType: string } | undefined;
  readonly transcriptFile: string;
  readonly transcript: TranscriptWriter | undefined;
  readonly hookSignal: AbortSignal;
  readonly messages: MessageParam[];
  /** Messages of a resumed transcript not yet in this session's file: written once the session's header is. */
  readonly pending: readonly MessageParam[];
  readonly tally: ModelTally;
  readonly inbox: PromptInbox | undefined;
  /**
   * What happens under the loop (a sub-agent's events, hook processes) reaches the top loop's stream: into the turn's
   * channel while one runs (`toChannel`), else held here until the loop yields next. Flushed where the loop yields,
   * inline (`while (outside.length > 0) yield …`): a `yield*` of a sync generator in an async one goes through an
   * async-from-sync iterator, promises and all, even when there is nothing to yield.
   */
  readonly outside: QueryEvent[];
  toChannel: ((event: QueryEvent) => void) | undefined;
  readonly unsubscribe: (() => void) | undefined;
  /** The hooks of `event`, or undefined when nobody listens to it and the steps run here. */
  hooksFor(event: LoopHookEventName): LoopHooks | undefined;
  hookEvent(): LoopHookEvent;
  record(entry: TranscriptEntry): void;
  /** A message into the conversation and the transcript (with the ids its parts were yielded with). */
  commit(message: MessageParam, uuids?: readonly string[]): void;
}

/** The figures of one user turn; the next user turn starts from fresh ones. */
export interface TurnFigures {
  started: number;
  model: string;
  usage: Usage;
  costUsd: number;
  turns: number;
  apiDurationMs: number;
  apiStopReason: string | null | undefined;
  structuredOutput: { value: unknown } | undefined;
}

export function freshFigures(started: number, model: string): TurnFigures {
  return { started, model, usage: emptyUsage(), costUsd: 0, turns: 0, apiDurationMs: 0, apiStopReason: undefined, structuredOutput: undefined };
}

/** The loop's state for one `query()` call; resuming reads the transcript to resume (and throws if there is none). */
export function openLoop(options: QueryOptions): LoopContext {
  const { runtime } = options;
  const steps = options.steps ?? inProcessSteps;
  const hooks: LoopHooks | undefined = contextOf(runtime).services.hooks?.loop;
  const { agentId, agentType } = contextOf(runtime);
  const subagent = agentId !== undefined ? { agentId, agentType: agentType ?? 'general-purpose' } : undefined;
  const transcriptFile = subagent ? subagentTranscriptPath(runtime.sessionDir, subagent.agentId) : transcriptPath(runtime.sessionDir);
  // `persistSession: false` (and a durable session, whose conversation is its engine's state) writes no transcript.
  const transcript = options.persistSession === false ? undefined : new TranscriptWriter(transcriptFile);
  // The mirror hears an entry once it is written: the state folder stays the transcript a resume reads.
  const mirror = subagent || !transcript ? undefined : options.onTranscriptEntry;
  const record = (entry: TranscriptEntry) => {
    transcript?.append(entry);
    mirror?.(entry);
  };
  const messages: MessageParam[] = [];
  // Resuming this session's own transcript appends to it; another session's is copied into this one.
  let pending: MessageParam[] = [];
  if (options.resume) {
    const file = resolveTranscript(options.resume, runtime);
    if (!existsSync(file)) throw new Error(`no transcript to resume at ${file}`);
    const read = readTranscript(file);
    const own = path.resolve(file) === path.resolve(transcriptFile);
    messages.push(...(own ? read.messages.slice(0, read.stored) : []));
    pending = own ? read.messages.slice(read.stored) : read.messages;
  }
  const tally = new ModelTally();
  const loop: LoopContext = {
    runtime,
    steps,
    baseModel: resolveModel(options.model),
    subagent,
    transcriptFile,
    transcript,
    hookSignal: options.signal ?? new AbortController().signal,
    messages,
    pending,
    tally,
    // A person's message that arrives while a turn runs ends a tool's wait (ScheduleWakeup): the model hears it sooner.
    inbox: options.input ? new PromptInbox(options.input, () => contextOf(runtime).services.notifications?.poke('user-message')) : undefined,
    outside: [],
    toChannel: undefined,
    unsubscribe: subagent
      ? undefined
      : runtime.onLoopEvent?.((event) => {
          if (event.type === 'subagent' && event.update.phase === 'end') tally.merge(event.update.result.modelUsage);
          if (loop.toChannel) loop.toChannel(event);
          else loop.outside.push(event);
        }),
    // No event built and no step taken for a hook nobody listens to — unless the steps are journaled: a journal must
    // not depend on settings a replay may not share.
    hooksFor: (event) => (hooks && (steps !== inProcessSteps || hooks.configured?.(event) !== false) ? hooks : undefined),
    hookEvent: () => ({
      sessionId: runtime.sessionId,
      transcriptPath: transcriptFile,
      cwd: runtime.cwd,
      permissionMode: runtime.permissionContext.mode,
      projectDir: runtime.cwd,
    }),
    record,
    commit: (message, uuids) => {
      messages.push(message);
      record({ type: 'message', message, at: isoTimestamp(), ...(uuids && uuids.length > 0 ? { uuids } : {}) });
    },
  };
  return loop;
}

/** The user turn's `result`, from its figures as they are now. */
export function resultOf(
  loop: LoopContext,
  figures: TurnFigures,
  stopReason: QueryResult['stopReason'],
  error?: string,
  extra: Partial<QueryResult> = {},
): QueryResult {
  const { usage, costUsd, turns, apiDurationMs, apiStopReason, structuredOutput } = figures;
  return {
    sessionId: loop.runtime.sessionId,
    stopReason,
    isError: error !== undefined || stopReason === 'error' || stopReason === 'max_turns' || (stopReason === 'blocked' && extra.hookStopped === undefined) || stopReason === 'max_budget',
    turns,
    usage,
    costUsd,
    durationMs: performance.now() - figures.started,
    text: finalText(loop.messages),
    messages: loop.messages,
    ...(error !== undefined ? { error } : {}),
    apiDurationMs,
    modelUsage: loop.tally.snapshot(),
    totalCostUsd: loop.tally.totalCostUsd,
    ...(apiStopReason !== undefined ? { apiStopReason } : {}),
    ...(structuredOutput !== undefined ? { structuredOutput: structuredOutput.value } : {}),
    ...extra,
  };
}

function resolveTranscript(resume: string, runtime: ToolRuntime): string {
  if (resume.endsWith('.jsonl')) return path.resolve(resume);
  if (resume === runtime.sessionId) return transcriptPath(runtime.sessionDir);
  return transcriptPath(path.join(path.dirname(runtime.sessionDir), resume));
}
