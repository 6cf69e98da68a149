/**
 * `query()`: the agent loop — the one loop of toolgate, whatever runs it. Each turn is two steps — the model step (one
 * streamed request; tool_use blocks handed to the runtime at their `content_block_stop`) and the tool step (the
 * results, one user message in call order) — and the loop goes on while the model asks for tools, up to `maxTurns`.
 *
 * How the steps run is the `steps` option (loop-steps.ts): in this process by default, or journaled by a durable
 * engine (the Restate session object) — then the model step is one journaled unit, its tools start after it, and
 * every hook, model call and tool step comes from the journal on a replay. Hooks, the transcript, stop reasons,
 * budgets and the messages the faces print exist here once.
 */
import type { LoopHookEvent, LoopHooks } from '../hooks/loop-hooks.js';
import { EventChannel } from './event-channel.js';
import { inProcessSteps, journalModelStep, journalToolStep, replayModelStep, type LoopSteps } from './loop-steps.js';
import { reportModelStep, reportPrompt } from './loop-telemetry.js';
import { modelStep, type ModelRequest, type ModelStepResult } from './model-step.js';
import { addUsage, costOf, emptyUsage } from './pricing.js';
import { announceDeferredTools, lastText, mergeIntoLastUser, promptMessages } from './prompt-messages.js';
import { nextRequest } from './request.js';
import { resolveModel } from '../tool/models.js';
import { endCommandTurn, slashCommandInit } from './slash-commands.js';
import { buildSystemPrompt } from './system-prompt.js';
import { startToolStep, type ToolStepResult } from './tool-step.js';
import { readTranscript, transcriptPath, TranscriptWriter, type TranscriptEntry } from './transcript.js';
import type { MessageParam } from '../tool/tool.js';
import type { QueryEvent, QueryOptions, QueryResult, ToolRuntime, Usage } from './types.js';
import path from 'node:path';
import { existsSync } from 'node:fs';

export { DEFAULT_MAX_TOKENS, DEFAULT_MODEL, nextRequest, type NextRequestOptions } from './request.js';
export { inProcessSteps, type LoopSteps } from './loop-steps.js';

/** Claude Code forces the stop after this many Stop-hook refusals in a row. */
const MAX_STOP_HOOK_BLOCKS = 8;

