/**
 * What ListMcpResources and ReadMcpResource need from the MCP layer, declared here so that `tools/` never imports
 * `mcp/`: the MCP client manager implements it and the runtime puts it on `context.services.mcpResources`.
 */

export interface McpResourceInfo {
  readonly server: string;
  readonly uri: string;
  readonly name: string;
  readonly mimeType?: string;
  readonly description?: string;
}

/** One part of a resource: text, or base64 `blob`. */
export interface McpResourceContent {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: string;
  readonly blob?: string;
}

export interface McpResourceService {
  /** Configured servers that are (or may be) running. */
  serverNames(): readonly string[];
  /** Resources of one server, or of every server (failures reported per server, not thrown). */
  listResources(
    server: string | undefined,
    signal: AbortSignal,
  ): Promise<{ readonly resources: readonly McpResourceInfo[]; readonly errors: readonly { readonly server: string; readonly error: string }[] }>;
  readResource(server: string, uri: string, signal: AbortSignal): Promise<readonly McpResourceContent[]>;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolServices {
    /** The MCP servers' resources (absent: no MCP layer in this process). */
    readonly mcpResources?: McpResourceService;
  }
}
