/**
 * Durable sessions: the agent loop as a Restate virtual object, one per session (`ToolgateSession/<sessionId>`).
 *
 * The loop is `query()` itself — the same hooks, stop reasons, interrupted-turn and `pause_turn` handling as in
 * process — with its steps journaled (`restateSteps`): the system prompt, every hook the loop fires, each model step
 * (one unit: its tools start after it) and each tool step are `ctx.run` steps. The conversation is the object's state.
 * A worker that dies mid-conversation: Restate retries the handler on another worker, which replays the journal —
 * finished model calls and hooks come from the journal (no second request, no second bill), and a tool step cut off
 * halfway runs again, but each of its calls goes to the durable tool backend under its `sessionId/tool_use_id` key, so
 * calls that finished return their stored results and run nothing.
 *
 * Session-level tools (plan mode, to-do lists) run inside the tool step in the session's process; a tool step that
 * completed is not run again on a replay, so what such a tool changed in memory is not rebuilt after a crash.
 */
import './node20-compat.js';
import type Anthropic from '@anthropic-ai/sdk';
import * as restate from '@restatedev/restate-sdk';
import { query } from '../agent/query.js';
import type { LoopSteps } from '../agent/loop-steps.js';
import type { PermissionMode } from '../tool/permission-types.js';
import type { QueryResult, ToolRuntime, Usage } from '../agent/types.js';
import type { MessageParam } from '../tool/tool.js';

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
  readonly stopReason: QueryResult['stopReason'];
  readonly turns: number;
  readonly text: string;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly error?: string;
}

export interface SessionObjectOptions {
  /** The runtime for one session (its tool calls go to the durable tool backend). Disposed after each run. */
  readonly createRuntime: (sessionId: string, request: SessionRunRequest) => Promise<ToolRuntime>;
  readonly client: () => Anthropic;
}

/**
 * The loop's steps as Restate `ctx.run` steps. An error that came out of one (a terminal failure, the engine's own
 * control flow) leaves the loop as it is: Restate decides what happens to the invocation, not the loop.
 */
export function restateSteps(ctx: restate.Context): LoopSteps {
  const fromSteps = new WeakSet<object>();
  return {
    overlap: false,
    async step(name, run) {
      try {
        return await ctx.run(name, run);
      } catch (error) {
        if (typeof error === 'object' && error !== null) fromSteps.add(error);
        throw error;
      }
    },
    passThrough: (error) => typeof error === 'object' && error !== null && fromSteps.has(error),
  };
}

export function sessionObject(options: SessionObjectOptions) {
  return restate.object({
    name: SESSION_OBJECT,
    handlers: {
      run: async (ctx: restate.ObjectContext, request: SessionRunRequest): Promise<SessionRunResult> => {
        const sessionId = ctx.key;
        const prior = (await ctx.get<MessageParam[]>('messages')) ?? [];
        const runtime = await options.createRuntime(sessionId, request);
        try {
          const run = query({
            runtime,
            client: options.client(),
            prompt: [...prior, { role: 'user', content: request.prompt }],
            ...(request.model !== undefined ? { model: request.model } : {}),
            ...(request.maxTurns !== undefined ? { maxTurns: request.maxTurns } : {}),
            ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
            ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
            steps: restateSteps(ctx),
            // The conversation is this object's state; a transcript on one worker's disk would be a partial copy.
            persistSession: false,
          });
          for await (const event of run) {
            if (event.type !== 'result') continue;
            const { result } = event;
            ctx.set('messages', result.messages);
            return {
              sessionId,
              stopReason: result.stopReason,
              turns: result.turns,
              text: result.text,
              usage: result.usage,
              costUsd: result.costUsd,
              ...(result.error !== undefined ? { error: result.error } : {}),
            };
          }
          throw new restate.TerminalError('the session loop ended without a result');
        } finally {
          await runtime.dispose();
        }
      },
      /** The conversation as of the last finished run (a shared handler: readable while a run is going on). */
      messages: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext): Promise<MessageParam[]> => (await ctx.get<MessageParam[]>('messages')) ?? []),
    },
    options: {
      retryPolicy: { initialInterval: 200, maxInterval: 5_000, exponentiationFactor: 2, maxAttempts: 30, onMaxAttempts: 'kill' },
      idempotencyRetention: { days: 1 },
    },
  });
}