/** The agent loop: streams a conversation with the model, running its tool calls through `runtime` as they arrive. */
export async function* query(options: QueryOptions): AsyncGenerator<QueryEvent, QueryResult> {
  const started = performance.now();
  const { runtime, signal } = options;
  const steps = options.steps ?? inProcessSteps;
  const model = resolveModel(options.model);
  const hooks: LoopHooks | undefined = runtime.context.services.hooks?.loop;
  // A sub-agent's conversation is its own: its own transcript file, and SubagentStop instead of the session's hooks.
  const agentId = runtime.context.agentId;
  const subagent = agentId !== undefined ? { agentId, agentType: runtime.context.agentType ?? 'general-purpose' } : undefined;
  const transcriptFile = subagent
    ? path.join(runtime.sessionDir, 'subagents', `${subagent.agentId.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`)
    : transcriptPath(runtime.sessionDir);
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
  if (transcript && !existsSync(transcript.file)) record({ type: 'session', sessionId: runtime.sessionId, cwd: runtime.cwd, model, at: new Date().toISOString() });
  const commit = (message: MessageParam) => {
    messages.push(message);
    record({ type: 'message', message, at: new Date().toISOString() });
  };
  for (const message of pending) commit(message);

  let usage = emptyUsage();
  let costUsd = 0;
  let turns = 0;
  const end = (stopReason: QueryResult['stopReason'], error?: string): QueryResult => ({
    sessionId: runtime.sessionId,
    stopReason,
    isError: error !== undefined || stopReason === 'error' || stopReason === 'max_turns' || stopReason === 'blocked',
    turns,
    usage,
    costUsd,
    durationMs: performance.now() - started,
    text: lastText(messages),
    messages,
    ...(error !== undefined ? { error } : {}),
  });

  const tools = runtime.tools.map((t) => t.name);
  yield { type: 'init', sessionId: runtime.sessionId, model, tools, cwd: runtime.cwd, ...(await slashCommandInit(runtime)) };
  let result: QueryResult | undefined;
  let escaping = false;
  try {
    const start = subagent || !hooks ? undefined : await steps.step('hook SessionStart', () => hooks.sessionStart({ ...hookEvent(), source: options.resume ? 'resume' : 'startup', model }, hookSignal));
    if (!subagent) reportPrompt(runtime, options.prompt); // telemetry: the prompt as submitted
    const prompt = await promptMessages(options.prompt, subagent ? undefined : hooks, hookEvent, hookSignal, start?.additionalContext ?? [], steps);
    if ('blocked' in prompt) return (result = end('blocked', prompt.blocked));
    if (!options.resume && messages.length === 0) announceDeferredTools(prompt.messages, runtime);
    for (const m of prompt.messages) commit(mergeIntoLastUser(messages, m));

    // The date in the system prompt would change on a replay the next day: it is a step of its own.
    const system = options.systemPrompt ?? (await steps.step('system prompt', async () => buildSystemPrompt({ cwd: runtime.cwd, model, appendSystemPrompt: options.appendSystemPrompt })));
    let stopHookBlocks = 0;
    for (;;) {
      if (signal?.aborted) return (result = end('aborted'));
      turns++;
      // Tool providers (MCP servers) may have changed their tools (`tools/list_changed`, a restart) during the last
      // turn: the pool is re-read between turns; an unchanged pool keeps byte-identical definitions.
      if (turns > 1) await runtime.refreshTools().catch(() => undefined);
      const request = await nextRequest({ runtime, model, system, messages, maxTokens: options.maxTokens, thinking: options.thinking });
      const channel = new EventChannel<QueryEvent>();
      const emit = (event: QueryEvent) => channel.push(event);
      const turn = runTurn(options, steps, turns, request, [...messages], emit);
      const { model: step, tools: toolStep } = yield* channel.drainUntil(turn);

      usage = addUsage(usage, step.usage);
      const turnCost = costOf(model, step.usage);
      reportModelStep(runtime, model, step, step.durationMs, turnCost); // telemetry: tokens, cost, duration (or the failure)
      costUsd += turnCost;
      if (step.assistant.content.length > 0) {
        commit(step.assistant);
        yield { type: 'assistant', message: step.assistant, usage: step.usage, stopReason: step.stopReason, costUsd: turnCost };
      }
      if (toolStep.message) {
        commit(toolStep.message);
        yield { type: 'user', message: toolStep.message };
      }
      for (const attachment of toolStep.attachments ?? []) {
        commit(attachment);
        yield { type: 'user', message: attachment };
      }
      // A person refused a call and asked to stop (Esc on the prompt): the turn ends with the refusal in the
      // conversation, and the model is not asked again until the next message.
      if (step.aborted || signal?.aborted || toolStep.interrupted) return (result = end('aborted'));
      if (step.error) return (result = end('error', step.error));
      if (toolStep.preventContinuation) return (result = end('blocked', toolStep.preventContinuation.stopReason ?? 'A hook stopped the loop.'));
      const goOn = step.toolUses.length > 0 || step.interrupted !== undefined || step.stopReason === 'pause_turn';
      if (goOn) {
        if (step.interrupted && step.toolUses.length === 0 && step.assistant.content.length === 0) turns--;
        if (options.maxTurns !== undefined && turns >= options.maxTurns) return (result = end('max_turns'));
        continue;
      }
      if (step.stopReason === 'max_tokens' || step.stopReason === 'model_context_window_exceeded') return (result = end('max_tokens'));
      if (step.stopReason === 'refusal') return (result = end('refusal'));
      // The model is done. A Stop hook may refuse that and tell it why (Claude Code's `stop_hook_active` protocol).
      const stopEvent = { ...hookEvent(), stopHookActive: stopHookBlocks > 0, lastAssistantMessage: lastText(messages) };
      const stop = !hooks
        ? undefined
        : subagent
          ? await steps.step(`hook SubagentStop ${turns}`, () => hooks.subagentStop({ ...stopEvent, ...subagent, agentTranscriptPath: transcriptFile }, hookSignal))
          : await steps.step(`hook Stop ${turns}`, () => hooks.stop(stopEvent, hookSignal));
      if (stop?.preventContinuation) return (result = end('blocked', stop.preventContinuation.stopReason ?? 'A Stop hook stopped the loop.'));
      if (stop?.block && stopHookBlocks < MAX_STOP_HOOK_BLOCKS && !(options.maxTurns !== undefined && turns >= options.maxTurns)) {
        stopHookBlocks++;
        const feedback: MessageParam = { role: 'user', content: [{ type: 'text', text: `Stop hook feedback:\n${stop.block.reason}` }] };
        commit(mergeIntoLastUser(messages, feedback));
        yield { type: 'user', message: feedback };
        continue;
      }
      return (result = end(step.stopReason === 'stop_sequence' ? 'stop_sequence' : 'end_turn'));
    }
  } catch (error) {
    if (steps.passThrough?.(error)) {
      escaping = true;
      throw error;
    }
    result = end(signal?.aborted ? 'aborted' : 'error', signal?.aborted ? undefined : error instanceof Error ? error.message : String(error));
    return result;
  } finally {
    if (!escaping) yield* finish();
  }

  async function* finish(): AsyncGenerator<QueryEvent> {
    result ??= end('aborted');
    // The turn is over: the allowed-tools ceilings of the skills and commands it ran are lifted.
    endCommandTurn(runtime);
    record({ type: 'result', stopReason: result.stopReason, turns, costUsd, at: new Date().toISOString() });
    if (!subagent && hooks) {
      const ended = result;
      await steps.step('hook SessionEnd', () => hooks.sessionEnd({ ...hookEvent(), reason: ended.stopReason === 'error' ? 'error' : 'other' }, new AbortController().signal)).catch(() => undefined);
    }
    yield { type: 'result', result };
  }
}

