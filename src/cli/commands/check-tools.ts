/**
 * The tools `toolgate check` decides for: the real built-ins from the registry, and for a documented name that is
 * not (yet) registered, a stand-in that describes it to the engine — its path field, read-only or not — and never
 * runs. MCP names get an MCP stand-in (never read-only: MCP calls are not auto-approved).
 */
import { z } from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { AnyTool, Tools } from '../../tool/tool.js';
import { PATH_FIELDS } from '../../permissions/content-check.js';
import { isReadOnlyCommand } from '../../permissions/bash/index.js';
import { canonicalToolName } from '../../permissions/permission-rule.js';
import { parseMcpToolName } from '../../permissions/tool-rule-match.js';
import { findToolByName } from '../../tool/find-tool.js';
import { getAllBaseTools } from '../../registry/base-tools.js';

/** Documented tools that only read or look (no side effects beyond network reads). */
const READ_ONLY_NAMES = new Set([
  'Read', 'Glob', 'Grep', 'LSP', 'NotebookRead', 'WebFetch', 'WebSearch', 'ToolSearch', 'TaskGet', 'TaskList',
  'TaskOutput', 'CronList', 'ListAgents', 'ListMcpResourcesTool', 'ReadMcpResourceTool', 'ReadMcpResourceDirTool',
]);

const anyInput = z.looseObject({});
const standIns = new Map<string, AnyTool>();

function standIn(name: string): AnyTool {
  const cached = standIns.get(name);
  if (cached) return cached;
  const mcp = parseMcpToolName(name);
  const pathField = PATH_FIELDS[name];
  const tool = buildTool({
    name,
    inputSchema: anyInput,
    maxResultSizeChars: 100_000,
    prompt: async () => `${name} (described for permission checks only)`,
    call: async () => {
      throw new Error(`${name} is a stand-in for permission checks and cannot run`);
    },
    isReadOnly: (input: Record<string, unknown>) => {
      if (mcp) return false;
      if (name === 'Bash') return typeof input.command === 'string' && safeReadOnly(input.command);
      return READ_ONLY_NAMES.has(name);
    },
    ...(pathField !== undefined ? { getPath: (input: Record<string, unknown>) => (typeof input[pathField] === 'string' ? (input[pathField] as string) : undefined) } : {}),
    ...(mcp?.toolName !== undefined ? { mcpInfo: { serverName: mcp.serverName, toolName: mcp.toolName }, isMcp: true } : {}),
  }) as AnyTool;
  standIns.set(name, tool);
  return tool;
}

function safeReadOnly(command: string): boolean {
  try {
    return isReadOnlyCommand(command);
  } catch {
    return false;
  }
}

let registry: Promise<Tools> | undefined;

/** The registry's built-ins, loaded once; a registry that fails to load leaves only stand-ins (reported once). */
export function loadCheckTools(onError: (message: string) => void = () => {}): Promise<Tools> {
  registry ??= getAllBaseTools().catch((error: unknown) => {
    onError(`could not load the built-in tools (${error instanceof Error ? error.message : String(error)}); using stand-ins`);
    return [];
  });
  return registry;
}

/** The tool a request names (aliases resolve), or a stand-in. */
export function toolForCheck(tools: Tools, name: string): AnyTool {
  return findToolByName(tools, name) ?? findToolByName(tools, canonicalToolName(name)) ?? standIn(canonicalToolName(name));
}
