/**
 * What `query()` takes (`QueryOptions`): the runtime, the model client, the prompt or conversation, and the loop's
 * limits. Apart from query-types.ts because it names the runtime and the steps: query-types.ts (the events and the
 * result) is imported by the runtime's own shapes (types.ts) and by the steps, and so imports neither.
 */
import type { TranscriptEntry } from './transcript.js';
import type { Effort } from './request.js';
import type Anthropic from '@anthropic-ai/sdk';
import type { LoopSteps } from './loop-steps.js';
import type { QueryLive } from './query-types.js';
import type { RetryPolicy } from './retry.js';
import type { ToolRuntime } from './types.js';
import type { MessageParam } from '../tool/tool.js';

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
  /** Whether the requests to a model carry prompt-cache breakpoints (default: always; `DISABLE_PROMPT_CACHING`). */
  readonly promptCaching?: (model: string) => boolean;
  /** Replaces toolgate's system prompt. */
  readonly systemPrompt?: string;
  readonly appendSystemPrompt?: string;
  /**
   * Extended thinking (`{ type: 'enabled', budget_tokens }` — at least 1,024 and below `maxTokens` —, `adaptive`, or
   * `disabled`). Thinking blocks are kept in the conversation with their signatures, as tool use requires.
   */
  readonly thinking?: Anthropic.Messages.ThinkingConfigParam;
  /** How much effort the model spends (`output_config.effort`, with its beta), as Claude Code sends it. */
  readonly effort?: Effort;
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
  /** Told each entry of the session's transcript once it is written (the Agent SDK's `sessionStore` mirrors them). */
  readonly onTranscriptEntry?: (entry: TranscriptEntry) => void;
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
