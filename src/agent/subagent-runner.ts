/**
 * The agent layer's side of the Agent tool: `services.subagents.run()` makes a child runtime of the runtime the
 * runner belongs to — each runtime puts its own runner on its context, so the Agent call's runtime is known without
 * looking it up — (`runtime.child()`: its own context and file state, the parent's rules and prompt handler, depth
 * + 1) and runs the loop in it. A foreground child's abort is linked to the parent's turn, so an interrupt reaches
 * every level; a background child lives until it ends or the runtime is disposed.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { systemReminderText } from '../tool/message-origin.js';
import type { SubagentEvent, SubagentRequest, SubagentResult, SubagentRunner } from '../tools/agent/index.js';
import { emptyUsage } from './pricing.js';
import type { QueryEvent, QueryResult, SubagentLoopEvent, ToolRuntime } from './types.js';
import type { QueryOptions } from './query-options.js';
import type { NotificationQueue } from '../tool/notification-queue.js';
import type { MessageParam } from '../tool/tool.js';
import { contextOf } from './runtime-context.js';

export type QueryFn = (options: QueryOptions) => AsyncGenerator<QueryEvent, QueryResult>;

export interface SubagentRunnerDeps {
  readonly client: Anthropic;
  readonly query: QueryFn;
  /** The runtime whose Agent calls this runner serves: its children are made of it (each runtime has its own runner). */
  readonly parent: ToolRuntime;
  /** Where a child's loop events go for the session's top loop (`subagent` events, keyed by the Agent call's id). */
  readonly publish?: (event: QueryEvent) => void;
}

/**
 * The Agent tool's sub-agents: pass the result as `services.subagents` to `createToolRuntime`; each sub-agent runs the
 * loop in a child runtime of the caller's (`ToolRuntime.child`).
 */
export function createSubagentRunner(deps: SubagentRunnerDeps): SubagentRunner {
  const { parent } = deps;
  return {
    async run(request: SubagentRequest): Promise<SubagentResult> {
      const started = performance.now();
      const child = await parent.child({
        agentId: request.agentId,
        agentType: request.agentType,
        tools: request.tools,
        ...(request.mode !== undefined ? { mode: request.mode } : {}),
        isAsync: request.isAsync,
        avoidPermissionPrompts: request.avoidPermissionPrompts ?? request.isAsync,
        ...(request.model !== undefined ? { model: request.model } : {}),
        ...childSignal(request),
        // What the calling agent's shell left so far (an export earlier in the same turn included).
        ...(request.parent.sessionState !== undefined ? { sessionState: request.parent.sessionState } : {}),
        ...(request.inbox ? { notifications: request.inbox } : {}),
      });
      const parentToolUseId = request.parent.toolUseId;
      const tell =
        deps.publish && parentToolUseId !== undefined
          ? (update: SubagentLoopEvent) =>
              deps.publish!({ type: 'subagent', parentToolUseId, agentId: request.agentId, agentType: request.agentType, description: request.description, update })
          : undefined;
      tell?.({ phase: 'start', prompt: request.prompt, isAsync: request.isAsync, depth: request.parent.agentDepth + 1 });
      let ended: QueryResult | undefined;
      let toolUseCount = 0;
      try {
        const model = request.model ?? request.parent.options.mainLoopModel;
        // SubagentStart hooks (matched on the agent type) may add context to the child's first message.
        const start = await contextOf(child).services.hooks?.loop?.subagentStart(
          {
            sessionId: child.sessionId,
            cwd: child.cwd,
            permissionMode: child.permissionContext.mode,
            projectDir: child.permissionContext.projectDir,
            agentId: request.agentId,
            agentType: request.agentType,
          },
          contextOf(child).abortController.signal,
        );
        const extra = start?.additionalContext ?? [];
        // A block of its own, marked as the machine's (tool/message-origin.ts): the hook's text is not the task.
        const prompt: QueryOptions['prompt'] =
          extra.length > 0 ? [{ role: 'user', content: [{ type: 'text', text: request.prompt }, { type: 'text', text: systemReminderText(extra.join('\n')) }] }] : request.prompt;
        const signal = contextOf(child).abortController.signal;
        const state: ReportState = { totalTokens: 0, text: '' };
        let result: QueryResult | undefined;
        let conversation: QueryOptions['prompt'] = prompt;
        // One turn for a sub-agent; a teammate goes on with each batch its inbox gets, until it is stopped.
        for (;;) {
          const generator = deps.query({ runtime: child, client: deps.client, prompt: conversation, systemPrompt: request.systemPrompt, model, signal });
          let turn: QueryResult | undefined;
          for (;;) {
            const next = await generator.next();
            if (next.done) {
              turn ??= next.value;
              break;
            }
            const event = next.value;
            if (event.type === 'tool_result') toolUseCount++;
            else if (event.type === 'result') turn = event.result;
            if (request.onEvent) report(event, child, request.onEvent, state);
            if (tell && event.type !== 'result') tell({ phase: 'event', event });
          }
          result = turn;
          if (!request.inbox || signal.aborted || turn.stopReason === 'aborted') break;
          attempt(() => request.onTurnEnd?.(turn.text));
          const news = await nextBatch(request.inbox, signal);
          if (news === undefined) {
            result = { ...turn, stopReason: 'aborted' };
            break;
          }
          conversation = [...turn.messages, news];
        }
        ended = result;
        return {
          text: result.text,
          toolUseCount,
          durationMs: performance.now() - started,
          usage: { ...result.usage },
          isError: result.isError,
          stopReason: result.stopReason,
          ...(result.error !== undefined ? { error: result.error } : {}),
        };
      } finally {
        await child.dispose();
        if (tell) {
          const durationMs = performance.now() - started;
          tell({ phase: 'end', result: ended ?? failedResult(child.sessionId, durationMs), toolUses: toolUseCount, durationMs });
        }
      }
    },
  };
}

