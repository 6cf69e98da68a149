/**
 * When tools are deferred (Claude Code's `ENABLE_TOOL_SEARCH`):
 * - `true` / unset: tools that ask for it (`shouldDefer`) and MCP tools are deferred;
 * - `false`: nothing is deferred and ToolSearch leaves the pool;
 * - `auto` / `auto:N`: `shouldDefer` tools are deferred; MCP tools only when their definitions take at least N % (10 %
 *   by default) of the context window — a handful of small MCP tools is cheaper to send than to search for.
 * ToolSearch stays in the pool only while something is deferred.
 */
import { getToolInputJSONSchema, isDeferredTool, TOOL_SEARCH_TOOL_NAME } from '../tool/api-format.js';
import { getEmptyToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';

export type ToolSearchMode = { readonly kind: 'on' } | { readonly kind: 'off' } | { readonly kind: 'auto'; readonly percent: number };

export const DEFAULT_AUTO_PERCENT = 10;
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 200_000;

/** Reads a setting or `ENABLE_TOOL_SEARCH`; anything unrecognised is reported, not guessed into a mode. */
export function parseToolSearchMode(value: string | boolean | undefined): ToolSearchMode {
  if (value === undefined || value === true) return { kind: 'on' };
  if (value === false) return { kind: 'off' };
  const v = value.trim().toLowerCase();
  if (v === '' || ['1', 'true', 'yes', 'on'].includes(v)) return { kind: 'on' };
  if (['0', 'false', 'no', 'off'].includes(v)) return { kind: 'off' };
  const auto = /^auto(?::(\d+(?:\.\d+)?))?$/.exec(v);
  if (auto) {
    const percent = auto[1] === undefined ? DEFAULT_AUTO_PERCENT : Number(auto[1]);
    if (percent >= 0 && percent <= 100) return { kind: 'auto', percent };
  }
  throw new Error(`Invalid tool search setting ${JSON.stringify(value)}: use true, false, auto or auto:N (N a percentage 0-100)`);
}

/** A rough token count of a tool's definition (4 characters a token), enough to compare against a window share. */
export async function estimateDefinitionTokens(tool: AnyTool): Promise<number> {
  let description = '';
  try {
    description = await tool.prompt({ getToolPermissionContext: () => getEmptyToolPermissionContext(process.cwd()), tools: [] });
  } catch {
    // counted without its description
  }
  return Math.ceil((tool.name.length + description.length + JSON.stringify(getToolInputJSONSchema(tool)).length) / 4);
}

export interface DeferralOptions {
  readonly mode: ToolSearchMode;
  readonly contextWindowTokens?: number;
}

/**
 * Applies the mode to a sorted pool (built-ins then MCP tools). MCP tools kept up front get `shouldDefer: false`
 * (a copy: the provider's object is not changed); ToolSearch is dropped when nothing is left deferred.
 */
export async function applyToolDeferral(pool: readonly AnyTool[], options: DeferralOptions): Promise<AnyTool[]> {
  const withoutSearch = pool.filter((t) => t.name !== TOOL_SEARCH_TOOL_NAME);
  if (options.mode.kind === 'off') return withoutSearch;
  let out = [...pool];
  if (options.mode.kind === 'auto') {
    const mcp = out.filter((t) => t.isMcp === true && t.shouldDefer !== true && t.alwaysLoad !== true);
    const tokens = (await Promise.all(mcp.map(estimateOnce))).reduce((a, b) => a + b, 0);
    const window = options.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS;
    if (tokens < (window * options.mode.percent) / 100) {
      const keep = new Set(mcp);
      out = out.map((t) => (keep.has(t) ? sentUpFront(t) : t));
    }
  }
  return out.some((t) => isDeferredTool(t, out)) ? out : out.filter((t) => t.name !== TOOL_SEARCH_TOOL_NAME);
}

/**
 * Per tool object, so that the pool is assembled again between turns without new work or new objects: a listing
 * that changes gives new tool objects, and a new copy sent up front would make the runtime build every definition
 * again (its cache holds while the pool's tools are the same objects).
 */
const estimates = new WeakMap<AnyTool, Promise<number>>();
const upFront = new WeakMap<AnyTool, AnyTool>();

function estimateOnce(tool: AnyTool): Promise<number> {
  let estimate = estimates.get(tool);
  if (estimate === undefined) {
    estimate = estimateDefinitionTokens(tool);
    estimates.set(tool, estimate);
  }
  return estimate;
}

function sentUpFront(tool: AnyTool): AnyTool {
  let copy = upFront.get(tool);
  if (copy === undefined) {
    copy = { ...tool, shouldDefer: false };
    upFront.set(tool, copy);
  }
  return copy;
}
