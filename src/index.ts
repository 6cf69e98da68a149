// The library entry: every layer's public API, bottom to top. Built-in tools are reached through the registry
// (getAllBaseTools / assembleToolPool) so that a program pays only for the tools it loads.
export * from './tool/index.js';
export * from './permissions/index.js';
export * from './hooks/index.js';
export * from './execution/index.js';
export * from './registry/index.js';
export * from './settings/index.js';
export * from './agent/index.js';
export {
  createMcpTool,
  createPermissionPromptTool,
  loadMcpConfig,
  mapMcpToolOutput,
  McpClientManager,
  McpConnection,
  McpConnectionError,
  buildMcpToolName,
  normalizeNameForMcp,
  parseMcpServerConfig,
  serveHttp,
  serveStdio,
  ToolgateMcpServer,
} from './mcp/index.js';
export type { LoadedMcpConfig, LoadMcpConfigOptions, McpServerConfig, McpServerStatus, ScopedMcpServer } from './mcp/index.js';
export { ListMcpResourcesTool } from './tools/list-mcp-resources/index.js';
export { ReadMcpResourceTool } from './tools/read-mcp-resource/index.js';
export type { McpResourceService } from './tools/shared/mcp-resource-service.js';
export { ToolSearchTool, deferredToolsAnnouncement, type ToolSearchOutput } from './tools/tool-search/index.js';
export {
  AgentTool,
  agentDefinitionsFor,
  reloadAgentDefinitions,
  MAX_SUBAGENT_DEPTH,
  type AgentOutput,
  type SubagentRequest,
  type SubagentResult,
  type SubagentRunner,
} from './tools/agent/index.js';
export { loadAgentDefinitions, parseAgentMarkdown, BUILT_IN_AGENTS, type AgentDefinition } from './tools/agent/agent-definitions.js';
export { TodoWriteTool, getTodos, type TodoItem } from './tools/todo-write/index.js';
export { AskUserQuestionTool } from './tools/ask-user-question/index.js';
export { EnterPlanModeTool, ExitPlanModeTool } from './tools/plan-mode/index.js';
export { WebFetchTool, clearWebFetchCache } from './tools/web-fetch/index.js';
export { WebSearchTool } from './tools/web-search/index.js';
export type { ToolQuestionAnswer, ToolQuestionRequest } from './tools/shared/questions.js';
// Durable tool calls (the Restate worker side and the dev server live in src/distributed/, loaded on demand).
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
