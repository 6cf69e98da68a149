export const READ_MCP_RESOURCE_TOOL_NAME = 'ReadMcpResource';

export function readMcpResourcePrompt(): string {
  return [
    'Reads one resource of an MCP server by its URI (find URIs with ListMcpResources).',
    'Text comes back as text and images as images; other binary contents are saved to a file whose path is given.',
  ].join('\n');
}
