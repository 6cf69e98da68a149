// The library entry (`toolgate`): what a user of the library needs — write tools, run them through a `ToolRuntime`,
// drive the agent loop, decide and explain permissions, read settings, MCP both ways, the durable backend. About a
// hundred names, each documented where it is declared (test/public-api.test.ts holds both to that).
// Building blocks for a program that brings its own loop (the executor, the pipeline, the engine's pieces) are in
// `toolgate/internals` (src/internals.ts), which may change between minor versions; the scripted Messages API server
// is `toolgate/testing`. Add a public name by name (never `export *`): every export is a promise.

// — writing a tool —
export { buildTool, ToolDefinitionError } from './tool/build-tool.js';
export type { ToolDef } from './tool/build-tool.js';
export type { AnyTool, AssistantMessage, PermissionTraits, Tool, ToolProgress, ToolResult, Tools, ValidationResult } from './tool/tool.js';
export type { ToolSettings, ToolUseContext } from './tool/tool-use-context.js';
export { textToolResult, toolResultText } from './tool/tool-result.js';

// — permissions: decide and explain (nothing runs; the same engine the runtime uses) —
export { PERMISSION_MODES } from './tool/permission-types.js';
export type {
  DecisionLayer,
  DecisionTrace,
  PermissionBehavior,
  PermissionDecision,
  PermissionMode,
  PermissionResult,
  PermissionRule,
  PermissionRuleSource,
  ToolPermissionContext,
} from './tool/permission-types.js';
export { resolvePermission } from './permissions/resolve.js';
export type { ResolveOptions } from './permissions/resolve.js';
export { createPermissionContext, parseRules } from './permissions/permission-context.js';
export type { PermissionContextInit } from './permissions/permission-context.js';
export { PermissionRuleParseError } from './permissions/permission-rule.js';
export { explainDecision } from './permissions/explain.js';

// — the runtime: the one way to run tool calls —
export { createToolRuntime } from './agent/create-tool-runtime.js';
export type {
  ChildRuntimeOptions,
  PermissionAnswer,
  RunOptions,
  PersistRulesRequest,
  QuestionAnswer,
  QuestionRequest,
  RunEvent,
  RunInput,
  RunResult,
  RuntimePermissionRequest,
  SettingSource,
  ToolProvider,
  ToolRunHandle,
  ToolRuntime,
  ToolRuntimeOptions,
} from './agent/types.js';
export type { ToolUseOutcome } from './execution/outcome.js';
export { ToolUseBlockError } from './execution/block-snapshot.js';
export { SettingsLoadError } from './agent/runtime-settings.js';
export type { HookCallback } from './hooks/types.js';
export type { TodoItem } from './tools/todo-write/index.js';
export type { ToolCallBackend } from './execution/backend.js';
export type { TelemetryOption } from './agent/telemetry/start.js';

// — auto mode: the classifier that decides what would otherwise ask (ToolRuntimeOptions.classifier) —
export { createAutoModeClassifier } from './agent/auto-classifier.js';
export type { AutoClassifierOptions } from './agent/auto-classifier.js';
export type { ClassifierRequest, ClassifierVerdict, PermissionClassifier } from './permissions/auto-mode.js';

// — skills and custom slash commands (discovered by the runtime from the setting sources it reads) —
export { expandSlashCommand, listSlashCommands, SlashCommandError } from './agent/slash-commands.js';
export type { SlashCommandInfo } from './agent/slash-commands.js';

// — the agent loop —
export { DEFAULT_MAX_TOKENS, DEFAULT_MODEL, query } from './agent/query.js';
export type { QueryEvent, QueryResult, Usage } from './agent/types.js';
export type { QueryOptions } from './agent/query-options.js';
export type { RetryPolicy } from './agent/retry.js';

// — settings, and the built-in tools' settings types —
export { loadSettings } from './settings/load-settings.js';
export type { LoadedSettings, LoadSettingsOptions, SettingsError } from './settings/load-settings.js';
export type { BashToolSettings, SandboxSettings } from './tools/bash/bash-settings.js';
export type { RedactionSettings } from './execution/redaction.js';

// — MCP: configured servers as tools, and the tool pool as a server —
export { loadMcpConfig } from './mcp/load-config.js';
export type { LoadedMcpConfig, LoadMcpConfigOptions } from './mcp/load-config.js';
export type { McpServerConfig } from './mcp/config.js';
export { McpClientManager } from './mcp/manager.js';
export type { McpClientManagerOptions, McpServerStatus } from './mcp/manager.js';
export { McpConnectionError } from './mcp/connection.js';
export { loginMcpServer, McpLoginError } from './mcp/oauth-login.js';
export { McpNeedsLoginError } from './mcp/oauth-provider.js';
export { createPermissionPromptTool } from './mcp/permission-prompt-tool.js';
export { ToolgateMcpServer } from './mcp/server/tool-server.js';
export type { ToolServerOptions } from './mcp/server/tool-server.js';
export { serveHttp, serveStdio } from './mcp/server/serve.js';
export type { HttpServeHandle, HttpServeOptions, StdioServeOptions } from './mcp/server/serve.js';

// — durable tool calls and sessions (src/distributed; the Restate worker side loads on demand: `toolgate worker`) —
export { createDurableToolCallBackend, RemoteCallInterruptedError, RemoteToolError } from './distributed/durable-tool-call-backend.js';
export type { DurableToolCallBackendOptions } from './distributed/durable-tool-call-backend.js';
export { createRestateToolEngine } from './distributed/restate-tool-engine.js';
export type { RestateToolEngineOptions } from './distributed/restate-tool-engine.js';
export type { DurableToolEngine } from './distributed/remote-tool-call.js';
export { startProgressReceiver } from './distributed/progress-channel.js';
export type { ProgressReceiver } from './distributed/progress-channel.js';
export { runDurableSession } from './distributed/session-client.js';
export type { DurableRunOptions } from './distributed/session-client.js';

// — processes and the OS sandbox —
export { killAllShellProcessesSync } from './tools/bash/process-group.js';
export { detectSandbox } from './tools/bash/sandbox.js';
export type { SandboxAvailability } from './tools/bash/sandbox.js';
export { shutdownSandboxRuntime } from './tools/bash/sandbox-runtime.js';

// — the terminal UI (Ink and React load only when a session starts on a terminal) —
export { startInteractiveSession } from './ui/start-session.js';
export type { InteractiveOptions } from './ui/start-session.js';
