/**
 * `toolgate/agent-sdk`: the Claude Agent SDK's API, in this process. Change the import line of a program written for
 * `@anthropic-ai/claude-agent-sdk` to this entry and it runs unchanged — the same options, the same messages in the
 * same order — on toolgate's runtime and loop, with no Claude Code process (docs/agent-sdk.md says what differs).
 */
export { query } from './query.js';
export type { Query, SlashCommand, ModelInfo, AgentInfo, McpServerStatus, RewindFilesResult } from './query.js';
export { tool, createSdkMcpServer } from './mcp.js';
export type { SdkMcpToolDefinition, CreateSdkMcpServerOptions, AnyZodRawShape, InferShape } from './mcp.js';
export type { SessionStore, SessionStoreEntry, SessionStoreFlush, SessionKey } from './session-store.js';
export { listSessions, getSessionMessages, getSessionInfo, forkSession, renameSession, tagSession, deleteSession } from './sessions.js';
export type { SDKSessionInfo, SessionMessage, ListSessionsOptions, GetSessionMessagesOptions, ForkSessionOptions, SessionLookupOptions } from './sessions.js';
export { AbortError } from './errors.js';
export { AgentSdkOptionError } from './session-options.js';
export type {
  Options,
  QueryParams,
  CanUseTool,
  PermissionResult,
  PermissionUpdate,
  PermissionUpdateDestination,
  PermissionBehavior,
  PermissionRuleValue,
  AgentDefinition,
  McpServerConfig,
  McpStdioServerConfig,
  McpSSEServerConfig,
  McpHttpServerConfig,
  McpSdkServerConfigWithInstance,
  OutputFormat,
  JsonSchemaOutputFormat,
  SettingSource,
  ThinkingConfig,
  EffortLevel,
  SandboxSettings,
} from './options.js';
export type {
  SDKMessage,
  SDKAssistantMessage,
  SDKUserMessage,
  SDKUserMessageReplay,
  SDKResultMessage,
  SDKResultSuccess,
  SDKResultError,
  SDKSystemMessage,
  SDKPartialAssistantMessage,
  SDKStatusMessage,
  SDKAPIRetryMessage,
  SDKPermissionDeniedMessage,
  SDKPermissionDenial,
  SDKHookStartedMessage,
  SDKHookResponseMessage,
  SDKToolProgressMessage,
  SDKTaskStartedMessage,
  SDKTaskProgressMessage,
  SDKTaskUpdatedMessage,
  SDKTaskNotificationMessage,
  SDKBackgroundTasksChangedMessage,
  SDKAssistantMessageError,
  PermissionMode,
  ModelUsage,
  NonNullableUsage,
  TerminalReason,
  UUID,
} from './messages.js';
export type {
  HookEvent,
  HookInput,
  HookCallback,
  HookCallbackMatcher,
  HookJSONOutput,
  SyncHookJSONOutput,
  AsyncHookJSONOutput,
  HookPermissionDecision,
  BaseHookInput,
  PreToolUseHookInput,
  PostToolUseHookInput,
  PostToolUseFailureHookInput,
  PermissionRequestHookInput,
  PermissionDeniedHookInput,
  UserPromptSubmitHookInput,
  SessionStartHookInput,
  SessionEndHookInput,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  PreCompactHookInput,
  NotificationHookInput,
} from './hook-types.js';
