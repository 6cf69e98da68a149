/**
 * Durable sessions: the agent loop as a Restate virtual object, one per session (`ToolgateSession/<sessionId>`).
 *
 * Each turn is the loop's two steps, journaled: the model step (`modelStep()` without streaming hand-over; its result
 * is plain JSON) and the tool step (`runtime.run()` of the handed-over blocks, merged with the model step's own
 * answers). The conversation is the object's state, written after every turn. A worker that dies mid-conversation:
 * Restate retries the handler on another worker, which replays the journal — finished model calls come from the
 * journal (no second request, no second bill), and a tool step cut off halfway runs again, but each of its calls goes
 * to the durable tool backend under its `sessionId/tool_use_id` key, so calls that finished return their stored results
 * and run nothing. Only the streaming overlap of query() (tools starting while the model still writes) is given up.
 *
 * Session-level tools (plan mode, to-do lists) run inside the tool step in the session's process; after a crash in
 * the middle of a tool step they run again (they change only this session's in-memory state, which is rebuilt).
 */
import './node20-compat.js';
import type Anthropic from '@anthropic-ai/sdk';
import * as restate from '@restatedev/restate-sdk';
import { DEFAULT_MAX_TOKENS, DEFAULT_MODEL, nextRequest } from '../agent/query.js';
import { modelStep, type ModelStepResult } from '../agent/model-step.js';
import { addUsage, emptyUsage } from '../agent/pricing.js';
import { buildSystemPrompt } from '../agent/system-prompt.js';
import { merge } from '../agent/tool-step.js';
import type { PermissionMode } from '../tool/permission-types.js';
import type { ToolRuntime, Usage } from '../agent/types.js';
import type { AssistantMessage, MessageParam, ToolResultBlockParam, ToolUseBlock } from '../tool/tool.js';

export const SESSION_OBJECT = 'ToolgateSession';

export interface SessionRunRequest {
  readonly prompt: string;
  /** The workspace the session works in (the tool workers must see it at the same path). */
  readonly cwd: string;
  readonly model?: string;
  readonly maxTurns?: number;
  readonly maxTokens?: number;
  readonly systemPrompt?: string;
  readonly mode?: PermissionMode;
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
}

export interface SessionRunResult {
  readonly sessionId: string;
  readonly stopReason: 'end_turn' | 'max_turns' | 'max_tokens' | 'refusal' | 'error' | 'stop_sequence';
  readonly turns: number;
  readonly text: string;
  readonly usage: Usage;
  readonly error?: string;
}

export interface SessionObjectOptions {
  /** The runtime for one session (its tool calls go to the durable tool backend). Disposed after each run. */
  readonly createRuntime: (sessionId: string, request: SessionRunRequest) => Promise<ToolRuntime>;
  readonly client: () => Anthropic;
}

/** The model step as journaled: everything the loop needs from it, as JSON. */
interface JournaledModelStep {
  readonly assistant: AssistantMessage;
  readonly stopReason: string | null;
  readonly usage: Usage;
  readonly toolUses: readonly ToolUseBlock[];
  readonly rejected: readonly (readonly [string, ToolResultBlockParam])[];
  readonly error?: string;
}

function toJournal(step: ModelStepResult): JournaledModelStep {
  return {
    assistant: step.assistant,
    stopReason: step.stopReason,
    usage: step.usage,
    toolUses: step.toolUses,
    rejected: [...step.rejected.entries()],
    ...(step.error !== undefined ? { error: step.error } : {}),
  };
}

function fromJournal(step: JournaledModelStep): ModelStepResult {
  return {
    ...step,
    rejected: new Map(step.rejected),
    handedOver: step.toolUses.length - step.rejected.length,
    aborted: false,
    attempts: 1,
  };
}

export function sessionObject(options: SessionObjectOptions) {
  return restate.object({
    name: SESSION_OBJECT,
    handlers: {
      run: async (ctx: restate.ObjectContext, request: SessionRunRequest): Promise<SessionRunResult> => {
        const sessionId = ctx.key;
        const model = request.model ?? DEFAULT_MODEL;
        const messages: MessageParam[] = [...((await ctx.get<MessageParam[]>('messages')) ?? []), { role: 'user', content: request.prompt }];
        // The date in the system prompt would change on a replay the next day: the prompt is journaled once.
        const system = await ctx.run('system prompt', () => request.systemPrompt ?? buildSystemPrompt({ cwd: request.cwd, model }));
        const runtime = await options.createRuntime(sessionId, request);
        let usage = emptyUsage();
        let turns = 0;
        const end = (stopReason: SessionRunResult['stopReason'], error?: string): SessionRunResult => {
          ctx.set('messages', messages);
          return { sessionId, stopReason, turns, text: lastText(messages), usage, ...(error !== undefined ? { error } : {}) };
        };
        try {
          for (;;) {
            turns++;
            const apiRequest = await nextRequest({ runtime, model, system, messages, maxTokens: request.maxTokens ?? DEFAULT_MAX_TOKENS });
            const step = await ctx.run(`model ${turns}`, async () => toJournal(await modelStep({ client: options.client(), request: apiRequest })));
            usage = addUsage(usage, step.usage);
            if (step.assistant.content.length > 0) messages.push(step.assistant);
            if (step.error !== undefined) return end('error', step.error);
            if (step.toolUses.length > 0) {
              const toolMessage = await ctx.run(`tools ${turns}`, async () => {
                const rejected = new Set(step.rejected.map(([id]) => id));
                const blocks = step.toolUses.filter((b) => !rejected.has(b.id));
                const run = blocks.length > 0 ? await runtime.run(blocks) : undefined;
                return merge(fromJournal(step), run, undefined).message ?? null;
              });
              if (toolMessage) messages.push(toolMessage);
              ctx.set('messages', messages);
              if (request.maxTurns !== undefined && turns >= request.maxTurns) return end('max_turns');
              continue;
            }
            if (step.stopReason === 'max_tokens') return end('max_tokens');
            if (step.stopReason === 'refusal') return end('refusal');
            return end(step.stopReason === 'stop_sequence' ? 'stop_sequence' : 'end_turn');
          }
        } finally {
          await runtime.dispose();
        }
      },
      /** The conversation so far (a shared handler: readable while a run is going on). */
      messages: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext): Promise<MessageParam[]> => (await ctx.get<MessageParam[]>('messages')) ?? []),
    },
    options: {
      retryPolicy: { initialInterval: 200, maxInterval: 5_000, exponentiationFactor: 2, maxAttempts: 30, onMaxAttempts: 'kill' },
      idempotencyRetention: { days: 1 },
    },
  });
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
