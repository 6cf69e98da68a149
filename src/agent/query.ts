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
 * budgets and the messages the faces print exist here once: what one call holds is loop-context.ts, when a user turn
 * ends is loop-stops.ts, and `query()` below reads as the steps of a session.
 */
import type { LoopHookOutcome } from '../hooks/loop-hooks.js';
import { EventChannel } from './event-channel.js';
import { fallbackModels, queuedMessageNote, warrantsFallback } from './loop-session.js';
import { freshFigures, openLoop, resultOf, type LoopContext, type TurnFigures } from './loop-context.js';
import { atMaxTurns, cutShort, doneEnding, emptyInterruption, modelGoesOn, turnEnding, type Ending } from './loop-stops.js';
import { restoreScheduledTasks } from '../tools/cron/restore.js';
import type { LoopSteps } from './loop-steps.js';
import { reportModelStep, reportPrompt } from './loop-telemetry.js';
import type { ModelStepResult } from './model-step.js';
import { DEFAULT_MAX_RETRIES } from './retry.js';
import { addUsage, classifierSpendOf, costOf, emptyUsage } from './pricing.js';
import { announceDeferredTools, lastText, mergeIntoLastUser, promptMessages, stopHookFeedback } from './prompt-messages.js';
import { nextRequest } from './request.js';
import { endCommandTurn, slashCommandInit } from './slash-commands.js';
import { buildSystemPrompt } from './system-prompt.js';
import type { ToolStepResult } from './tool-step.js';
import { runQueryTurn, type TurnResult } from './run-turn.js';
import { isoTimestamp, repairTail } from './transcript.js';
import type { MessageParam } from '../tool/tool.js';
import type { QueryEvent, QueryResult, Usage } from './types.js';
import type { QueryOptions } from './query-options.js';
import { randomUUID } from '../tool/crypto.js';
import { whenToolLoaded } from '../tool/module-load.js';
import { contextOf } from './runtime-context.js';

export { DEFAULT_MAX_TOKENS, DEFAULT_MODEL, nextRequest, type NextRequestOptions } from './request.js';
export { inProcessSteps, type LoopSteps } from './loop-steps.js';

/** Retries of a request before a fallback model takes over. */
const FALLBACK_AFTER_RETRIES = 2;
/** Claude Code forces the stop after this many Stop-hook refusals in a row. */
const MAX_STOP_HOOK_BLOCKS = 8;
const structuredOutputNudge = (tool: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text: `You have not called ${tool}. Call it now, once, with your final answer in the requested format.` }] });

