/**
 * `query()`: the agent loop — the one loop of toolgate, whatever runs it. Each turn is two steps — the model step (one
 * streamed request; tool_use blocks handed to the runtime at their `content_block_stop`) and the tool step (the
 * results, one user message in call order) — and the loop goes on while the model asks for tools, up to `maxTurns`.
 * A session is one or more user turns: the prompt, then each message of `input` (streaming input), each answered by
 * such a run of turns and ended by a `result`.
 *
 * How the steps run is the `steps` option (loop-steps.ts): in this process by default, or journaled by a durable
 * engine (the Restate session object) — then the model step is one journaled unit, its tools start after it, and
 * every hook, model call and tool step comes from the journal on a replay. Hooks, the transcript, stop reasons,
 * budgets and the messages the faces print exist here once.
 */
import type { LoopHookEvent, LoopHookEventName, LoopHooks } from '../hooks/loop-hooks.js';
import { EventChannel } from './event-channel.js';
import { fallbackModels, ModelTally, PromptInbox, queuedMessageNote, warrantsFallback } from './loop-session.js';
import { restoreScheduledTasks } from '../tools/cron/restore.js';
import { inProcessSteps, type LoopSteps } from './loop-steps.js';
import { reportModelStep, reportPrompt } from './loop-telemetry.js';
import type { ModelStepResult } from './model-step.js';
import { DEFAULT_MAX_RETRIES } from './retry.js';
import { addUsage, classifierSpendOf, costOf, emptyUsage } from './pricing.js';
import { announceDeferredTools, lastText, mergeIntoLastUser, promptMessages, stopHookFeedback } from './prompt-messages.js';
import { nextRequest } from './request.js';
import { resolveModel } from '../tool/models.js';
import { endCommandTurn, slashCommandInit } from './slash-commands.js';
import { buildSystemPrompt } from './system-prompt.js';
import type { ToolStepResult } from './tool-step.js';
import { runQueryTurn, type TurnResult } from './run-turn.js';
import { isoTimestamp, readTranscript, repairTail, subagentTranscriptPath, transcriptPath, TranscriptWriter, type TranscriptEntry } from './transcript.js';
import type { MessageParam } from '../tool/tool.js';
import type { QueryEvent, QueryResult, ToolRuntime, Usage } from './types.js';
import type { QueryOptions } from './query-options.js';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { contextOf } from './runtime-context.js';

export { DEFAULT_MAX_TOKENS, DEFAULT_MODEL, nextRequest, type NextRequestOptions } from './request.js';
export { inProcessSteps, type LoopSteps } from './loop-steps.js';

/** Retries of a request before a fallback model takes over. */
const FALLBACK_AFTER_RETRIES = 2;
/** Claude Code forces the stop after this many Stop-hook refusals in a row. */
const MAX_STOP_HOOK_BLOCKS = 8;
const STRUCTURED_OUTPUT_NUDGE = (tool: string) => `You have not called ${tool}. Call it now, once, with your final answer in the requested format.`;

