// The library entry: a curated list, bottom to top. What is not here is internal and may change without notice.
// Add a public name by name (never `export *`): every export is a promise to the people who import it.
import { loadBashParser as loadBashParserAtImport } from './permissions/bash/parser.js';

// — the tool contract (src/tool) —
export { buildTool, passthroughInputSchema, ToolDefinitionError } from './tool/build-tool.js';
export type { DefaultableToolKeys, JSONSchemaToolDef, PassthroughInputSchema, ToolDef } from './tool/build-tool.js';
export type {
  AnyObject,
  AnyTool,
  APIToolDefinition,
  AssistantMessage,
  CanUseToolFn,
  McpInfo,
  MessageParam,
  PermissionTraits,
  PromptOptions,
  Tool,
  ToolCallProgress,
  ToolInputJSONSchema,
  ToolProgress,
  ToolProgressData,
  ToolRenderOptions,
  ToolResult,
  ToolResultBlockParam,
  ToolUseBlock,
  ToolUseBlockParam,
  ToolViews,
  Tools,
  ValidationResult,
} from './tool/tool.js';
export {
  createChildAbortController,
  createSubagentContext,
  createToolUseContext,
} from './tool/tool-use-context.js';
export type {
  AppState,
  ContentReplacementState,
  CreateToolUseContextInput,
  DenialTrackingState,
  PermissionPromptHandler,
  PermissionRequest,
  SubagentOverrides,
  ToolServices,
  ToolSettings,
  ToolUseContext,
  ToolUseContextOptions,
  ToolUseUICallbacks,
} from './tool/tool-use-context.js';
export { PERMISSION_MODES, PERMISSION_RULE_SOURCES, getEmptyToolPermissionContext } from './tool/permission-types.js';
export type {
  AdditionalWorkingDirectory,
  DecisionLayer,
  DecisionTrace,
  PermissionAllowDecision,
  PermissionAskDecision,
  PermissionBehavior,
  PermissionDecision,
  PermissionDenyDecision,
  PermissionMode,
  PermissionPassthrough,
  PermissionResult,
  PermissionRule,
  PermissionRuleSource,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  ToolPermissionContext,
} from './tool/permission-types.js';
export {
  errorToolResult,
  imageBlock,
  imageToolResult,
  textBlock,
  textToolResult,
  toolResultText,
} from './tool/tool-result.js';
export type { ImageMediaType, ToolResultContentBlock } from './tool/tool-result.js';
export {
  getToolInputJSONSchema,
  INPUT_EXAMPLES_BETA,
  isDeferredTool,
  modelSupportsStrictTools,
  strictInputSchema,
  toolToAPI,
  toolsToAPI,
  zodToInputJSONSchema,
} from './tool/api-format.js';
export type { ToolToAPIOptions } from './tool/api-format.js';
export { strictSchemaProblems, toStrictSchema } from './tool/strict-schema.js';
export { deepFreeze } from './tool/deep-immutable.js';
export type { DeepImmutable } from './tool/deep-immutable.js';
export { FileStateCache } from './tool/file-state-cache.js';
export { NotificationQueue } from './tool/notification-queue.js';

// — the permission engine (src/permissions) —
export { createCanUseTool } from './permissions/can-use-tool.js';
export type { CanUseToolOptions, ClassifierRequest, PermissionClassifier } from './permissions/can-use-tool.js';
export { hasPermissionsToUseTool, headlessDenyMessage, resolvePermission } from './permissions/resolve.js';
export type { ResolveOptions } from './permissions/resolve.js';
export { describeLayer, explainDecision } from './permissions/explain.js';
export { suggestRules } from './permissions/suggest.js';
export {
  addRules,
  createPermissionContext,
  enterPlanMode,
  exitPlanMode,
  parseRules,
  updatePermissionContext,
} from './permissions/permission-context.js';
export type { PermissionContextInit } from './permissions/permission-context.js';
export {
  canonicalToolName,
  formatPermissionRule,
  parsePermissionRule,
  PermissionRuleParseError,
  tryParsePermissionRule,
  validatePermissionRule,
} from './permissions/permission-rule.js';
export type { ParseRuleResult } from './permissions/permission-rule.js';
export { checkPathPermission, expandPath, isInsideDir } from './permissions/paths.js';
export { isProtectedPath } from './permissions/protected-paths.js';
export { filterToolsByDenyRules } from './permissions/tool-rule-match.js';
export { applyPermissionUpdates, parsePermissionUpdates } from './permissions/permission-updates.js';
export { isRuleExpired } from './permissions/rule-expiry.js';
export { analyzeBashCommand } from './permissions/bash/analyze.js';
export { isBashParserLoaded, loadBashParser } from './permissions/bash/parser.js';
export { checkBashPermission } from './permissions/bash/check-permission.js';
export { isReadOnlyCommand } from './permissions/bash/read-only.js';
export type { BashAnalysis, SimpleCommand } from './permissions/bash/types.js';

