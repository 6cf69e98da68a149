// `toolgate/internals`: the building blocks under `createToolRuntime`, for a program that brings its own loop — the
// executor, the one-call pipeline, the tool pool and its API definitions, the permission engine's pieces, the hook
// runner, budgets, redaction, the block snapshot. They MAY CHANGE BETWEEN MINOR VERSIONS: pin a minor version when
// you import them. Everything a user of the library needs is in the root entry (`toolgate`); a name lives in one
// entry only (test/public-api.test.ts). Add a name by name, never `export *`.
//
// The bash parser loads on first need (permissions/analysis-ready.ts): the runtime, the engine's `resolvePermission`
// and the Bash tool wait for it themselves. A program that calls the synchronous analysis here directly
// (`isReadOnlyCommand`, `analyzeBashCommand`, a tool's `isReadOnly`) awaits `loadBashParser()` once first; before
// that every such answer fails closed (not read-only, asks, runs alone).
import './index.js';

// — the contract, beyond writing a tool —
export { passthroughInputSchema } from './tool/build-tool.js';
export type { JSONSchemaToolDef } from './tool/build-tool.js';
export type {
  APIToolDefinition,
  CanUseToolFn,
  McpInfo,
  MessageParam,
  PromptOptions,
  ToolCallProgress,
  ToolInputJSONSchema,
  ToolProgressData,
  ToolRenderOptions,
  ToolResultBlockParam,
  ToolUseBlock,
  ToolUseBlockParam,
  ToolViews,
} from './tool/tool.js';
export { createChildAbortController, createSubagentContext, createToolUseContext } from './tool/tool-use-context.js';
export type {
  AppState,
  CreateToolUseContextInput,
  PermissionPromptHandler,
  PermissionRequest,
  SubagentOverrides,
  ToolServices,
  ToolUseContextOptions,
  ToolUseUICallbacks,
} from './tool/tool-use-context.js';
export { errorToolResult, imageBlock, imageToolResult, textBlock } from './tool/tool-result.js';
export type { ImageMediaType, ToolResultContentBlock } from './tool/tool-result.js';
export { isDeferredTool, toolsToAPI, toolToAPI } from './tool/api-format.js';
export type { ToolToAPIOptions } from './tool/api-format.js';
export { findToolByName } from './tool/find-tool.js';
export { FileStateCache } from './tool/file-state-cache.js';
export { getEmptyToolPermissionContext } from './tool/permission-types.js';
export type {
  AdditionalWorkingDirectory,
  PermissionAllowDecision,
  PermissionAskDecision,
  PermissionDenyDecision,
  PermissionPassthrough,
  PermissionRuleValue,
  PermissionUpdate,
} from './tool/permission-types.js';

// — the permission engine's pieces: the gate, rule parsing, the bash analysis —
export { createCanUseTool } from './permissions/can-use-tool.js';
export type { CanUseToolOptions } from './permissions/can-use-tool.js';
export { DEFAULT_DENIAL_LIMITS } from './permissions/auto-mode.js';
export { CLASSIFIER_SYSTEM_PREFIX } from './agent/classifier-prompt.js';
export type { DenialLimits } from './permissions/auto-mode.js';
export type { ClassifierTrace, ClassifierUsage } from './tool/permission-types.js';
export { hasPermissionsToUseTool, headlessDenyMessage } from './permissions/resolve.js';
export { updatePermissionContext } from './permissions/permission-context.js';
export { formatPermissionRule, parsePermissionRule, tryParsePermissionRule, validatePermissionRule } from './permissions/permission-rule.js';
export type { ParseRuleResult } from './permissions/permission-rule.js';
export { preparePermissionMatcher } from './permissions/permission-matcher.js';
export type { PermissionMatcher, RuleMatch, RuleOrigin } from './permissions/permission-matcher.js';
export { suggestRules } from './permissions/suggest.js';
export { analyzeBashCommand } from './permissions/bash/analyze.js';
export { isBashParserLoaded, loadBashParser } from './permissions/bash/parser.js';
export { checkBashPermission } from './permissions/bash/check-permission.js';
export { isReadOnlyCommand } from './permissions/bash/read-only.js';
export type { BashAnalysis, SimpleCommand } from './permissions/bash/types.js';

// — skills and commands, and state tools carry between calls —
export { createSkillTool } from './tools/skill/index.js';
export type { SkillCatalog } from './tools/skill/index.js';
export type { SlashCommandExpansion } from './agent/slash-commands.js';
export type { ToolSessionState } from './tool/tool-use-context.js';
export { UNINTERRUPTIBLE_COMMANDS } from './tools/bash/interrupt-behavior.js';

// — hooks —
export { createHookRunner } from './hooks/hook-runner.js';
export { parseHooksSettings } from './hooks/parse-hooks-settings.js';
export { HOOK_EVENT_NAMES } from './hooks/types.js';
export type { HookEventName, HookRunner, HookRunnerOptions, HooksConfig, HooksSettingsSource, HookToolEvent, ParsedHooksSettings } from './hooks/types.js';

