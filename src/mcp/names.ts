/**
 * MCP tool names as Claude Code builds them: `mcp__<server>__<tool>`, each part with every character outside
 * `[a-zA-Z0-9_-]` replaced by `_`, so the API accepts the name and rules written for Claude Code match unchanged.
 */

export const MCP_TOOL_PREFIX = 'mcp__';

export function normalizeNameForMcp(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** The API caps tool names at 128 characters; a longer one keeps its start and gets a short hash to stay unique. */
const MAX_TOOL_NAME = 128;

export function buildMcpToolName(serverName: string, toolName: string): string {
  const name = `${MCP_TOOL_PREFIX}${normalizeNameForMcp(serverName)}__${normalizeNameForMcp(toolName)}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${fnv1a(name)}`;
}

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