// — hooks (src/hooks) —
export { createHookRunner } from './hooks/hook-runner.js';
export { parseHooksSettings } from './hooks/parse-hooks-settings.js';
export { describeHooks } from './hooks/describe-hooks.js';
export type { ResolvedHook } from './hooks/describe-hooks.js';
export { CLAUDE_CODE_HOOK_EVENTS, HOOK_EVENT_NAMES } from './hooks/types.js';
export { createLoopHooks, LOOP_HOOK_EVENT_NAMES } from './hooks/loop-hooks.js';
export type { LoopHookCallback, LoopHookEvent, LoopHookEventName, LoopHookOutcome, LoopHooks } from './hooks/loop-hooks.js';
export type {
  ClaudeCodeHookEventName,
  CommandHookHandler,
  HookCallback,
  HookEventName,
  HookHandler,
  HookMatcherGroup,
  HookRunner,
  HookRunnerOptions,
  HookToolEvent,
  HooksConfig,
  HooksSettingsSource,
  HttpHookHandler,
  ParsedHooksSettings,
} from './hooks/types.js';

// — execution (src/execution) —
export { checkPermissionsAndCallTool, runToolUse } from './execution/pipeline.js';
export type { PipelineOptions } from './execution/pipeline.js';
export { StreamingToolExecutor } from './execution/streaming-tool-executor.js';
export { ToolUseBlockError } from './execution/block-snapshot.js';
export type { ExecutorUpdate, StreamingToolExecutorOptions, ToolStatus } from './execution/streaming-tool-executor.js';
export { partitionToolCalls, runTools } from './execution/orchestration.js';
export { buildRedactor, DEFAULT_SECRET_ENV_PATTERNS, redactorFor, refreshEnvironmentSecrets, registerSecretValues, SecretRedactor } from './execution/redaction.js';
export type { RedactionSettings, SecretEntry } from './execution/redaction.js';
export type { ToolCallBatch } from './execution/orchestration.js';
export { localToolCallBackend } from './execution/backend.js';
export type { ToolCallBackend, ToolCallRequest } from './execution/backend.js';
export type { ToolUseOutcome, ToolUseStage } from './execution/outcome.js';
export { DEFAULT_CONVERSATION_BUDGET_CHARS, ToolResultBudget } from './execution/budget.js';
export type { ToolResultBudgetOptions, ToolResultRecord } from './execution/budget.js';
export { TOOL_ERROR_CLASSES, classifyToolError } from './execution/errors.js';
export type { ToolEvent, ToolEventName, ToolEventSink } from './execution/errors.js';
export { USER_INTERRUPT } from './execution/abort-reasons.js';
export { toolResultsMessage } from './execution/messages.js';

// — built-in tools (src/tools), their settings, the task registry —
export { AgentTool, agentDefinitionsFor, MAX_SUBAGENT_DEPTH, reloadAgentDefinitions } from './tools/agent/index.js';
export type { AgentCallSummary, AgentOutput, AgentProgress, SubagentEvent, SubagentRequest, SubagentResult, SubagentRunner } from './tools/agent/index.js';
export { BUILT_IN_AGENTS, loadAgentDefinitions, parseAgentMarkdown } from './tools/agent/agent-definitions.js';
export type { AgentDefinition } from './tools/agent/agent-definitions.js';
export type { ToolQuestionAnswer, ToolQuestionRequest } from './tools/shared/questions.js';
export { AskUserQuestionTool } from './tools/ask-user-question/index.js';
export { BashTool } from './tools/bash/index.js';
export type { BashToolSettings, SandboxSettings } from './tools/bash/bash-settings.js';
export { createTaskRegistry, getTaskRegistry, TaskRegistry } from './tools/bash/task-registry.js';
export type { TaskInfo, TaskShutdownReport, TaskStatus } from './tools/bash/task-registry.js';
// For a program that handles SIGINT/SIGTERM itself: ends every command's process group (and what it detached) now.
export { killAllShellProcessesSync } from './tools/bash/process-group.js';
export { EditTool } from './tools/edit/index.js';
export { GlobTool } from './tools/glob/index.js';
export { GrepTool } from './tools/grep/index.js';
export { ListMcpResourcesTool } from './tools/list-mcp-resources/index.js';
export { NotebookEditTool } from './tools/notebook-edit/index.js';
export { EnterPlanModeTool, ExitPlanModeTool } from './tools/plan-mode/index.js';
export { ReadMcpResourceTool } from './tools/read-mcp-resource/index.js';
export type { McpResourceService } from './tools/shared/mcp-resource-service.js';
export { ReadTool } from './tools/read/index.js';
export { TaskOutputTool } from './tools/task-output/index.js';
export { TaskStopTool } from './tools/task-stop/index.js';
export { getTodos, TodoWriteTool } from './tools/todo-write/index.js';
export type { TodoItem } from './tools/todo-write/index.js';
export { deferredToolsAnnouncement, ToolSearchTool } from './tools/tool-search/index.js';
export type { ToolSearchOutput } from './tools/tool-search/index.js';
export { clearWebFetchCache, WebFetchTool } from './tools/web-fetch/index.js';
export { WebSearchTool } from './tools/web-search/index.js';
export { WriteTool } from './tools/write/index.js';

