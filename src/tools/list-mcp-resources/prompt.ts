export const LIST_MCP_RESOURCES_TOOL_NAME = 'ListMcpResources';

export function listMcpResourcesPrompt(): string {
  return [
    'Lists the resources (files, records, documents) that the connected MCP servers offer.',
    'Give `server` to list one server only; leave it out to list every server.',
    'Each resource has a URI: read it with ReadMcpResource, passing the same server name and URI.',
  ].join('\n');
}
