/**
 * The agent loop's public shapes: what `query()` takes (`QueryOptions`, `QueryLive`), what it yields as the
 * conversation goes (`QueryEvent`) and how it ends (`QueryResult`, with its `Usage` and cost). The runtime's own shapes
 * are in types.ts, which re-exports these: import them from there, the agent layer's one contract module.
 *
 * The same contract as types.ts: the CLI, the Agent SDK face, the terminal UI and the distributed backend build on
 * these; change them additively.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { RetryPolicy } from './retry.js';
import type { LoopSteps } from './loop-steps.js';
import type { ToolRuntime } from './types.js';
import type { ToolUseOutcome } from '../execution/outcome.js';
import type { HookRunNotice } from '../hooks/types.js';
import type { AssistantMessage, MessageParam, ToolProgress, ToolUseBlock } from '../tool/tool.js';

/** Token usage as the API reports it, summed. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** What `query()` runs: the runtime, the model client, the prompt or conversation, and the loop's limits. */
export interface QueryOptions {
  readonly runtime: ToolRuntime;
  /** An `Anthropic` client (it reads `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL` itself). */
  readonly client: Anthropic;
  /** The user's prompt, or the whole conversation so far ending in a user message. */
  readonly prompt: string | readonly MessageParam[];
  readonly model?: string;
  readonly maxTurns?: number;
  readonly maxTokens?: number;
  /** Replaces toolgate's system prompt. */
  readonly systemPrompt?: string;
  readonly appendSystemPrompt?: string;
  /**
   * Extended thinking (`{ type: 'enabled', budget_tokens }` — at least 1,024 and below `maxTokens` —, `adaptive`, or
   * `disabled`). Thinking blocks are kept in the conversation with their signatures, as tool use requires.
   */
  readonly thinking?: Anthropic.Messages.ThinkingConfigParam;
  /**
   * The API's `tool_choice`. `auto` and `none` hold for every turn; `any` and `{ type: 'tool', name }` force a tool
   * call on the first turn only (forced on every turn, the model could never answer and the loop would run to
   * `maxTurns`): later turns are `auto`. A forcing choice cannot go with extended thinking (the API refuses it), and a
   * named tool must be in the request: either is an error before any request is sent.
   */
  readonly toolChoice?: Anthropic.Messages.ToolChoice;
  /**
   * API betas (`anthropic-beta`): the requests go through the SDK's beta endpoint, and the tool definitions follow
   * them — with `advanced-tool-use-2025-11-20`, tools send their `inputExamples` as `input_examples`.
   */
  readonly betas?: readonly string[];
  readonly signal?: AbortSignal;
  /** Continue this transcript: a session id (a folder beside the runtime's session folder) or a `.jsonl` path. */
  readonly resume?: string;
  /**
   * Why this loop starts, for SessionStart's `source` (default: `resume` with `resume`, else `startup`): a
   * conversation that starts over in the same session after `/clear` or a compaction.
   */
  readonly startSource?: 'startup' | 'resume' | 'clear' | 'compact';
  /** Retries of failed requests (429, 5xx, 529, dropped connections); the SDK's own retries are off. */
  readonly retry?: RetryPolicy;
  /**
   * How each step of a turn runs (loop-steps.ts): in this process by default; a durable engine journals them (the
   * Restate session object passes its own).
   */
  readonly steps?: LoopSteps;
  /** `false`: no transcript is written (the Agent SDK's `persistSession: false`; a durable session keeps its own). */
  readonly persistSession?: boolean;
  /**
   * More user messages after `prompt`, in one session (the Agent SDK's streaming input): each starts a user turn of
   * its own — an `init` event before it, a `result` after it. One that arrives while a turn is running tools is handed
   * to the model with the next tool results (queued, as Claude Code does), not held for a turn of its own.
   */
  readonly input?: AsyncIterable<MessageParam>;
  /** Each raw Messages API stream event as a `stream_event` event (the Agent SDK's `includePartialMessages`). */
  readonly streamEvents?: boolean;
  /** Ends the turn with `max_budget` once the session's cost reaches this many dollars (checked after each model step). */
  readonly maxBudgetUsd?: number;
  /**
   * Models to switch to, in order (comma-separated), when a request fails for good because the model is overloaded
   * or unavailable; each user turn starts on the primary model again.
   */
  readonly fallbackModel?: string;
  /** Values a program changes while the session runs (the Agent SDK's `setModel`, `setMaxThinkingTokens`, `interrupt`). */
  readonly live?: QueryLive;
  /**
   * Structured output (the Agent SDK's `outputFormat`): `toolName` is a tool of the runtime whose successful call is
   * the answer — the turn ends there, its typed output becomes `QueryResult.structuredOutput`. A model that ends its
   * turn without calling it is asked once to call it.
   */
  readonly structuredOutput?: { readonly toolName: string };
}

/** What a program may change while a session runs; the loop reads it before each model request and each user turn. */
export interface QueryLive {
  /** The model of the next request (undefined: the session's). */
  model?(): string | undefined;
  /** The thinking configuration of the next request (undefined: the session's; `null`: none). */
  thinking?(): Anthropic.Messages.ThinkingConfigParam | null | undefined;
  /** A signal for the user turn about to start: aborting it ends that turn as `aborted`, and the session goes on. */
  turnSignal?(): AbortSignal | undefined;
  /**
   * Read as the loop ends: SessionEnd's `reason` (default `other`, `error` after an error), or `false` when the
   * conversation goes on in another loop of the same session (a compaction): then no SessionEnd.
   */
  sessionEnd?(): 'clear' | 'prompt_input_exit' | 'other' | false | undefined;
}

