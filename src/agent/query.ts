/**
 * `query()`: the agent loop. Each turn is two steps — the model step (one streamed request; tool_use blocks handed
 * to the runtime at their `content_block_stop`) and the tool step (the results, one user message in call order) —
 * and the loop goes on while the model asks for tools, up to `maxTurns`.
 *
 * A durable engine (the Restate backend) journals the same two steps: `modelStep()` without `onToolUse` as one
 * journaled step (its result — assistant message, stop reason, usage — is plain JSON), then `runtime.run(assistant)`
 * as a second, merged with the model step's own answers by `merge()`; `nextRequest()` rebuilds the request from the
 * journaled messages, so a replay sends byte-identical requests. Only the streaming overlap (tools starting while
 * the model writes) is given up there.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { LoopHookEvent, LoopHooks } from '../hooks/loop-hooks.js';
import { deferredToolNames } from '../tool/api-format.js';
import type { APIToolDefinition, MessageParam } from '../tool/tool.js';
import { deferredToolsAnnouncement } from '../tools/tool-search/prompt.js';
import { EventChannel } from './event-channel.js';
import { reportModelStep, reportPrompt } from './loop-telemetry.js';
import { modelStep, type ModelRequest, type ModelStepResult } from './model-step.js';
import { addUsage, costOf, emptyUsage } from './pricing.js';
import { buildSystemPrompt } from './system-prompt.js';
import { startToolStep, type ToolStepResult } from './tool-step.js';
import { readTranscript, transcriptPath, TranscriptWriter } from './transcript.js';
import type { QueryEvent, QueryOptions, QueryResult, ToolRuntime, Usage } from './types.js';
import path from 'node:path';
import { existsSync } from 'node:fs';

export const DEFAULT_MODEL = 'claude-sonnet-4-6';
export const DEFAULT_MAX_TOKENS = 32_000;
/** Claude Code forces the stop after this many Stop-hook refusals in a row. */
const MAX_STOP_HOOK_BLOCKS = 8;
const EPHEMERAL = { type: 'ephemeral' } as const;