// — the registry (src/registry) —
export { BASE_TOOL_ENTRIES, getAllBaseTools } from './registry/base-tools.js';
export type { BaseToolEntry, GetAllBaseToolsOptions } from './registry/base-tools.js';
export { findToolByName, toolMatchesName } from './tool/find-tool.js';
export { assembleToolPool, getTools } from './registry/tool-pool.js';
export type { ToolPoolOptions } from './registry/tool-pool.js';
export { applyToolDeferral, parseToolSearchMode } from './registry/tool-search-mode.js';
export type { DeferralOptions, ToolSearchMode } from './registry/tool-search-mode.js';

// — settings (src/settings) —
export { loadSettings } from './settings/load-settings.js';
export type { LoadedSettings, LoadSettingsOptions, SettingSourceName } from './settings/load-settings.js';
export type { SettingsError } from './settings/read-settings-file.js';
export { createGrantWriter, createRulePersister, listGrants, revokeGrant, writeGrants } from './settings/grants.js';
export type { GrantDestination, GrantEntry, GrantLocations, WriteGrantsOptions } from './settings/grants.js';

// — the runtime (src/agent) —
export { createToolRuntime, RUNTIME_DISPOSED } from './agent/create-tool-runtime.js';
export { DEFAULT_MAX_TOKENS, DEFAULT_MODEL, nextRequest, query } from './agent/query.js';
export type { NextRequestOptions } from './agent/query.js';
export { modelStep } from './agent/model-step.js';
export type { ModelRequest, ModelStepOptions, ModelStepResult } from './agent/model-step.js';
export { merge as mergeToolResults, startToolStep } from './agent/tool-step.js';
export type { ToolStep, ToolStepResult } from './agent/tool-step.js';
export { classifyApiError, retryDelayMs } from './agent/retry.js';
export type { ClassifiedError, RetryPolicy } from './agent/retry.js';
export { addUsage, costOf, emptyUsage, priceOf } from './agent/pricing.js';
export { buildSystemPrompt, isGitRepository } from './agent/system-prompt.js';
export type { SystemPromptOptions } from './agent/system-prompt.js';
export { latestSessionFor, readTranscript, TRANSCRIPT_FILE, transcriptPath, TranscriptWriter } from './agent/transcript.js';
export type { TranscriptEntry } from './agent/transcript.js';
export { createSubagentRunner } from './agent/subagent-runner.js';
export type { QueryFn, SubagentRunnerDeps } from './agent/subagent-runner.js';
export { SettingsLoadError } from './agent/runtime-settings.js';
export { defaultSessionDir, stateDirectory } from './agent/session-dir.js';
export type {
  ChildRuntimeOptions,
  PermissionAnswer,
  PersistRulesRequest,
  QueryEvent,
  QueryOptions,
  QueryResult,
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
  Usage,
} from './agent/types.js';

// — MCP (src/mcp) —
export {
  buildMcpToolName,
  createMcpTool,
  createPermissionPromptTool,
  loadMcpConfig,
  mapMcpToolOutput,
  McpClientManager,
  McpConnection,
  McpConnectionError,
  normalizeNameForMcp,
  parseMcpServerConfig,
  serveHttp,
  serveStdio,
  ToolgateMcpServer,
} from './mcp/index.js';
export type { LoadedMcpConfig, LoadMcpConfigOptions, McpServerConfig, McpServerStatus, ScopedMcpServer } from './mcp/index.js';

// — durable tool calls (src/distributed; the Restate worker side and the dev server load on demand) —
export {
  createDurableToolCallBackend,
  createRestateToolEngine,
  executeRemoteToolCall,
  isRetrySafe,
  isWorkspaceTool,
  RemoteCallInterruptedError,
  RemoteToolError,
  startProgressReceiver,
} from './distributed/index.js';
export type { DurableToolEngine, ProgressReceiver, RemoteToolCall, RemoteToolResult, RestateToolEngineOptions } from './distributed/index.js';
export { detectSandbox } from './tools/bash/sandbox.js';
export type { SandboxAvailability } from './tools/bash/sandbox.js';
export { shutdownSandboxRuntime } from './tools/bash/sandbox-runtime.js';
// The terminal UI (Ink and React load only when a session starts on a terminal).
export { startInteractiveSession, type InteractiveOptions } from './ui/start-session.js';
export { Session, HELP_TEXT, type RunQuery, type SessionOptions } from './ui/session.js';
export { SessionStore, type Item, type Dialog, type SessionSnapshot, type BackgroundTask } from './ui/session-store.js';

// The library entry keeps the bash analysis synchronous from the first call, as it always was: the parser is loaded
// here, once, while the package is imported. (The CLI imports modules directly and loads it only when it judges a
// command.)
await loadBashParserAtImport();
