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
import { journaledEvent, type LoopSteps } from '../agent/loop-steps.js';
import { query } from '../agent/query.js';
import type { PermissionMode } from '../tool/permission-types.js';
import type { QueryEvent, QueryResult, ToolRuntime, Usage } from '../agent/types.js';
import type { MessageParam } from '../tool/tool.js';

export const SESSION_OBJECT = 'ToolgateSession';

/**
 * The part of a session that travels to the workers: plain JSON, nothing that would have to call back into the
 * process that asked (a permission handler, hook callbacks, in-process MCP servers stay out: session/durable.ts
 * refuses them). The session worker makes the runtime from it.
 */
export interface DurableSessionOptions {
  /** The workspace the session works in (the tool workers must see it at the same path). */
  readonly cwd: string;
  readonly model?: string;
  readonly maxTurns?: number;
  readonly maxTokens?: number;
  readonly maxBudgetUsd?: number;
  readonly fallbackModel?: string;
  readonly systemPrompt?: string;
  readonly appendSystemPrompt?: string;
  readonly mode?: PermissionMode;
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  /** Built-in tools offered, by name (default: all). */
  readonly tools?: readonly string[];
  readonly additionalDirectories?: readonly string[];
  /** Settings files of the workspace to read (default: project and local; the worker's own account's are never read). */
  readonly settingSources?: readonly ('project' | 'local')[];
  readonly betas?: readonly string[];
}

export interface SessionRunRequest extends DurableSessionOptions {
  /** The user message: text, or blocks. */
  readonly prompt: string | Exclude<MessageParam['content'], string>;
}

export interface SessionRunResult {
  readonly sessionId: string;
  readonly stopReason: QueryResult['stopReason'];
  readonly turns: number;
  readonly text: string;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly error?: string;
  /** The run's events as plain JSON (secrets redacted), for a face to show as a local run's: `wireEvent`. */
  readonly events?: readonly QueryEvent[];
  /** The agent types the session's Agent tool offers (the init message lists them). */
  readonly agents?: readonly string[];
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

/**
 * An event as it travels back to the face that asked: plain JSON, typed outputs redacted as results are; what is only
 * for the moment (text and thinking deltas, progress) stays here.
 */
export function wireEvent(event: QueryEvent, runtime: Pick<ToolRuntime, 'redact'>): QueryEvent | undefined {
  switch (event.type) {
    case 'text_delta':
    case 'thinking_delta':
    case 'tool_progress':
      return undefined;
    case 'tool_result': {
      const plain = journaledEvent(event) as Extract<QueryEvent, { type: 'tool_result' }>;
      return plain.outcome.output === undefined ? plain : { type: 'tool_result', outcome: { ...plain.outcome, output: runtime.redact(plain.outcome.output) } };
    }
    case 'subagent': {
      if (event.update.phase !== 'event') return event;
      const inner = wireEvent(event.update.event, runtime);
      return inner && { ...event, update: { phase: 'event', event: inner } };
    }
    default:
      return event;
  }
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
            ...(request.maxBudgetUsd !== undefined ? { maxBudgetUsd: request.maxBudgetUsd } : {}),
            ...(request.fallbackModel !== undefined ? { fallbackModel: request.fallbackModel } : {}),
            ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
            ...(request.appendSystemPrompt !== undefined ? { appendSystemPrompt: request.appendSystemPrompt } : {}),
            ...(request.betas && request.betas.length > 0 ? { betas: request.betas } : {}),
            steps: restateSteps(ctx),
            // The conversation is this object's state; a transcript on one worker's disk would be a partial copy.
            persistSession: false,
          });
          // Every event, whatever attempt ran it: a replay emits the journaled steps' events again (run-turn.ts).
          const events: QueryEvent[] = [];
          for await (const event of run) {
            const plain = wireEvent(event, runtime);
            if (plain) events.push(plain);
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
              events,
              agents: runtime.agentDefinitions().map((d) => d.agentType),
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
