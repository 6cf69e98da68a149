/**
 * The messages a session yields, in the Claude Agent SDK's shapes (`SDKMessage` and its members): the same `type` and
 * `subtype` values, the same field names and nesting, so that a program written against the Agent SDK reads them
 * unchanged. Only the kinds toolgate produces are declared here; docs/agent-sdk.md lists the ones left out. Written
 * from the published shapes, not copied; the one writer of these objects is `encoder.ts`.
 */
import type { BetaMessage, BetaRawMessageStreamEvent, BetaUsage } from '@anthropic-ai/sdk/resources/beta/messages/messages.js';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages.js';

/** A message id: a random UUID. */
export type UUID = `${string}-${string}-${string}-${string}-${string}`;

/** Permission modes, as the Agent SDK names them. */
export type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk' | 'auto';

/** The API's usage with every field present (`null`s as zeros): what a `result` message carries. */
export type NonNullableUsage = { [K in keyof BetaUsage]: K extends 'fallback_credit' ? BetaUsage[K] : NonNullable<BetaUsage[K]> };

/** Per model: tokens and dollars of a session's requests. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
}

/** A tool call that was refused, as a result lists it. */
export interface SDKPermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/** Why the loop ended a turn. */
export type TerminalReason =
  | 'completed'
  | 'max_turns'
  | 'budget_exhausted'
  | 'aborted_streaming'
  | 'aborted_tools'
  | 'api_error'
  | 'model_error'
  | 'hook_stopped'
  | 'stop_hook_prevented'
  | 'prompt_too_long'
  | 'structured_output_retry_exhausted';

/** Error categories of an API failure (`SDKAssistantMessage.error`, `SDKAPIRetryMessage.error`). */
export type SDKAssistantMessageError =
  | 'authentication_failed'
  | 'billing_error'
  | 'rate_limit'
  | 'overloaded'
  | 'invalid_request'
  | 'model_not_found'
  | 'server_error'
  | 'unknown'
  | 'max_output_tokens';

/** The session's facts, before each user turn. */
export interface SDKSystemMessage {
  type: 'system';
  subtype: 'init';
  agents?: string[];
  apiKeySource: 'ANTHROPIC_API_KEY' | 'apiKeyHelper' | '/login managed key' | 'none';
  betas?: string[];
  claude_code_version: string;
  cwd: string;
  /** The directory the session was started in. */
  original_cwd?: string;
  /** Working directories beyond the cwd. */
  additional_directories?: string[];
  tools: string[];
  mcp_servers: { name: string; status: string; source?: string }[];
  model: string;
  permissionMode: PermissionMode;
  slash_commands: string[];
  output_style: string;
  skills: string[];
  plugins: { name: string; path: string }[];
  /** Claude Code's control-protocol capabilities this session supports (toolgate: none). */
  capabilities?: string[];
  analytics_disabled?: boolean;
  product_feedback_disabled?: boolean;
  served_by_anthropic?: boolean;
  sandbox_enabled?: boolean;
  fast_mode_state?: 'off' | 'cooldown' | 'on';
  fast_mode_disabled_reason?: string;
  per_turn_effort_active?: boolean;
  ultrathink_available?: boolean;
  ultrathink_typed_raises?: boolean;
  view_mode?: 'focus' | 'default';
  uuid: UUID;
  session_id: string;
}

/** One content block of a model response (streamed: one message per block, all with the response's `message.id`). */
export interface SDKAssistantMessage {
  type: 'assistant';
  message: BetaMessage;
  parent_tool_use_id: string | null;
  error?: SDKAssistantMessageError;
  uuid: UUID;
  session_id: string;
  request_id?: string;
  /** When this block finished (ISO); for display only. */
  timestamp?: string;
  /** The sub-agent that wrote it (its messages only). */
  agent_id?: string;
  subagent_type?: string;
  task_description?: string;
}

/** A user-role message: a prompt a program sends in, or tool results the session adds. */
export interface SDKUserMessage {
  type: 'user';
  message: MessageParam;
  parent_tool_use_id: string | null;
  isSynthetic?: boolean;
  /** The tool's typed output (not the text the model read), redacted like the result. */
  tool_use_result?: unknown;
  /** Per tool result: the permission decision behind it (`{ id, non_execution_kind?, permission_decision }`). */
  tool_result_meta?: Record<string, unknown>[];
  priority?: 'now' | 'next' | 'later';
  shouldQuery?: boolean;
  uuid?: UUID;
  session_id?: string;
  timestamp?: string;
  agent_id?: string;
  subagent_type?: string;
  task_description?: string;
}

/** A user message sent in, echoed back (`--replay-user-messages`). */
export interface SDKUserMessageReplay extends Omit<SDKUserMessage, 'uuid' | 'session_id'> {
  uuid: UUID;
  session_id: string;
  isReplay: true;
}

interface ResultBase {
  type: 'result';
  duration_ms: number;
  duration_api_ms: number;
  is_error: boolean;
  num_turns: number;
  stop_reason: string | null;
  total_cost_usd: number;
  usage: NonNullableUsage;
  modelUsage: Record<string, ModelUsage>;
  permission_denials: SDKPermissionDenial[];
  terminal_reason?: TerminalReason;
  /** From the turn's start (the session's, for the first turn): its first request sent, first event, frame, token. */
  time_to_request_ms?: number;
  ttft_stream_ms?: number;
  first_content_frame_ms?: number;
  ttft_ms?: number;
  fast_mode_state?: 'off' | 'cooldown' | 'on';
  fast_mode_disabled_reason?: string;
  subagent_stats?: Record<string, unknown>;
  safety_stops?: number;
  queued_turn_count?: number;
  /** This result's number in the run, from 0. */
  result_index?: number;
  /** The API messages begun in this turn (with partial messages). */
  begun_message_ids?: string[];
  model_usage_since_last_result?: Record<string, ModelUsage>;
  uuid: UUID;
  session_id: string;
}