/**
 * One turn, both steps. In this process tool_use blocks go to the tool step while the model step is still streaming;
 * journaled, the model step is one unit and its tools start after it (each step's result stored as JSON).
 */
async function runTurn(
  options: QueryOptions,
  steps: LoopSteps,
  turn: number,
  request: ModelRequest,
  history: readonly MessageParam[],
  emit: (event: QueryEvent) => void,
): Promise<{ model: ModelStepResult; tools: ToolStepResult }> {
  const { client, signal, retry, runtime } = options;
  if (steps.overlap) {
    const tools = startToolStep(runtime, emit, signal, history);
    const model = await modelStep({ client, request, signal, retry, onToolUse: tools.add, emit });
    return { model, tools: await tools.settle(model) };
  }
  const model = replayModelStep(await steps.step(`model ${turn}`, async () => journalModelStep(await modelStep({ client, request, signal, retry, emit }))));
  if (model.toolUses.length === 0) return { model, tools: { outcomes: [] } };
  const tools = await steps.step(`tools ${turn}`, async () => {
    const step = startToolStep(runtime, emit, signal, history);
    for (const block of model.toolUses) if (!model.rejected.has(block.id)) step.add(block, model.assistant);
    return journalToolStep(await step.settle(model));
  });
  return { model, tools };
}

function resolveTranscript(resume: string, runtime: ToolRuntime): string {
  if (resume.endsWith('.jsonl')) return path.resolve(resume);
  if (resume === runtime.sessionId) return transcriptPath(runtime.sessionDir);
  return transcriptPath(path.join(path.dirname(runtime.sessionDir), resume));
}

export type { Usage };