/** The agent loop: streams a conversation with the model, running its tool calls through `runtime` as they arrive. */
export async function* query(options: QueryOptions): AsyncGenerator<QueryEvent, QueryResult> {
  const sessionStarted = performance.now();
  const { runtime, signal } = options;
  const steps = options.steps ?? inProcessSteps;
  const baseModel = resolveModel(options.model);
  const hooks: LoopHooks | undefined = contextOf(runtime).services.hooks?.loop;
  // The hooks of `event`, unless nobody listens to it and the steps run here: then no event is built and no step
  // taken. A journaled run keeps every hook step — its journal must not depend on settings a replay may not share.
  const hooksFor = (event: LoopHookEventName): LoopHooks | undefined => (hooks && (steps !== inProcessSteps || hooks.configured?.(event) !== false) ? hooks : undefined);
  // A sub-agent's conversation is its own: its own transcript file, and SubagentStop instead of the session's hooks.
  const { agentId, agentType } = contextOf(runtime);
  const subagent = agentId !== undefined ? { agentId, agentType: agentType ?? 'general-purpose' } : undefined;
  const transcriptFile = subagent ? subagentTranscriptPath(runtime.sessionDir, subagent.agentId) : transcriptPath(runtime.sessionDir);
  // `persistSession: false` (and a durable session, whose conversation is its engine's state) writes no transcript.
  const transcript = options.persistSession === false ? undefined : new TranscriptWriter(transcriptFile);
  const record = (entry: TranscriptEntry) => transcript?.append(entry);
  const hookEvent = (): LoopHookEvent => ({
    sessionId: runtime.sessionId,
    transcriptPath: transcriptFile,
    cwd: runtime.cwd,
    permissionMode: runtime.permissionContext.mode,
    projectDir: runtime.cwd,
  });
  const hookSignal = signal ?? new AbortController().signal;
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
  const commit = (message: MessageParam) => {
    messages.push(message);
    record({ type: 'message', message, at: isoTimestamp() });
  };

  const tally = new ModelTally();
  // A person's message that arrives while a turn runs ends a tool's wait (ScheduleWakeup): the model hears it sooner.
  const inbox = options.input ? new PromptInbox(options.input, () => contextOf(runtime).services.notifications?.poke('user-message')) : undefined;
  // What happens under the loop (a sub-agent's events, hook processes) reaches the top loop's stream: into the turn's
  // channel while one runs, else held until the loop yields next.
  // Flushed where the loop yields, inline (`while (outside.length > 0) yield …`): a `yield*` of a sync generator in
  // an async one goes through an async-from-sync iterator, promises and all, even when there is nothing to yield.
  const outside: QueryEvent[] = [];
  let toChannel: ((event: QueryEvent) => void) | undefined;
  const unsubscribe = subagent
    ? undefined
    : runtime.onLoopEvent?.((event) => {
        if (event.type === 'subagent' && event.update.phase === 'end') tally.merge(event.update.result.modelUsage);
        if (toChannel) toChannel(event);
        else outside.push(event);
      });

  // Per user turn.
  let turnStarted = sessionStarted;
  let turnSignal = signal;
  let model = options.live?.model?.() ?? baseModel;
  let usage = emptyUsage();
  let costUsd = 0;
  let turns = 0;
  let apiDurationMs = 0;
  let apiStopReason: string | null | undefined;
  let structuredOutput: { value: unknown } | undefined;
  const end = (stopReason: QueryResult['stopReason'], error?: string, extra: Partial<QueryResult> = {}): QueryResult => ({
    sessionId: runtime.sessionId,
    stopReason,
    isError: error !== undefined || stopReason === 'error' || stopReason === 'max_turns' || stopReason === 'blocked' || stopReason === 'max_budget',
    turns,
    usage,
    costUsd,
    durationMs: performance.now() - turnStarted,
    text: lastText(messages),
    messages,
    ...(error !== undefined ? { error } : {}),
    apiDurationMs,
    modelUsage: tally.snapshot(),
    totalCostUsd: tally.totalCostUsd,
    ...(apiStopReason !== undefined ? { apiStopReason } : {}),
    ...(structuredOutput !== undefined ? { structuredOutput: structuredOutput.value } : {}),
    ...extra,
  });

  const tools = runtime.tools.map((t) => t.name);
  const init = async (): Promise<QueryEvent> => ({ type: 'init', sessionId: runtime.sessionId, model, tools, cwd: runtime.cwd, ...(await slashCommandInit(runtime)) });
  // Held from here (the finally below closes it): the session's entries cost one write each, not an open and a close;
  // a new file gets the session's header first.
  let started = false;
  try {
    if (transcript?.hold()) record({ type: 'session', sessionId: runtime.sessionId, cwd: runtime.cwd, model: baseModel, at: isoTimestamp() });
    for (const message of pending) commit(message);
    yield await init();
    started = true;
  } finally {
    // A consumer that stops at `init` (or an init that fails) leaves no file open.
    if (!started) transcript?.close();
  }
  let result: QueryResult | undefined;
  let resultYielded = false;
  let escaping = false;
  try {
    const startHooks = subagent ? undefined : hooksFor('SessionStart');
    const start = !startHooks ? undefined : await steps.step('hook SessionStart', () => startHooks.sessionStart({ ...hookEvent(), source: options.startSource ?? (options.resume ? 'resume' : 'startup'), model: baseModel }, hookSignal));
    // The project's durable scheduled tasks (CronCreate's) come back with a new session: one stat when there are none.
    if (!subagent) await restoreScheduledTasks(contextOf(runtime));
    // The date in the system prompt would change on a replay the next day: it is a step of its own (made once).
    let system: string | undefined = options.systemPrompt;
    let prompt: QueryOptions['prompt'] = options.prompt;
    for (let userTurn = 1; ; userTurn++) {
      if (userTurn > 1) {
        turnStarted = performance.now();
        model = options.live?.model?.() ?? baseModel;
        usage = emptyUsage();
        costUsd = 0;
        turns = 0;
        apiDurationMs = 0;
        apiStopReason = undefined;
        structuredOutput = undefined;
        yield await init();
      }
      const live = options.live?.turnSignal?.();
      turnSignal = live && signal ? AbortSignal.any([signal, live]) : (live ?? signal);
      // Step names are unique within a session run: a later user turn's steps carry its number.
      const turnSteps: LoopSteps = userTurn === 1 ? steps : { ...steps, step: (name, run) => steps.step(`turn ${userTurn} ${name}`, run) };
      const startContext: readonly string[] = userTurn === 1 ? (start?.additionalContext ?? []) : [];
      // The user turn, inline: a `yield*` of a generator of its own cost each of its events one more await.
      userTurnRun: {
        if (!subagent) reportPrompt(runtime, prompt); // telemetry: the prompt as submitted
        // A turn that ended with calls that never ran (the budget) leaves them unanswered: answered before the next prompt.
        const repaired = repairTail([...messages]);
        if (repaired.length > messages.length) commit(repaired.at(-1)!);
        const prompted = await promptMessages(prompt, subagent ? undefined : hooksFor('UserPromptSubmit'), hookEvent, hookSignal, startContext, turnSteps);
        if ('blocked' in prompted) { result = end('blocked', prompted.blocked); break userTurnRun; }
        if (!options.resume && messages.length === 0) announceDeferredTools(prompted.messages, runtime);
        for (const m of prompted.messages) commit(mergeIntoLastUser(messages, m));
        const last = prompted.messages.at(-1);
        if (last?.role === 'user') yield { type: 'user', message: last, origin: 'prompt' };
        system ??= await turnSteps.step('system prompt', async () => buildSystemPrompt({ cwd: runtime.cwd, model: baseModel, appendSystemPrompt: options.appendSystemPrompt }));
        let stopHookBlocks = 0;
        let nudged = false;
        const fallbacks = fallbackModels(options.fallbackModel, baseModel);
        for (;;) {
          if (turnSignal?.aborted) { result = end('aborted'); break userTurnRun; }
          turns++;
          // Tool providers (MCP servers) may have changed their tools (`tools/list_changed`, a restart) during the last
          // turn: the pool is re-read between turns; an unchanged pool keeps byte-identical definitions.
          if (turns > 1) await runtime.refreshTools().catch(() => undefined);
          model = options.live?.model?.() ?? model;
          const liveThinking = options.live?.thinking?.();
          const thinking = liveThinking === null ? undefined : (liveThinking ?? options.thinking);
          let step: ModelStepResult;
          let toolStep: ToolStepResult;
          for (let attempt = 0; ; attempt++) {
            const request = await nextRequest({ runtime, model, system: system!, messages, maxTokens: options.maxTokens, thinking, toolChoice: options.toolChoice, betas: options.betas, turn: turns });
            const channel = new EventChannel<QueryEvent, TurnResult>();
            const emit = (event: QueryEvent) => channel.push(event);
            toChannel = emit;
            // With a budget, a call whose request has already spent it does not start (Claude Code checks before tools run).
            const affordable = options.maxBudgetUsd === undefined ? undefined : (stepUsage: Usage) => tally.totalCostUsd + costOf(model, stepUsage) < options.maxBudgetUsd!;
            // With a model to fall back to, an overloaded model is left after three attempts (as Claude Code does).
            const retry = fallbacks.length > 0 ? { ...options.retry, maxRetries: Math.min(options.retry?.maxRetries ?? DEFAULT_MAX_RETRIES, FALLBACK_AFTER_RETRIES) } : options.retry;
            const turn = runQueryTurn({ client: options.client, runtime, retry, streamEvents: options.streamEvents }, turnSteps, attempt === 0 ? `${turns}` : `${turns} fallback ${attempt}`, request, [...messages], emit, turnSignal, affordable);
            channel.until(turn);
            try {
              // Drained here, not by a generator of the channel's (event-channel.ts): one generator less per event.
              for (let event = channel.take(); ; event = channel.take()) {
                if (event !== undefined) yield event;
                else if (channel.settled) break;
                else await channel.wait();
              }
              ({ model: step, tools: toolStep } = channel.result());
            } finally {
              toChannel = undefined;
            }
            const next = step.error !== undefined && step.handedOver === 0 && warrantsFallback(step.failure) ? fallbacks.shift() : undefined;
            if (next === undefined) break;
            yield { type: 'model_fallback', from: model, to: next, error: step.error! };
            apiDurationMs += step.durationMs;
            model = next;
          }

          usage = addUsage(usage, step.usage);
          apiDurationMs += step.durationMs;
          apiStopReason = step.stopReason;
          const turnCost = step.error === undefined || step.usage.input_tokens > 0 ? tally.add(model, step.usage) : 0;
          reportModelStep(runtime, model, step, step.durationMs, turnCost); // telemetry: tokens, cost, duration (or the failure)
          costUsd += turnCost;
          // Auto mode's classifier calls are the session's spending too (their tokens are in the calls' decisions).
          const classifier = classifierSpendOf(toolStep.outcomes);
          if (classifier.costUsd > 0 || classifier.usage.input_tokens > 0) {
            const classifierModel = toolStep.outcomes.find((o) => o.decision?.decisionReason?.classifier?.models?.length)?.decision?.decisionReason?.classifier?.models?.[0];
            usage = addUsage(usage, classifier.usage);
            costUsd += tally.add(classifierModel ?? 'auto-mode-classifier', classifier.usage, classifier.costUsd);
          }
          if (step.assistant.content.length > 0) {
            commit(step.assistant);
            yield { type: 'assistant', message: step.assistant, usage: step.usage, stopReason: step.stopReason, costUsd: turnCost };
          }
          const queued = toolStep.message && inbox ? inbox.takeQueued() : [];
          if (toolStep.message) {
            const withQueued = queued.length > 0 ? appendQueued(toolStep.message, queued) : toolStep.message;
            commit(withQueued);
            yield { type: 'user', message: withQueued, origin: 'tool_results' };
          }
          for (const attachment of toolStep.attachments ?? []) {
            commit(attachment);
            yield { type: 'user', message: attachment, origin: 'attachment' };
          }
          while (outside.length > 0) yield outside.shift()!;
          // A person refused a call and asked to stop (Esc on the prompt): the turn ends with the refusal in the
          // conversation, and the model is not asked again until the next message.
          if (step.aborted || turnSignal?.aborted || toolStep.interrupted) { result = end('aborted'); break userTurnRun; }
          if (step.error) { result = end('error', step.error, step.failure ? { apiFailure: step.failure } : {}); break userTurnRun; }
          if (toolStep.preventContinuation) { result = end('blocked', toolStep.preventContinuation.stopReason ?? 'A hook stopped the loop.'); break userTurnRun; }
          if (options.structuredOutput) {
            const answered = toolStep.outcomes.find((o) => o.toolName === options.structuredOutput!.toolName && !o.isError);
            if (answered) {
              structuredOutput = { value: answered.output ?? answered.input };
              { result = end('end_turn'); break userTurnRun; }
            }
          }
          if (options.maxBudgetUsd !== undefined && tally.totalCostUsd >= options.maxBudgetUsd) {
            { result = end('max_budget', `Reached maximum budget ($${options.maxBudgetUsd})`); break userTurnRun; }
          }
          const goOn = step.toolUses.length > 0 || step.interrupted !== undefined || step.stopReason === 'pause_turn';
          if (goOn) {
            if (step.interrupted && step.toolUses.length === 0 && step.assistant.content.length === 0) turns--;
            if (options.maxTurns !== undefined && turns >= options.maxTurns) { result = end('max_turns'); break userTurnRun; }
            continue;
          }
          if (step.stopReason === 'max_tokens' || step.stopReason === 'model_context_window_exceeded') { result = end('max_tokens'); break userTurnRun; }
          if (step.stopReason === 'refusal') { result = end('refusal'); break userTurnRun; }
          if (options.structuredOutput && !nudged && !(options.maxTurns !== undefined && turns >= options.maxTurns)) {
            // The model ended without the structured answer: asked once, as Claude Code does.
            nudged = true;
            const nudge: MessageParam = { role: 'user', content: [{ type: 'text', text: STRUCTURED_OUTPUT_NUDGE(options.structuredOutput.toolName) }] };
            commit(mergeIntoLastUser(messages, nudge));
            yield { type: 'user', message: nudge, origin: 'structured_output' };
            continue;
          }
          // The model is done. A Stop hook may refuse that and tell it why (Claude Code's `stop_hook_active` protocol).
          const stopHooks = hooksFor(subagent ? 'SubagentStop' : 'Stop');
          const stopEvent = stopHooks && { ...hookEvent(), stopHookActive: stopHookBlocks > 0, lastAssistantMessage: lastText(messages) };
          const stop = !stopHooks || !stopEvent
            ? undefined
            : subagent
              ? await turnSteps.step(`hook SubagentStop ${turns}`, () => stopHooks.subagentStop({ ...stopEvent, ...subagent, agentTranscriptPath: transcriptFile }, hookSignal))
              : await turnSteps.step(`hook Stop ${turns}`, () => stopHooks.stop(stopEvent, hookSignal));
          while (outside.length > 0) yield outside.shift()!;
          if (stop?.preventContinuation) { result = end('blocked', stop.preventContinuation.stopReason ?? 'A Stop hook stopped the loop.'); break userTurnRun; }
          if (stop?.block && stopHookBlocks < MAX_STOP_HOOK_BLOCKS && !(options.maxTurns !== undefined && turns >= options.maxTurns)) {
            stopHookBlocks++;
            const feedback: MessageParam = stopHookFeedback(stop.block.reason);
            commit(mergeIntoLastUser(messages, feedback));
            yield { type: 'user', message: feedback, origin: 'stop_hook' };
            continue;
          }
          { result = end(step.stopReason === 'stop_sequence' ? 'stop_sequence' : 'end_turn'); break userTurnRun; }
        }
      }
      while (outside.length > 0) yield outside.shift()!;
      if (!inbox || signal?.aborted) break;
      // Streaming input: this turn's result now; the next message starts the next user turn.
      endCommandTurn(runtime);
      record({ type: 'result', stopReason: result.stopReason, turns, costUsd, at: isoTimestamp() });
      resultYielded = true;
      yield { type: 'result', result };
      const next = await inbox.next(signal);
      if (next === undefined) break;
      resultYielded = false;
      prompt = [next];
    }
    if (inbox?.failure !== undefined) {
      turns = 0;
      usage = emptyUsage();
      costUsd = 0;
      result = end('error', `the input stream failed: ${describe(inbox.failure)}`);
      resultYielded = false;
    }
    return result;
  } catch (error) {
    if (steps.passThrough?.(error)) {
      escaping = true;
      throw error;
    }
    result = end(signal?.aborted ? 'aborted' : 'error', signal?.aborted ? undefined : describe(error));
    resultYielded = false;
    return result;
  } finally {
    unsubscribe?.();
    inbox?.close();
    try {
      // The end of the session, in the generator itself (not a `yield*` of one more).
      if (!escaping) {
        result ??= end('aborted');
        if (!resultYielded) {
          // The turn is over: the allowed-tools ceilings of the skills and commands it ran are lifted.
          endCommandTurn(runtime);
          record({ type: 'result', stopReason: result.stopReason, turns, costUsd, at: isoTimestamp() });
        }
        // The last entry is written. Closed before anything below yields: a consumer that stops listening (break) leaves
        // the generator suspended at that yield, and the finally around this never runs.
        transcript?.close();
        const endReason = options.live?.sessionEnd?.();
        const endHooks = subagent || endReason === false ? undefined : hooksFor('SessionEnd');
        if (endHooks) {
          const reason = result.stopReason === 'error' ? 'error' : endReason || 'other';
          // Not the caller's signal, which may be spent: SessionEnd hooks run however the session ended.
          const endSignal = signal ? new AbortController().signal : hookSignal;
          await steps.step('hook SessionEnd', () => endHooks.sessionEnd({ ...hookEvent(), reason }, endSignal)).catch(() => undefined);
        }
        while (outside.length > 0) yield outside.shift()!;
        if (!resultYielded) yield { type: 'result', result };
      }
    } finally {
      transcript?.close(); // closed above already; this is for the paths that skip or leave it early
    }
  }
}

/** Messages the user sent while the tools ran go to the model with their results (Claude Code's queued messages). */
function appendQueued(message: MessageParam & { role: 'user' }, queued: readonly MessageParam[]): MessageParam & { role: 'user' } {
  const content = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : [...message.content];
  return { ...message, content: [...content, ...queued.map(queuedMessageNote)] };
}

function resolveTranscript(resume: string, runtime: ToolRuntime): string {
  if (resume.endsWith('.jsonl')) return path.resolve(resume);
  if (resume === runtime.sessionId) return transcriptPath(runtime.sessionDir);
  return transcriptPath(path.join(path.dirname(runtime.sessionDir), resume));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export type { Usage };