export interface SDKResultSuccess extends ResultBase {
  subtype: 'success';
  result: string;
  structured_output?: unknown;
  api_error_status?: number | null;
}

export interface SDKResultError extends ResultBase {
  subtype: 'error_during_execution' | 'error_max_turns' | 'error_max_budget_usd' | 'error_max_structured_output_retries';
  errors: string[];
}

/** The end of a user turn: exactly one per turn, after its other messages. */
export type SDKResultMessage = SDKResultSuccess | SDKResultError;

/** One raw stream event of the response being written (`includePartialMessages`). */
export interface SDKPartialAssistantMessage {
  type: 'stream_event';
  event: BetaRawMessageStreamEvent;
  parent_tool_use_id: string | null;
  /** The API message these events belong to (Claude Code prints it on every partial line). */
  api_message_id?: string;
  /** `message_start` only: from sending the request to this event, and how thinking is shown (`updates`). */
  ttft_ms?: number;
  thinking_display?: string;
  uuid: UUID;
  session_id: string;
}

/** `requesting` before each model request (`includePartialMessages`). */
export interface SDKStatusMessage {
  type: 'system';
  subtype: 'status';
  status: 'compacting' | 'requesting' | null;
  permissionMode?: PermissionMode;
  uuid: UUID;
  session_id: string;
}

/** A request failed and will be sent again after `retry_delay_ms`. */
export interface SDKAPIRetryMessage {
  type: 'system';
  subtype: 'api_retry';
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error_status: number | null;
  error: SDKAssistantMessageError;
  uuid: UUID;
  session_id: string;
}

/** A call refused without anyone being asked (a rule, the mode, a headless session). */
export interface SDKPermissionDeniedMessage {
  type: 'system';
  subtype: 'permission_denied';
  tool_name: string;
  tool_use_id: string;
  agent_id?: string;
  decision_reason_type?: string;
  decision_reason?: string;
  message: string;
  uuid: UUID;
  session_id: string;
}

/** A command hook started (`includeHookEvents`). */
export interface SDKHookStartedMessage {
  type: 'system';
  subtype: 'hook_started';
  hook_id: string;
  hook_name: string;
  hook_event: string;
  uuid: UUID;
  session_id: string;
}

/** A command hook answered (`includeHookEvents`). */
export interface SDKHookResponseMessage {
  type: 'system';
  subtype: 'hook_response';
  hook_id: string;
  hook_name: string;
  hook_event: string;
  output: string;
  stdout: string;
  stderr: string;
  exit_code?: number;
  outcome: 'success' | 'error' | 'cancelled';
  uuid: UUID;
  session_id: string;
}

/** A tool call still running (elapsed time). */
export interface SDKToolProgressMessage {
  type: 'tool_progress';
  tool_use_id: string;
  tool_name: string;
  parent_tool_use_id: string | null;
  elapsed_time_seconds: number;
  task_id?: string;
  uuid: UUID;
  session_id: string;
}

/** A sub-agent (a task) started. */
export interface SDKTaskStartedMessage {
  type: 'system';
  subtype: 'task_started';
  task_id: string;
  tool_use_id?: string;
  description: string;
  subagent_type?: string;
  is_backgrounded?: boolean;
  spawn_depth?: number;
  task_type?: string;
  prompt?: string;
  uuid: UUID;
  session_id: string;
}

/** A sub-agent's progress: tokens, tool calls, time. */
export interface SDKTaskProgressMessage {
  type: 'system';
  subtype: 'task_progress';
  task_id: string;
  tool_use_id?: string;
  description: string;
  subagent_type?: string;
  usage: { total_tokens: number; tool_uses: number; duration_ms: number };
  last_tool_name?: string;
  uuid: UUID;
  session_id: string;
}

/** A sub-agent's state changed (completed, failed). */
export interface SDKTaskUpdatedMessage {
  type: 'system';
  subtype: 'task_updated';
  task_id: string;
  patch: { status?: 'pending' | 'running' | 'completed' | 'failed' | 'killed' | 'paused'; end_time?: number; error?: string };
  uuid: UUID;
  session_id: string;
}

/** A sub-agent finished: its status, final words and totals. */
export interface SDKTaskNotificationMessage {
  type: 'system';
  subtype: 'task_notification';
  task_id: string;
  tool_use_id?: string;
  status: 'completed' | 'failed' | 'stopped';
  output_file: string;
  summary: string;
  usage?: { total_tokens: number; tool_uses: number; duration_ms: number };
  uuid: UUID;
  session_id: string;
}

/** The background tasks running now (a command started with run_in_background), after one started or ended. */
export interface SDKBackgroundTasksChangedMessage {
  type: 'system';
  subtype: 'background_tasks_changed';
  tasks: { task_id: string; task_type: string; description: string }[];
  uuid: UUID;
  session_id: string;
}

/** Every message a session yields. */
export type SDKMessage =
  | SDKAssistantMessage
  | SDKUserMessage
  | SDKUserMessageReplay
  | SDKResultMessage
  | SDKSystemMessage
  | SDKPartialAssistantMessage
  | SDKStatusMessage
  | SDKAPIRetryMessage
  | SDKPermissionDeniedMessage
  | SDKHookStartedMessage
  | SDKHookResponseMessage
  | SDKToolProgressMessage
  | SDKTaskStartedMessage
  | SDKTaskProgressMessage
  | SDKTaskUpdatedMessage
  | SDKTaskNotificationMessage
  | SDKBackgroundTasksChangedMessage;