// — running calls without the runtime: the pipeline, the executor, the block snapshot —
export { runToolUse } from './execution/pipeline.js';
export type { PipelineOptions } from './execution/pipeline.js';
export { StreamingToolExecutor } from './execution/streaming-tool-executor.js';
export type { ExecutorUpdate, StreamingToolExecutorOptions, ToolStatus } from './execution/streaming-tool-executor.js';
export { snapshotAssistantMessage, snapshotContentBlock } from './execution/block-snapshot.js';
export type { BlockSnapshot } from './execution/block-snapshot.js';
export type { ToolUseStage } from './execution/outcome.js';
export { localToolCallBackend } from './execution/backend.js';
export type { ToolCallRequest } from './execution/backend.js';
export { DEFAULT_CONVERSATION_BUDGET_CHARS, ToolResultBudget } from './execution/budget.js';
export type { ToolResultBudgetOptions } from './execution/budget.js';
export { classifyToolError, TOOL_ERROR_CLASSES } from './execution/errors.js';
export type { ToolEvent, ToolEventName, ToolEventSink } from './execution/errors.js';
export { USER_INTERRUPT } from './execution/abort-reasons.js';
export { toolResultsMessage } from './execution/messages.js';
export { buildRedactor, DEFAULT_SECRET_ENV_PATTERNS, redactorFor, refreshEnvironmentSecrets, registerSecretValues, SecretRedactor } from './execution/redaction.js';
export type { SecretEntry } from './execution/redaction.js';

// — the tools and the pool —
export { getAllBaseTools } from './registry/base-tools.js';
export type { GetAllBaseToolsOptions } from './registry/base-tools.js';
export { assembleToolPool, getTools } from './registry/tool-pool.js';
export type { ToolPoolOptions } from './registry/tool-pool.js';
export { AgentTool } from './tools/agent/index.js';
export type { SubagentEvent, SubagentRequest, SubagentResult, SubagentRunner } from './tools/agent/index.js';
export { AskUserQuestionTool } from './tools/ask-user-question/index.js';
export { BashTool } from './tools/bash/index.js';
export { createTaskRegistry, getTaskRegistry, TaskRegistry } from './tools/shared/task-registry.js';
export type { TaskEnd, TaskInfo, TaskSource } from './tools/shared/task-registry.js';
export { CronCreateTool, CronDeleteTool, CronListTool } from './tools/cron/index.js';
export { EditTool } from './tools/edit/index.js';
export { GlobTool } from './tools/glob/index.js';
export { GrepTool } from './tools/grep/index.js';
export { ListMcpResourcesTool } from './tools/list-mcp-resources/index.js';
export { LspTool } from './tools/lsp/index.js';
export { MonitorTool } from './tools/monitor/index.js';
export { NotebookEditTool } from './tools/notebook-edit/index.js';
export { EnterPlanModeTool, ExitPlanModeTool } from './tools/plan-mode/index.js';
export { ReadMcpResourceTool } from './tools/read-mcp-resource/index.js';
export { ReadTool } from './tools/read/index.js';
export { ScheduleWakeupTool } from './tools/schedule-wakeup/index.js';
export { TaskOutputTool } from './tools/task-output/index.js';
export { TaskStopTool } from './tools/task-stop/index.js';
export { TodoWriteTool } from './tools/todo-write/index.js';
export { ToolSearchTool } from './tools/tool-search/index.js';
export { WebFetchTool } from './tools/web-fetch/index.js';
export { WebSearchTool } from './tools/web-search/index.js';
export { WriteTool } from './tools/write/index.js';

// — the loop's surroundings: system prompt, transcripts, session folders —
export { buildSystemPrompt } from './agent/system-prompt.js';
export type { SystemPromptOptions } from './agent/system-prompt.js';
export { latestSessionFor, readTranscript, transcriptPath, TranscriptWriter } from './agent/transcript.js';
export type { TranscriptEntry } from './agent/transcript.js';
export { defaultSessionDir, stateDirectory } from './agent/session-dir.js';
export { RUNTIME_DISPOSED } from './agent/create-tool-runtime.js';

// — settings files: grants —
export { createRulePersister, listGrants, revokeGrant, writeGrants } from './settings/grants.js';
export type { GrantDestination, GrantEntry, GrantLocations, WriteGrantsOptions } from './settings/grants.js';

// — MCP, piece by piece —
export { createMcpTool } from './mcp/mcp-tool.js';
export { mapMcpToolOutput } from './mcp/result.js';
export { McpConnection } from './mcp/connection.js';
export { buildMcpToolName, normalizeNameForMcp } from './mcp/names.js';
export { parseMcpServerConfig } from './mcp/config.js';
export type { ScopedMcpServer } from './mcp/load-config.js';

export { McpOAuthStore } from './mcp/oauth-store.js';
export type { McpLoginOptions, McpLoginResult } from './mcp/oauth-login.js';
export { GuardedStdioTransport } from './mcp/server/guarded-stdio-transport.js';

// — the durable backend, piece by piece —
export { executeRemoteToolCall, isRetrySafe } from './distributed/remote-tool-call.js';
export type { RemoteToolCall, RemoteToolResult } from './distributed/remote-tool-call.js';
export { isWorkspaceTool } from './distributed/durable-tool-call-backend.js';
