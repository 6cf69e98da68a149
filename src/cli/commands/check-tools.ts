/**
 * The tools `toolgate check` decides for: the real built-ins from the registry, and for a documented name that is
 * not (yet) registered, a stand-in that describes it to the engine — its path field, read-only or not — and never
 * runs. MCP names get an MCP stand-in (never read-only: MCP calls are not auto-approved). Any other name is an error.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { AnyTool } from '../../tool/tool.js';
import { CLAUDE_CODE_TOOL_TRAITS } from '../../permissions/tool-traits.js';
import { isReadOnlyCommand } from '../../permissions/bash/index.js';
import { canonicalToolName, KNOWN_TOOL_NAMES } from '../../permissions/permission-rule.js';
import { parseMcpToolName } from '../../permissions/tool-rule-match.js';
import { loadBaseTool } from '../../registry/base-tools.js';
import { CheckRequestError } from './check-request.js';

/** Documented tools that only read or look (no side effects beyond network reads). */
const READ_ONLY_NAMES = new Set([
  'Read', 'Glob', 'Grep', 'LSP', 'NotebookRead', 'WebFetch', 'WebSearch', 'ToolSearch', 'TaskGet', 'TaskList',
  'TaskOutput', 'CronList', 'ListAgents', 'ListMcpResourcesTool', 'ReadMcpResourceTool', 'ReadMcpResourceDirTool',
]);

const anyInput = z.looseObject({});
const standIns = new Map<string, AnyTool>();
const standInTools = new WeakSet<AnyTool>();

function standIn(name: string): AnyTool {
  const cached = standIns.get(name);
  if (cached) return cached;
  const mcp = parseMcpToolName(name);
  // A documented tool's stand-in declares that tool's traits; an MCP tool never borrows them by its name.
  const traits = mcp === undefined && Object.hasOwn(CLAUDE_CODE_TOOL_TRAITS, name) ? CLAUDE_CODE_TOOL_TRAITS[name] : undefined;
  const pathField = traits?.pathField;
  const tool = buildTool({
    name,
    ...(traits !== undefined ? { permissionTraits: traits } : {}),
    inputSchema: anyInput,
    maxResultSizeChars: 100_000,
    prompt: async () => `${name} (described for permission checks only)`,
    call: async () => {
      throw new Error(`${name} is a stand-in for permission checks and cannot run`);
    },
    isReadOnly: (input: Record<string, unknown>) => {
      if (mcp) return false;
      if (traits?.kind === 'shell') {
        const command = input[traits.commandField ?? 'command'];
        return typeof command === 'string' && safeReadOnly(command);
      }
      return READ_ONLY_NAMES.has(name);
    },
    ...(pathField !== undefined ? { getPath: (input: Record<string, unknown>) => (typeof input[pathField] === 'string' ? (input[pathField] as string) : undefined) } : {}),
    ...(mcp?.toolName !== undefined ? { mcpInfo: { serverName: mcp.serverName, toolName: mcp.toolName }, isMcp: true } : {}),
  }) as AnyTool;
  standIns.set(name, tool);
  standInTools.add(tool);
  return tool;
}

/** True for a stand-in: its traits and checks are the ones above, which read nothing but the input. */
export function isStandIn(tool: AnyTool): boolean {
  return standInTools.has(tool);
}

function safeReadOnly(command: string): boolean {
  try {
    return isReadOnlyCommand(command);
  } catch {
    return false;
  }
}

/**
 * The tool a request names (aliases resolve): the registry's built-in, loaded on first use — only the modules of the
 * tools a run asks about are imported, which is most of `toolgate check`'s start-up — or a stand-in. A built-in that
 * fails to load is reported once (through `onError`) and replaced by its stand-in.
 */
export function createCheckToolResolver(onError: (message: string) => void = () => {}): (name: string) => Promise<AnyTool> {
  const resolved = new Map<string, Promise<AnyTool>>();
  return (name) => {
    let tool = resolved.get(name);
    if (!tool) {
      const canonical = canonicalToolName(name);
      tool = (async () => {
        try {
          const builtIn = (await loadBaseTool(name)) ?? (await loadBaseTool(canonical));
          if (builtIn) return builtIn;
        } catch (error) {
          onError(`could not load the built-in tool ${canonical} (${error instanceof Error ? error.message : String(error)}); using a stand-in`);
          return standIn(canonical);
        }
        // A misspelt name would be decided as some tool with no traits (usually "ask"): a CI policy test would pass
        // or fail for the wrong reason. Say so instead.
        if (!KNOWN_TOOL_NAMES.has(canonical) && parseMcpToolName(canonical) === undefined) throw new CheckRequestError(unknownTool(name));
        return standIn(canonical);
      })();
      resolved.set(name, tool);
    }
    return tool;
  };
}

function unknownTool(name: string): string {
  const near = [...KNOWN_TOOL_NAMES].find((known) => known.toLowerCase() === name.toLowerCase());
  return `unknown tool "${name}": not a built-in tool, a Claude Code tool, or an MCP tool (mcp__server__tool)${near ? `; did you mean ${near}?` : ''}`;
}