export async function* query(options: QueryOptions): AsyncGenerator<QueryEvent, QueryResult> {
  const started = performance.now();
  const { runtime, signal } = options;
  const model = options.model ?? DEFAULT_MODEL;
  const hooks: LoopHooks | undefined = runtime.context.services.hooks?.loop;
  // A sub-agent's conversation is its own: its own transcript file, and SubagentStop instead of the session's hooks.
  const agentId = runtime.context.agentId;
  const subagent = agentId !== undefined ? { agentId, agentType: runtime.context.agentType ?? 'general-purpose' } : undefined;
  const transcript = new TranscriptWriter(
    subagent ? path.join(runtime.sessionDir, 'subagents', `${subagent.agentId.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`) : transcriptPath(runtime.sessionDir),
  );
  const hookEvent = (): LoopHookEvent => ({
    sessionId: runtime.sessionId,
    transcriptPath: transcript.file,
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
    const own = path.resolve(file) === path.resolve(transcript.file);
    messages.push(...(own ? read.messages.slice(0, read.stored) : []));
    pending = own ? read.messages.slice(read.stored) : read.messages;
  }
  if (!existsSync(transcript.file)) transcript.append({ type: 'session', sessionId: runtime.sessionId, cwd: runtime.cwd, model, at: new Date().toISOString() });
  const commit = (message: MessageParam) => {
    messages.push(message);
    transcript.append({ type: 'message', message, at: new Date().toISOString() });
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
  yield { type: 'init', sessionId: runtime.sessionId, model, tools, cwd: runtime.cwd };
  let result: QueryResult | undefined;
  try {
    const start = subagent ? undefined : await hooks?.sessionStart({ ...hookEvent(), source: options.resume ? 'resume' : 'startup', model }, hookSignal);
    if (!subagent) reportPrompt(runtime, options.prompt); // telemetry: the prompt as submitted
    const prompt = await promptMessages(options.prompt, subagent ? undefined : hooks, hookEvent, hookSignal, start?.additionalContext ?? []);
    if ('blocked' in prompt) return (result = end('blocked', prompt.blocked));
    if (!options.resume && messages.length === 0) announceDeferredTools(prompt.messages, runtime);
    for (const m of prompt.messages) commit(mergeIntoLastUser(messages, m));

    const system = options.systemPrompt ?? buildSystemPrompt({ cwd: runtime.cwd, model, appendSystemPrompt: options.appendSystemPrompt });
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
      const turn = runTurn(options, request, emit);
      const { model: step, tools: toolStep, modelMs } = yield* channel.drainUntil(turn);

      usage = addUsage(usage, step.usage);
      const turnCost = costOf(model, step.usage);
      reportModelStep(runtime, model, step, modelMs, turnCost); // telemetry: tokens, cost, duration (or the failure)
      costUsd += turnCost;
      if (step.assistant.content.length > 0) {
        commit(step.assistant);
        yield { type: 'assistant', message: step.assistant, usage: step.usage, stopReason: step.stopReason, costUsd: turnCost };
      }
      if (toolStep.message) {
        commit(toolStep.message);
        yield { type: 'user', message: toolStep.message };
      }
      if (step.aborted || signal?.aborted) return (result = end('aborted'));
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
      const stop = subagent
        ? await hooks?.subagentStop({ ...stopEvent, ...subagent, agentTranscriptPath: transcript.file }, hookSignal)
        : await hooks?.stop(stopEvent, hookSignal);
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
    result = end(signal?.aborted ? 'aborted' : 'error', signal?.aborted ? undefined : error instanceof Error ? error.message : String(error));
    return result;
  } finally {
    result ??= end('aborted');
    transcript.append({ type: 'result', stopReason: result.stopReason, turns, costUsd, at: new Date().toISOString() });
    if (!subagent) await hooks?.sessionEnd({ ...hookEvent(), reason: result.stopReason === 'error' ? 'error' : 'other' }, new AbortController().signal).catch(() => undefined);
    yield { type: 'result', result };
  }
}

/** One turn, both steps: tool_use blocks go to the tool step while the model step is still streaming. */
async function runTurn(options: QueryOptions, request: ModelRequest, emit: (event: QueryEvent) => void): Promise<{ model: ModelStepResult; tools: ToolStepResult; modelMs: number }> {
  const tools = startToolStep(options.runtime, emit, options.signal);
  const started = performance.now(); // telemetry: the model step's duration
  const model = await modelStep({ client: options.client, request, signal: options.signal, retry: options.retry, onToolUse: tools.add, emit });
  const modelMs = performance.now() - started;
  return { model, tools: await tools.settle(model), modelMs };
}

export interface NextRequestOptions {
  readonly runtime: ToolRuntime;
  readonly model: string;
  readonly system: string;
  readonly messages: readonly MessageParam[];
  readonly maxTokens?: number;
  readonly thinking?: Anthropic.Messages.ThinkingConfigParam;
}

/**
 * The request for the next turn. Prompt-cache breakpoints on the last tool definition, the system prompt and the
 * last message; the tool list comes from the runtime, byte-identical while the pool is unchanged.
 */
export async function nextRequest(options: NextRequestOptions): Promise<ModelRequest> {
  const definitions = await options.runtime.definitions({ model: options.model });
  const tools: APIToolDefinition[] = definitions.map((d, i) => (i === definitions.length - 1 ? { ...d, cache_control: EPHEMERAL } : d));
  return {
    model: options.model,
    max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    system: [{ type: 'text', text: options.system, cache_control: EPHEMERAL }],
    ...(tools.length > 0 ? { tools } : {}),
    messages: options.runtime.applyBudget(withLastMessageBreakpoint(options.messages)),
    ...(options.thinking ? { thinking: options.thinking } : {}),
  };
}

function withLastMessageBreakpoint(messages: readonly MessageParam[]): MessageParam[] {
  const out = [...messages];
  const last = out.at(-1);
  if (!last) return out;
  const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : [...last.content];
  // Thinking blocks cannot carry a breakpoint: mark the last block that can.
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    content[i] = { ...block, cache_control: EPHEMERAL } as typeof block;
    break;
  }
  out[out.length - 1] = { ...last, content } as MessageParam;
  return out;
}

/** The prompt as user messages, after UserPromptSubmit hooks (which may refuse it or add context). */
async function promptMessages(
  prompt: QueryOptions['prompt'],
  hooks: LoopHooks | undefined,
  hookEvent: () => LoopHookEvent,
  signal: AbortSignal,
  startContext: readonly string[],
): Promise<{ messages: MessageParam[] } | { blocked: string }> {
  const messages: MessageParam[] = typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : [...prompt];
  const last = messages.at(-1);
  const text = last?.role === 'user' ? (typeof last.content === 'string' ? last.content : last.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n')) : '';
  const submit = hooks && last?.role === 'user' ? await hooks.userPromptSubmit({ ...hookEvent(), prompt: text }, signal) : undefined;
  if (submit?.block) return { blocked: `Prompt blocked by ${submit.block.source}: ${submit.block.reason}` };
  if (submit?.preventContinuation) return { blocked: submit.preventContinuation.stopReason ?? 'A UserPromptSubmit hook stopped the loop.' };
  const context = [...startContext, ...(submit?.additionalContext ?? [])];
  if (context.length > 0 && last?.role === 'user') {
    const blocks = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : [...last.content];
    messages[messages.length - 1] = { role: 'user', content: [...blocks, ...context.map((c) => ({ type: 'text' as const, text: c }))] };
  }
  return { messages };
}

/** Two user messages in a row become one (a resumed transcript may end with one). */
function mergeIntoLastUser(messages: MessageParam[], next: MessageParam): MessageParam {
  const last = messages.at(-1);
  if (last?.role !== 'user' || next.role !== 'user') return next;
  messages.pop();
  const blocks = (m: MessageParam) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content);
  return { role: 'user', content: [...blocks(last), ...blocks(next)] };
}

function resolveTranscript(resume: string, runtime: ToolRuntime): string {
  if (resume.endsWith('.jsonl')) return path.resolve(resume);
  if (resume === runtime.sessionId) return transcriptPath(runtime.sessionDir);
  return transcriptPath(path.join(path.dirname(runtime.sessionDir), resume));
}

function lastText(messages: readonly MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    const text = m.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('');
    if (text) return text;
  }
  return '';
}

export type { Usage };

/**
 * Deferred tools are announced by name only, in the first user message (a system reminder): their schemas reach the
 * model when it loads them through ToolSearch. Names only, so the prompt stays small and its cache stable.
 */
function announceDeferredTools(prompt: MessageParam[], runtime: ToolRuntime): void {
  const names = deferredToolNames(runtime.tools).filter((n) => runtime.context.options.loadedDeferredTools?.has(n) !== true);
  const first = prompt[0];
  if (names.length === 0 || first?.role !== 'user') return;
  const content = typeof first.content === 'string' ? [{ type: 'text' as const, text: first.content }] : [...first.content];
  prompt[0] = { ...first, content: [{ type: 'text', text: deferredToolsAnnouncement(names) }, ...content] };
}
