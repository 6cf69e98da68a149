/**
 * From the catalogue to the pool the model sees:
 *   getAllBaseTools() → getTools(permissionContext) → assembleToolPool(permissionContext, mcpTools).
 * Built-ins and MCP tools are sorted as two separate groups: the API caches the prompt up to the last built-in,
 * so adding or removing an MCP tool must never move a built-in.
 */
import { filterToolsByDenyRules, isFrozenRule } from '../permissions/tool-rule-match.js';
import type { PermissionRule, ToolPermissionContext } from '../tool/permission-types.js';
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
  const env = options.env ?? process.env;
  const deny = permissionContext.alwaysDenyRules;
  const remembered = Object.isFrozen(deny) && deny.every(isFrozenRule);
  const inputs = remembered ? poolInputs(await getAllBaseTools(options), mcpTools, options, env) : undefined;
  const last = inputs && lastPools.get(deny);
  if (last && sameInputs(last.inputs, inputs!)) return last.pool;
  let duplicates = false;
  const onDuplicate = (dropped: AnyTool, kept: AnyTool) => {
    duplicates = true;
    (options.onDuplicate ?? warnDuplicate)(dropped, kept);
  };
  const builtIns = [...(await getTools(permissionContext, { ...options, onDuplicate }))].sort(byName);
  const mcp = filterToolsByDenyRules(mcpTools, permissionContext).filter((t) => t.isEnabled()).sort(byName);
  const deduped = dedupeByName([...builtIns, ...mcp], onDuplicate);
  const mode = parseToolSearchMode(options.toolSearch ?? env.ENABLE_TOOL_SEARCH);
  const pool = await applyToolDeferral(deduped, { mode, contextWindowTokens: options.contextWindowTokens });
  // A pool that dropped a tool is made again next time, so that its warning is not lost.
  if (inputs && !duplicates) lastPools.set(deny, { inputs, pool });
  return pool;
}

/**
 * The last pool per deny list. The runtime assembles the pool again between turns (an MCP server may have changed its
 * tools) and it is nearly always the same: while everything it is made from is — the catalogue's list, the session's
 * and MCP tools (the same objects), the environment's switches, each tool's isEnabled() — the last pool is the answer,
 * without its copies, sorts, de-duplications and deferral step. Only for a frozen list of frozen rules (every
 * permission context's, tool-rule-match.ts), which cannot change under its key.
 */
const lastPools = new WeakMap<readonly PermissionRule[], { readonly inputs: readonly unknown[]; readonly pool: Tools }>();

/** Everything but the deny list that the pool is a function of, as a flat list compared entry by entry. */
function poolInputs(base: Tools, mcpTools: Tools, options: ToolPoolOptions, env: NodeJS.ProcessEnv): unknown[] {
  const session = options.sessionTools ?? [];
  const simple = isTruthyEnv(env.TOOLGATE_SIMPLE) || isTruthyEnv(env.CLAUDE_CODE_SIMPLE);
  const inputs: unknown[] = [base, simple, options.toolSearch ?? env.ENABLE_TOOL_SEARCH, options.contextWindowTokens, session.length, ...session, ...mcpTools];
  for (const tools of [base, session, mcpTools]) for (const tool of tools) inputs.push(tool.isEnabled());
  return inputs;
}

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
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
