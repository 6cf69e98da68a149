/**
 * ListMcpResources: the resources of the connected MCP servers, with the server each comes from. The MCP layer gives
 * the servers through `context.services.mcpResources`; without it there is nothing to list.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { McpResourceInfo } from '../shared/mcp-resource-service.js';
import '../shared/mcp-resource-service.js';
import { LIST_MCP_RESOURCES_TOOL_NAME, listMcpResourcesPrompt } from './prompt.js';

export const listMcpResourcesInputSchema = z.strictObject({
  server: z.string().optional().describe('Only this MCP server (default: every server)'),
});

export interface ListMcpResourcesData {
  readonly resources: readonly McpResourceInfo[];
  readonly errors: readonly { readonly server: string; readonly error: string }[];
}

export const ListMcpResourcesTool = buildTool<typeof listMcpResourcesInputSchema, ListMcpResourcesData>({
  name: LIST_MCP_RESOURCES_TOOL_NAME,
  searchHint: 'list mcp server resources',
  inputSchema: listMcpResourcesInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => listMcpResourcesPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput: (input) => input.server ?? '',
  validateInput: async (input, context) => {
    const service = context.services.mcpResources;
    if (!service) return { result: false, message: 'No MCP servers are configured in this session.', errorCode: 1 };
    if (input.server !== undefined && !service.serverNames().includes(input.server)) {
      return { result: false, message: `No MCP server named "${input.server}". Servers: ${service.serverNames().join(', ') || '(none)'}`, errorCode: 2 };
    }
    return { result: true };
  },
  call: async (input, context) => {
    const service = context.services.mcpResources;
    if (!service) throw new Error('No MCP servers are configured in this session.');
    const { resources, errors } = await service.listResources(input.server, context.abortController.signal);
    return { data: { resources, errors } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => {
    const lines: string[] = [];
    if (data.resources.length === 0) lines.push('No resources found.');
    else lines.push(JSON.stringify(data.resources, null, 2));
    for (const e of data.errors) lines.push(`MCP server "${e.server}" could not list its resources: ${e.error}`);
    return { type: 'tool_result', tool_use_id: toolUseId, content: lines.join('\n') };
  },
  renderToolUseMessage: (input) => input.server ?? '',
  loadViews: () => import('./render.js').then((m) => m.listMcpResourcesViews),
});