/** What arrives in a teammate's inbox next, as one user message of marked blocks; undefined once `signal` stops it. */
async function nextBatch(inbox: NotificationQueue, signal: AbortSignal): Promise<MessageParam | undefined> {
  while (inbox.size === 0) {
    if (signal.aborted) return undefined;
    let off = () => {};
    await new Promise<void>((resolve) => {
      const unsubscribe = inbox.onArrival((kind) => kind === 'notification' && resolve());
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      off = () => (unsubscribe(), signal.removeEventListener('abort', onAbort));
    }).finally(() => off());
  }
  if (signal.aborted) return undefined;
  const blocks = inbox.drain().flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content));
  return { role: 'user', content: blocks };
}

/** What the session's top loop hears of a child that never got to its result (its loop threw). */
function failedResult(sessionId: string, durationMs: number): QueryResult {
  return { sessionId, stopReason: 'error', isError: true, turns: 0, usage: emptyUsage(), costUsd: 0, durationMs, text: '', messages: [], error: 'the sub-agent failed before it finished' };
}

/** What stops the child: the request's own signal and, for a foreground child, its caller's turn. */
function childSignal(request: SubagentRequest): { signal?: AbortSignal } {
  const signals = [request.signal, request.isAsync ? undefined : request.parent.abortController.signal].filter((s): s is AbortSignal => s !== undefined);
  if (signals.length === 0) return {};
  return { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) };
}

interface ReportState {
  totalTokens: number;
  /** The words streamed since the last call or turn: reported before the next call, so the order is the child's. */
  text: string;
}

/** A child's loop event as what the Agent call reports; a listener that throws never stops the child. */
function report(event: QueryEvent, child: ToolRuntime, onEvent: (event: SubagentEvent) => void, state: ReportState): void {
  const flushText = () => {
    const text = state.text;
    state.text = '';
    if (text.trim() !== '') attempt(() => onEvent({ type: 'text', text }));
  };
  let out: SubagentEvent | undefined;
  switch (event.type) {
    case 'text_delta':
      state.text += event.text;
      return;
    case 'retry':
      // The failed attempt's words were thrown away with it.
      state.text = '';
      return;
    case 'tool_use': {
      flushText();
      const tool = child.findTool(event.block.name);
      const input = (event.block.input ?? {}) as Record<string, unknown>;
      const name = tool ? attempt(() => tool.userFacingName(input)) || tool.name : event.block.name;
      const summary = tool ? attempt(() => tool.renderToolUseMessage(input)) : '';
      out = { type: 'tool_start', toolUseId: event.block.id, toolName: name, summary };
      break;
    }
    case 'tool_result': {
      const { outcome } = event;
      const denied = outcome.stage === 'permission' && outcome.decision?.behavior === 'deny' ? outcome.decision.message : undefined;
      out = { type: 'tool_end', toolUseId: outcome.toolUseId, isError: outcome.isError, ...(denied !== undefined ? { denied } : {}) };
      break;
    }
    case 'assistant': {
      const u = event.usage;
      state.totalTokens += u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
      flushText();
      out = { type: 'usage', totalTokens: state.totalTokens };
      break;
    }
    default:
      return;
  }
  attempt(() => onEvent(out));
}

function attempt(f: () => unknown): string {
  try {
    const value = f();
    return typeof value === 'string' ? value : '';
  } catch {
    return '';
  }
}
