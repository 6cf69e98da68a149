/**
 * From the catalogue to the pool the model sees:
 *   getAllBaseTools() → getTools(permissionContext) → assembleToolPool(permissionContext, mcpTools).
 * Built-ins and MCP tools are sorted as two separate groups: the API caches the prompt up to the last built-in,
 * so adding or removing an MCP tool must never move a built-in.
 */
import { filterToolsByDenyRules } from '../permissions/tool-rule-match.js';
import type { ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool, Tools } from '../tool/tool.js';
import { getAllBaseTools, type GetAllBaseToolsOptions } from './base-tools.js';
import { applyToolDeferral, parseToolSearchMode } from './tool-search-mode.js';

/** The tools of simple mode (`TOOLGATE_SIMPLE=1`, or Claude Code's `CLAUDE_CODE_SIMPLE=1`). */
export const SIMPLE_MODE_TOOLS: readonly string[] = ['Bash', 'Read', 'Edit'];

export interface ToolPoolOptions extends GetAllBaseToolsOptions {
  /** Told about every tool dropped because an earlier one had its name. Default: a process warning. */
  readonly onDuplicate?: (dropped: AnyTool, kept: AnyTool) => void;
  /** `true`, `false`, `auto`, `auto:N` (default: the `ENABLE_TOOL_SEARCH` environment variable, else on). */
  readonly toolSearch?: string | boolean;
  /** The model's context window, for `auto` (default 200,000 tokens). */
  readonly contextWindowTokens?: number;
  /** Built-ins made for this session (the Skill tool over its skills): sorted and filtered with the catalogue's. */
  readonly sessionTools?: Tools;
}

function isTruthyEnv(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

/** Built-ins available under this permission context: simple mode, whole-tool deny rules, then each tool's veto. */
export async function getTools(permissionContext: ToolPermissionContext, options: ToolPoolOptions = {}): Promise<Tools> {
  const env = options.env ?? process.env;
  let tools: AnyTool[] = [...(await getAllBaseTools(options)), ...(options.sessionTools ?? [])];
  if (isTruthyEnv(env.TOOLGATE_SIMPLE) || isTruthyEnv(env.CLAUDE_CODE_SIMPLE)) tools = tools.filter((t) => SIMPLE_MODE_TOOLS.includes(t.name));
  tools = filterToolsByDenyRules(tools, permissionContext);
  return dedupeByName(tools.filter((t) => t.isEnabled()), options.onDuplicate);
}

const byName = (a: AnyTool, b: AnyTool): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The pool: built-ins sorted by name, then allowed MCP tools sorted by name; on a name clash the first (built-in) wins.
 * Then the deferral decision (`tool-search-mode.ts`): which tools go out by name only, and whether ToolSearch stays.
 */
export async function assembleToolPool(
  permissionContext: ToolPermissionContext,
  mcpTools: Tools,
  options: ToolPoolOptions = {},
): Promise<Tools> {
  const builtIns = [...(await getTools(permissionContext, options))].sort(byName);
  const mcp = filterToolsByDenyRules(mcpTools, permissionContext).filter((t) => t.isEnabled()).sort(byName);
  const pool = dedupeByName([...builtIns, ...mcp], options.onDuplicate);
  const mode = parseToolSearchMode(options.toolSearch ?? (options.env ?? process.env).ENABLE_TOOL_SEARCH);
  return applyToolDeferral(pool, { mode, contextWindowTokens: options.contextWindowTokens });
}

/**
 * Keeps the first tool of each name. Sorting is by code unit rather than `localeCompare`: the order must be the
 * same on every machine, whatever its locale, or the prompt cache misses.
 */
export function dedupeByName(tools: readonly AnyTool[], onDuplicate = warnDuplicate): AnyTool[] {
  const seen = new Map<string, AnyTool>();
  const out: AnyTool[] = [];
  for (const tool of tools) {
    const kept = seen.get(tool.name);
    if (kept) {
      onDuplicate(tool, kept);
      continue;
    }
    seen.set(tool.name, tool);
    out.push(tool);
  }
  return out;
}

function warnDuplicate(dropped: AnyTool, kept: AnyTool): void {
  const origin = (t: AnyTool) => (t.mcpInfo ? `MCP server "${t.mcpInfo.serverName}"` : 'built-in');
  process.emitWarning(
    `Tool "${dropped.name}" (${origin(dropped)}) dropped: a ${origin(kept)} tool already has that name`,
    { code: 'TOOLGATE_DUPLICATE_TOOL' },
  );
}
