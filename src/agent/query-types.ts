/**
 * The agent loop's public shapes: what a program changes while it runs (`QueryLive`), what it yields as the
 * conversation goes (`QueryEvent`) and how it ends (`QueryResult`, with its `Usage` and cost). The runtime's own shapes
 * are in types.ts, which re-exports these: import them from there, the agent layer's one contract module. What
 * `query()` takes (`QueryOptions`) is in query-options.ts: it names the runtime, so this module (which the runtime's
 * shapes and the loop's steps import) does not — no import circle.
 *
 * The same contract as types.ts: the CLI, the Agent SDK face, the terminal UI and the distributed backend build on
 * these; change them additively.
 */
import type Anthropic from '@anthropic-ai/sdk';
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
  /** `uuid`: the id the loop gave it, kept with the message it joins in the transcript (a resume may name it). */
  | { readonly type: 'tool_result'; readonly outcome: ToolUseOutcome; readonly uuid?: string }
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
  /** A model request is about to be sent (`at`: when, epoch milliseconds). */
  | { readonly type: 'requesting'; readonly model: string; readonly at?: number }
  /**
   * One raw Messages API stream event (only with `QueryOptions.streamEvents`); a `message_start` carries the time from
   * sending the request to that first event (`ttftMs`).
   */
  | { readonly type: 'stream_event'; readonly event: Anthropic.Messages.RawMessageStreamEvent; readonly messageId?: string; readonly ttftMs?: number }
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
      /** The id the loop gave it, kept with its message in the transcript (a resume may name it). */
      readonly uuid?: string;
      /** When the response's request was sent and its first event, content frame and token came (epoch ms). */
      readonly timing?: ResponseTiming;
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

/** When a model request was sent and its response's first frames came, in epoch milliseconds. */
export interface ResponseTiming {
  readonly sentAt: number;
  readonly firstEventAt?: number;
  readonly firstContentAt?: number;
  readonly firstTokenAt?: number;
}

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
  /**
   * A hook's `continue: false` during a call ended the turn (its stop reason): a stop the hook asked for, not a
   * failure — the result is not an error, as in Claude Code (the call it came with was not made: docs/agent-sdk.md).
   */
  readonly hookStopped?: string;
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