/** The agent loop: streams a conversation with the model, running its tool calls through `runtime` as they arrive. */
export async function* query(options: QueryOptions): AsyncGenerator<QueryEvent, QueryResult> {
  const sessionStarted = performance.now();
  const { runtime, signal } = options;
  const loop = openLoop(options);
  const { steps, baseModel, subagent, outside, inbox, tally } = loop;
  // The user turn running now; a stop ends it with a result made of its figures.
  let figures = freshFigures(sessionStarted, options.live?.model?.() ?? baseModel);
  const end = (stopReason: QueryResult['stopReason'], error?: string): QueryResult => resultOf(loop, figures, stopReason, error);
  const endWith = (ending: Ending): QueryResult => {
    if (ending.structuredOutput) figures.structuredOutput = ending.structuredOutput;
    return resultOf(loop, figures, ending.stopReason, ending.error, ending.extra);
  };

  const tools = runtime.tools.map((t) => t.name);
  const init = async (): Promise<QueryEvent> => ({ type: 'init', sessionId: runtime.sessionId, model: figures.model, tools, cwd: runtime.cwd, ...(await slashCommandInit(runtime)) });
  // Held from here (the finally below closes it): the session's entries cost one write each, not an open and a close.
  let started = false;
  try {
    openTranscript(loop);
    yield await init();
    started = true;
  } finally {
    // A consumer that stops at `init` (or an init that fails) leaves no file open.
    if (!started) loop.transcript?.close();
  }
  let result: QueryResult | undefined;
  let resultYielded = false;
  let escaping = false;
  try {
    const start = await startSession(loop, options);
    // The date in the system prompt would change on a replay the next day: it is a step of its own (made once).
    let system: string | undefined = options.systemPrompt;
    let prompt: QueryOptions['prompt'] = options.prompt;
    for (let userTurn = 1; ; userTurn++) {
      if (userTurn > 1) {
        figures = freshFigures(performance.now(), options.live?.model?.() ?? baseModel);
        yield await init();
      }
      const turnSignal = turnSignalNow(options);
      // Step names are unique within a session run: a later user turn's steps carry its number.
      const turnSteps: LoopSteps = userTurn === 1 ? steps : { ...steps, step: (name, run) => steps.step(`turn ${userTurn} ${name}`, run) };
      // The user turn, inline: a `yield*` of a generator of its own cost each of its events one more await.
      userTurnRun: {
        if (!subagent) reportPrompt(runtime, prompt); // telemetry: the prompt as submitted
        const prompted = await submitPrompt(loop, options, prompt, turnSteps, userTurn === 1 ? (start?.additionalContext ?? []) : []);
        if ('blocked' in prompted) { result = end('blocked', prompted.blocked); break userTurnRun; }
        if (prompted.last?.role === 'user') yield { type: 'user', message: prompted.last, origin: 'prompt' };
        system ??= await turnSteps.step('system prompt', async () => buildSystemPrompt({ cwd: runtime.cwd, model: baseModel, appendSystemPrompt: options.appendSystemPrompt }));
        let stopHookBlocks = 0;
        let nudged = false;
        const fallbacks = fallbackModels(options.fallbackModel, baseModel);
        for (;;) {
          if (turnSignal?.aborted) { result = end('aborted'); break userTurnRun; }
          figures.turns++;
          // Tool providers (MCP servers) may have changed their tools (`tools/list_changed`, a restart) during the last
          // turn: the pool is re-read between turns; an unchanged pool keeps byte-identical definitions.
          if (figures.turns > 1) await runtime.refreshTools().catch(() => undefined);
          figures.model = options.live?.model?.() ?? figures.model;
          const thinking = thinkingNow(options);
          let step: ModelStepResult;
          let toolStep: ToolStepResult;
          let ids: YieldedIds;
          for (let attempt = 0; ; attempt++) {
            const channel = await startTurn(loop, options, figures, turnSteps, { system: system!, thinking, attempt, fallbacks, signal: turnSignal });
            ids = { blocks: [], results: [] };
            try {
              // Drained here, not by a generator of the channel's (event-channel.ts): one generator less per event.
              for (let event = channel.take(); ; event = channel.take()) {
                if (event?.type === 'tool_use') {
                  // A built-in still a stub (registry/lazy-tool.ts) cannot draw its call yet (userFacingName,
                  // renderToolUseMessage): the event waits for the module the executor is loading anyway. A load that
                  // fails is the call's error (its tool_result); the event goes on with the stub.
                  const loading = whenToolLoaded(runtime.findTool(event.block.name));
                  if (loading) await loading.catch(() => undefined);
                }
                if (event !== undefined) yield withId(event, ids);
                else if (channel.settled) break;
                else await channel.wait();
              }
              ({ model: step, tools: toolStep } = channel.result());
            } finally {
              loop.toChannel = undefined;
            }
            const next = step.error !== undefined && step.handedOver === 0 && warrantsFallback(step.failure) ? fallbacks.shift() : undefined;
            if (next === undefined) break;
            yield { type: 'model_fallback', from: figures.model, to: next, error: step.error! };
            figures.apiDurationMs += step.durationMs;
            figures.model = next;
          }

          const turnCost = account(loop, figures, step, toolStep);
          if (step.assistant.content.length > 0) {
            loop.commit(step.assistant, ids.blocks);
            yield { type: 'assistant', message: step.assistant, usage: step.usage, stopReason: step.stopReason, costUsd: turnCost };
          }
          const queued = toolStep.message && inbox ? inbox.takeQueued() : [];
          if (toolStep.message) {
            const withQueued = queued.length > 0 ? appendQueued(toolStep.message, queued) : toolStep.message;
            yield said(loop, withQueued, 'tool_results', false, ids.results);
          }
          for (const attachment of toolStep.attachments ?? []) {
            yield said(loop, attachment, 'attachment');
          }
          while (outside.length > 0) yield outside.shift()!;
          const ending = turnEnding(options, step, toolStep, tally, turnSignal);
          if (ending) { result = endWith(ending); break userTurnRun; }
          if (modelGoesOn(step)) {
            if (emptyInterruption(step)) figures.turns--;
            if (atMaxTurns(options, figures.turns)) { result = end('max_turns'); break userTurnRun; }
            continue;
          }
          const cut = cutShort(step);
          if (cut) { result = endWith(cut); break userTurnRun; }
          if (options.structuredOutput && !nudged && !atMaxTurns(options, figures.turns)) {
            // The model ended without the structured answer: asked once, as Claude Code does.
            nudged = true;
            yield said(loop, structuredOutputNudge(options.structuredOutput.toolName), 'structured_output', true);
            continue;
          }
          // The model is done. A Stop hook may refuse that and tell it why (Claude Code's `stop_hook_active` protocol).
          const stop = await stopHooks(loop, turnSteps, figures.turns, stopHookBlocks);
          while (outside.length > 0) yield outside.shift()!;
          if (stop?.preventContinuation) { result = end('blocked', stop.preventContinuation.stopReason ?? 'A Stop hook stopped the loop.'); break userTurnRun; }
          if (stop?.block && stopHookBlocks < MAX_STOP_HOOK_BLOCKS && !atMaxTurns(options, figures.turns)) {
            stopHookBlocks++;
            yield said(loop, stopHookFeedback(stop.block.reason), 'stop_hook', true);
            continue;
          }
          result = endWith(doneEnding(step));
          break userTurnRun;
        }
      }
      while (outside.length > 0) yield outside.shift()!;
      if (!inbox || signal?.aborted) break;
      // Streaming input: this turn's result now; the next message starts the next user turn.
      recordResult(loop, figures, result);
      resultYielded = true;
      yield { type: 'result', result };
      const next = await inbox.next(signal);
      if (next === undefined) break;
      resultYielded = false;
      prompt = [next];
    }
    if (inbox?.failure !== undefined) {
      Object.assign(figures, { turns: 0, usage: emptyUsage(), costUsd: 0 });
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
    loop.unsubscribe?.();
    inbox?.close();
    try {
      // The end of the session, in the generator itself (not a `yield*` of one more).
      if (!escaping) {
        result ??= end('aborted');
        await endSession(loop, options, figures, result, resultYielded);
        while (outside.length > 0) yield outside.shift()!;
        if (!resultYielded) yield { type: 'result', result };
      }
    } finally {
      loop.transcript?.close(); // closed in endSession already; this is for the paths that skip or leave it early
    }
  }
}

/** The transcript held open; a new file gets the session's header first, then a resumed transcript's pending messages. */
function openTranscript(loop: LoopContext): void {
  const { runtime } = loop;
  if (loop.transcript?.hold()) loop.record({ type: 'session', sessionId: runtime.sessionId, cwd: runtime.cwd, model: loop.baseModel, at: isoTimestamp() });
  for (const message of loop.pending) loop.commit(message);
}

/** SessionStart (not for a sub-agent), and the project's durable scheduled tasks (CronCreate's) back. */
async function startSession(loop: LoopContext, options: QueryOptions): Promise<LoopHookOutcome | undefined> {
  const startHooks = loop.subagent ? undefined : loop.hooksFor('SessionStart');
  const start = !startHooks
    ? undefined
    : await loop.steps.step('hook SessionStart', () => startHooks.sessionStart({ ...loop.hookEvent(), source: options.startSource ?? (options.resume ? 'resume' : 'startup'), model: loop.baseModel }, loop.hookSignal));
  // One stat when there are none.
  if (!loop.subagent) await restoreScheduledTasks(contextOf(loop.runtime));
  return start;
}

/** The prompt into the conversation, through UserPromptSubmit; what it ends with is shown as the user's message. */
async function submitPrompt(
  loop: LoopContext,
  options: QueryOptions,
  prompt: QueryOptions['prompt'],
  turnSteps: LoopSteps,
  startContext: readonly string[],
): Promise<{ readonly blocked: string } | { readonly last: MessageParam | undefined }> {
  const { messages } = loop;
  // A turn that ended with calls that never ran (the budget) leaves them unanswered: answered before the next prompt.
  const repaired = repairTail([...messages]);
  if (repaired.length > messages.length) loop.commit(repaired.at(-1)!);
  const prompted = await promptMessages(prompt, loop.subagent ? undefined : loop.hooksFor('UserPromptSubmit'), loop.hookEvent, loop.hookSignal, startContext, turnSteps);
  if ('blocked' in prompted) return prompted;
  if (!options.resume && messages.length === 0) announceDeferredTools(prompted.messages, loop.runtime);
  for (const m of prompted.messages) loop.commit(mergeIntoLastUser(messages, m));
  return { last: prompted.messages.at(-1) };
}

/** One turn started (both steps, run-turn.ts): its events come through the channel it returns, then its result. */
async function startTurn(
  loop: LoopContext,
  options: QueryOptions,
  figures: TurnFigures,
  turnSteps: LoopSteps,
  turn: { readonly system: string; readonly thinking: QueryOptions['thinking']; readonly attempt: number; readonly fallbacks: readonly string[]; readonly signal: AbortSignal | undefined },
): Promise<EventChannel<QueryEvent, TurnResult>> {
  const { runtime, messages, tally } = loop;
  const { system, thinking, attempt, fallbacks } = turn;
  const request = await nextRequest({ runtime, model: figures.model, system, messages, maxTokens: options.maxTokens, thinking, toolChoice: options.toolChoice, betas: options.betas, ...(options.effort ? { effort: options.effort } : {}), turn: figures.turns, ...(options.promptCaching ? { promptCaching: options.promptCaching(figures.model) } : {}) });
  const channel = new EventChannel<QueryEvent, TurnResult>();
  const emit = (event: QueryEvent) => channel.push(event);
  loop.toChannel = emit;
  // With a budget, a call whose request has already spent it does not start (Claude Code checks before tools run).
  const affordable = options.maxBudgetUsd === undefined ? undefined : (stepUsage: Usage) => tally.totalCostUsd + costOf(figures.model, stepUsage) < options.maxBudgetUsd!;
  // With a model to fall back to, an overloaded model is left after three attempts (as Claude Code does).
  const retry = fallbacks.length > 0 ? { ...options.retry, maxRetries: Math.min(options.retry?.maxRetries ?? DEFAULT_MAX_RETRIES, FALLBACK_AFTER_RETRIES) } : options.retry;
  const name = attempt === 0 ? `${figures.turns}` : `${figures.turns} fallback ${attempt}`;
  channel.until(runQueryTurn({ client: options.client, runtime, retry, streamEvents: options.streamEvents }, turnSteps, name, request, [...messages], emit, turn.signal, affordable));
  return channel;
}

/** The turn's spending into the user turn's figures; returns the model step's cost. */
function account(loop: LoopContext, figures: TurnFigures, step: ModelStepResult, toolStep: ToolStepResult): number {
  figures.usage = addUsage(figures.usage, step.usage);
  figures.apiDurationMs += step.durationMs;
  figures.apiStopReason = step.stopReason;
  const turnCost = step.error === undefined || step.usage.input_tokens > 0 ? loop.tally.add(figures.model, step.usage) : 0;
  reportModelStep(loop.runtime, figures.model, step, step.durationMs, turnCost); // telemetry: tokens, cost, duration (or the failure)
  figures.costUsd += turnCost;
  // Auto mode's classifier calls are the session's spending too (their tokens are in the calls' decisions).
  const classifier = classifierSpendOf(toolStep.outcomes);
  if (classifier.costUsd > 0 || classifier.usage.input_tokens > 0) {
    const classifierModel = toolStep.outcomes.find((o) => o.decision?.decisionReason?.classifier?.models?.length)?.decision?.decisionReason?.classifier?.models?.[0];
    figures.usage = addUsage(figures.usage, classifier.usage);
    figures.costUsd += loop.tally.add(classifierModel ?? 'auto-mode-classifier', classifier.usage, classifier.costUsd);
  }
  return turnCost;
}

/** The model is done: Stop (SubagentStop in a sub-agent) may refuse that, or stop the loop. */
async function stopHooks(loop: LoopContext, turnSteps: LoopSteps, turns: number, stopHookBlocks: number): Promise<LoopHookOutcome | undefined> {
  const { subagent } = loop;
  const hooks = loop.hooksFor(subagent ? 'SubagentStop' : 'Stop');
  if (!hooks) return undefined;
  const stopEvent = { ...loop.hookEvent(), stopHookActive: stopHookBlocks > 0, lastAssistantMessage: lastText(loop.messages) };
  return subagent
    ? await turnSteps.step(`hook SubagentStop ${turns}`, () => hooks.subagentStop({ ...stopEvent, ...subagent, agentTranscriptPath: loop.transcriptFile }, loop.hookSignal))
    : await turnSteps.step(`hook Stop ${turns}`, () => hooks.stop(stopEvent, loop.hookSignal));
}

/** The user turn is over: the allowed-tools ceilings of the skills and commands it ran are lifted; its result recorded. */
function recordResult(loop: LoopContext, figures: TurnFigures, result: QueryResult): void {
  endCommandTurn(loop.runtime);
  loop.record({ type: 'result', stopReason: result.stopReason, turns: figures.turns, costUsd: figures.costUsd, at: isoTimestamp() });
}

/** The last result recorded (unless it was already), the transcript closed, and SessionEnd. */
async function endSession(loop: LoopContext, options: QueryOptions, figures: TurnFigures, result: QueryResult, recorded: boolean): Promise<void> {
  if (!recorded) recordResult(loop, figures, result);
  // The last entry is written. Closed before anything yields: a consumer that stops listening (break) leaves the
  // generator suspended at that yield, and the finally around it never runs.
  loop.transcript?.close();
  const endReason = options.live?.sessionEnd?.();
  const endHooks = loop.subagent || endReason === false ? undefined : loop.hooksFor('SessionEnd');
  if (!endHooks) return;
  const reason = result.stopReason === 'error' ? 'error' : endReason || 'other';
  // Not the caller's signal, which may be spent: SessionEnd hooks run however the session ended.
  const endSignal = options.signal ? new AbortController().signal : loop.hookSignal;
  await loop.steps.step('hook SessionEnd', () => endHooks.sessionEnd({ ...loop.hookEvent(), reason }, endSignal)).catch(() => undefined);
}

/** A user message into the conversation (`merge`: into the last user message, when the conversation ends with one), and its event. */
function said(loop: LoopContext, message: MessageParam, origin: 'tool_results' | 'attachment' | 'structured_output' | 'stop_hook', merge = false, uuids?: readonly string[]): QueryEvent {
  loop.commit(merge ? mergeIntoLastUser(loop.messages, message) : message, uuids);
  return { type: 'user', message, origin };
}

/** The ids given to the parts of a turn as they are yielded: the answer's blocks, the calls' results. */
interface YieldedIds {
  readonly blocks: string[];
  readonly results: string[];
}

/**
 * A block of the answer or a call's result gets an id as it is yielded (a face's message `uuid`); the transcript keeps
 * it with the message the part joins, so a resume can be named by the id a program was handed (`resumeSessionAt`).
 */
function withId(event: QueryEvent, ids: YieldedIds): QueryEvent {
  if (event.type !== 'assistant_block' && event.type !== 'tool_result') return event;
  const uuid = event.uuid ?? randomUUID();
  (event.type === 'assistant_block' ? ids.blocks : ids.results).push(uuid);
  return { ...event, uuid };
}

/** Messages the user sent while the tools ran go to the model with their results (Claude Code's queued messages). */
function appendQueued(message: MessageParam & { role: 'user' }, queued: readonly MessageParam[]): MessageParam & { role: 'user' } {
  const content = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : [...message.content];
  return { ...message, content: [...content, ...queued.map(queuedMessageNote)] };
}

/** The thinking configuration of the next request: a program's live choice (`null`: none), else the session's. */
function thinkingNow(options: QueryOptions): QueryOptions['thinking'] {
  const live = options.live?.thinking?.();
  return live === null ? undefined : (live ?? options.thinking);
}

/** The signal of the user turn about to start: the session's, and the turn's own when a program gives one. */
function turnSignalNow(options: QueryOptions): AbortSignal | undefined {
  const { signal } = options;
  const live = options.live?.turnSignal?.();
  return live && signal ? AbortSignal.any([signal, live]) : (live ?? signal);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export type { Usage };
