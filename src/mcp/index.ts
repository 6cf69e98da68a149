// The MCP layer: servers configured as in Claude Code become tools (client), and the tool pool becomes an MCP server.
export { describeMcpServer, expandEnvVars, parseMcpServerConfig, parseMcpServersObject } from './config.js';
export type { McpConfigProblem, McpConfigScope, McpRemoteServerConfig, McpServerConfig, McpStdioServerConfig, McpTransportType } from './config.js';
export { loadMcpConfig } from './load-config.js';
export type { LoadedMcpConfig, LoadMcpConfigOptions, McpApproval, ScopedMcpServer } from './load-config.js';
export { buildMcpToolName, MCP_TOOL_PREFIX, normalizeNameForMcp } from './names.js';
export { DEFAULT_MCP_CONNECT_TIMEOUT_MS, DEFAULT_MCP_TOOL_TIMEOUT_MS, McpConnection, McpConnectionError } from './connection.js';
export type { McpConnectionOptions, McpConnectionState, McpElicitationRequest } from './connection.js';
export { createMcpTool, DEFAULT_MAX_MCP_OUTPUT_TOKENS, MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_RESULT_SIZE_CHARS_CEILING } from './mcp-tool.js';
export type { McpProgressData, McpToolOptions } from './mcp-tool.js';
export { mapMcpToolOutput, mcpContentToBlocks } from './result.js';
export type { McpToolOutput } from './result.js';
export { McpClientManager } from './manager.js';
export type { McpClientManagerOptions, McpServerEvent, McpServerState, McpServerStatus } from './manager.js';
export { createPermissionPromptTool } from './permission-prompt-tool.js';
export { ToolgateMcpServer, toCallToolResult } from './server/tool-server.js';
export type { ToolServerOptions } from './server/tool-server.js';
export { serveHttp, serveStdio } from './server/serve.js';
export type { HttpServeHandle, HttpServeOptions } from './server/serve.js';