/** Per model, what a session's requests used and cost (the Agent SDK's `modelUsage`). */
export interface ModelUsageTotals {
  readonly usage: Usage;
  readonly costUsd: number;
  /** Requests that got an answer. */
  readonly requests: number;
}

/** A Messages API failure that ended a turn, as the API reported it. */
export interface ApiFailure {
  readonly status?: number;
  readonly type?: string;
  readonly message: string;
}

/** What a sub-agent did, as its parent's loop reports it (`subagent` events). */
export type SubagentLoopEvent =
  | { readonly phase: 'start'; readonly prompt: string; readonly isAsync: boolean; readonly depth: number }
  | { readonly phase: 'event'; readonly event: QueryEvent }
  | { readonly phase: 'end'; readonly result: QueryResult; readonly toolUses: number; readonly durationMs: number };

/** A command or http hook as it starts and answers (in-process callbacks are not reported). */
export type HookLifecycleEvent = HookRunNotice;

/** What `query()` yields as the conversation goes: deltas, tool calls and their results, turns, retries, the result. */
export type QueryEvent =
  | {
      readonly type: 'init';
      readonly sessionId: string;
      readonly model: string;
      readonly tools: readonly string[];
      readonly cwd: string;
      /** Custom slash commands and skills a person can type (`/name`), by name. */
      readonly slashCommands: readonly string[];
      /** Skills (`.claude/skills/<name>/SKILL.md`), by name. */
      readonly skills: readonly string[];
    }
  | { readonly type: 'text_delta'; readonly text: string }
  | { readonly type: 'thinking_delta'; readonly thinking: string }
  | { readonly type: 'tool_use'; readonly block: ToolUseBlock }
  | { readonly type: 'tool_progress'; readonly progress: ToolProgress }
  | { readonly type: 'tool_result'; readonly outcome: ToolUseOutcome }
  | {
      readonly type: 'assistant';
      readonly message: AssistantMessage;
      readonly usage: Usage;
      readonly stopReason: string | null;
      /** What this turn cost (dollars, by model family; 0 for a model outside the price table). */
      readonly costUsd?: number;
    }
  | {
      readonly type: 'user';
      readonly message: MessageParam;
      /**
       * Why the loop added it: the user turn's prompt, a turn's tool results, the messages a tool's `newMessages` carry,
       * a Stop hook's feedback, or the request to call the structured-output tool.
       */
      readonly origin?: 'prompt' | 'tool_results' | 'attachment' | 'stop_hook' | 'structured_output';
    }
  | {
      readonly type: 'retry';
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: string;
      /** The HTTP status (absent: the connection failed) and the API's error type. */
      readonly status?: number;
      readonly errorType?: string;
      readonly maxRetries?: number;
    }
  /** A model request is about to be sent. */
  | { readonly type: 'requesting'; readonly model: string }
  /** One raw Messages API stream event (only with `QueryOptions.streamEvents`). */
  | { readonly type: 'stream_event'; readonly event: Anthropic.Messages.RawMessageStreamEvent; readonly messageId?: string }
  /**
   * One content block of the response, complete, at its `content_block_stop` (request form), with the response's id,
   * model and the usage known so far: what the Agent SDK sends as one assistant message per block.
   */
  | {
      readonly type: 'assistant_block';
      readonly block: Anthropic.Messages.ContentBlockParam;
      readonly messageId: string;
      readonly model: string;
      readonly usage: Usage;
      readonly requestId?: string;
    }
  /** A sub-agent started by an Agent call of this loop (`parentToolUseId`) started, did something, or ended. */
  | {
      readonly type: 'subagent';
      readonly parentToolUseId: string;
      readonly agentId: string;
      readonly agentType: string;
      readonly description: string;
      readonly update: SubagentLoopEvent;
    }
  /** A command or http hook started or answered. */
  | { readonly type: 'hook'; readonly hook: HookLifecycleEvent }
  /** The model was switched to a fallback after the primary failed for good. */
  | { readonly type: 'model_fallback'; readonly from: string; readonly to: string; readonly error: string }
  | { readonly type: 'result'; readonly result: QueryResult };

/** How a `query()` ended: the stop reason, turns, usage and cost, the last text and the whole conversation. */
export interface QueryResult {
  readonly sessionId: string;
  /** `blocked`: a hook refused the prompt or stopped the loop (`error` says which and why). */
  readonly stopReason: 'end_turn' | 'max_turns' | 'max_tokens' | 'refusal' | 'aborted' | 'error' | 'stop_sequence' | 'pause_turn' | 'blocked' | 'max_budget';
  readonly isError: boolean;
  readonly turns: number;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly durationMs: number;
  /** The last assistant text. */
  readonly text: string;
  readonly messages: readonly MessageParam[];
  readonly error?: string;
  /** Wall time of this turn's model requests, retries included. */
  readonly apiDurationMs?: number;
  /** Per model: usage and cost of the session so far (every turn of it, its sub-agents' requests included). */
  readonly modelUsage?: Readonly<Record<string, ModelUsageTotals>>;
  /** The answer of the structured-output tool (`QueryOptions.structuredOutput`), when it was called successfully. */
  readonly structuredOutput?: unknown;
  /** The API's stop reason of this turn's last response (`null` when none came). */
  readonly apiStopReason?: string | null;
  /** The request failure that ended the turn (`stopReason: 'error'`), as the API reported it. */
  readonly apiFailure?: ApiFailure;
  /** Dollars of the whole session so far (`costUsd` is this user turn's). */
  readonly totalCostUsd?: number;
}
