/**
 * Whole-tool rule matching: does a rule with no content (`WebFetch`, `mcp__github`, `mcp__github__*`) name this
 * tool? Used to take tools out of the pool before the model sees them, and by the engine for tool-level rules.
 */
import type { PermissionRule, PermissionRuleValue, ToolPermissionContext } from '../tool/permission-types.js';

export interface RuleMatchableTool {
  readonly name: string;
  readonly mcpInfo?: { readonly serverName: string; readonly toolName: string };
  /** `alsoDeniedAs`: the other name whose whole-tool deny and ask rules cover this tool too (Monitor: Bash). */
  readonly permissionTraits?: { readonly alsoDeniedAs?: string };
}

const MCP_PREFIX = 'mcp__';

/** `mcp__server__tool` → `{ serverName, toolName }`; anything else → undefined. */
export function parseMcpToolName(name: string): { serverName: string; toolName?: string } | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const sep = rest.indexOf('__');
  if (sep === -1) return rest.length > 0 ? { serverName: rest } : undefined;
  const serverName = rest.slice(0, sep);
  const toolName = rest.slice(sep + 2);
  if (serverName.length === 0) return undefined;
  return { serverName, toolName: toolName.length > 0 ? toolName : undefined };
}

/** True when a content-less rule value names the tool: exact name, or an MCP server (`mcp__s`, `mcp__s__*`). */
export function toolMatchesRuleName(tool: RuleMatchableTool, ruleValue: PermissionRuleValue): boolean {
  if (ruleValue.ruleContent !== undefined) return false;
  if (ruleValue.toolName === tool.name) return true;
  const rule = parseMcpToolName(ruleValue.toolName);
  if (!rule) return false;
  const server = tool.mcpInfo?.serverName ?? parseMcpToolName(tool.name)?.serverName;
  if (server === undefined || server !== rule.serverName) return false;
  return rule.toolName === undefined || rule.toolName === '*';
}

/** The first deny rule that removes this tool as a whole, if any. */
export function getDenyRuleForTool(context: ToolPermissionContext, tool: RuleMatchableTool): PermissionRule | undefined {
  return context.alwaysDenyRules.find((rule) => toolMatchesRulePattern(tool, rule.ruleValue, true));
}

/** Tools not denied as a whole. Generic over anything with a name (built-ins) and optional `mcpInfo` (MCP tools). */
export function filterToolsByDenyRules<T extends RuleMatchableTool>(tools: readonly T[], context: ToolPermissionContext): T[] {
  return tools.filter((tool) => getDenyRuleForTool(context, tool) === undefined);
}

/**
 * Like `toolMatchesRuleName`, and also tool-name globs: `*` (every tool), `mcp__*` (every MCP tool),
 * `mcp__server__get_*`. Allow rules only accept globs after `mcp__<server>__` (the settings loader rejects others);
 * deny and ask rules accept any.
 */
export function toolMatchesRulePattern(tool: RuleMatchableTool, ruleValue: PermissionRuleValue, restrictive = false): boolean {
  if (ruleValue.ruleContent !== undefined) return false;
  if (toolMatchesRuleName(tool, ruleValue)) return true;
  // A deny or ask rule naming the tool this one is also denied as covers it too; an allow rule never does.
  const deniedAs = restrictive ? tool.permissionTraits?.alsoDeniedAs : undefined;
  if (deniedAs !== undefined && toolMatchesRulePattern({ name: deniedAs }, ruleValue)) return true;
  const name = ruleValue.toolName;
  if (!name.includes('*')) return false;
  const re = new RegExp(`^${name.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  if (re.test(tool.name)) return true;
  // An MCP tool also answers to its server-qualified name when its own name differs.
  return tool.mcpInfo !== undefined && re.test(`mcp__${tool.mcpInfo.serverName}__${tool.mcpInfo.toolName}`);
}

/** The first content-less rule of this list that names the tool (exact, MCP server, or glob). */
export function findToolLevelRule(rules: readonly PermissionRule[], tool: RuleMatchableTool, restrictive = false): PermissionRule | undefined {
  // Asked several times per tool call: a frozen list (every context's) remembers its answer per tool identity.
  if (!Object.isFrozen(rules)) return rules.find((rule) => toolMatchesRulePattern(tool, rule.ruleValue, restrictive));
  let byTool = toolLevelAnswers.get(rules);
  if (byTool === undefined) {
    byTool = new Map();
    toolLevelAnswers.set(rules, byTool);
  }
  // The same list may be asked as a deny list and as an allow list (a ceiling): the answers differ for such a tool.
  const key = restrictive && tool.permissionTraits?.alsoDeniedAs !== undefined ? `${toolRuleKey(tool)}\u0002` : toolRuleKey(tool);
  const known = byTool.get(key);
  if (known !== undefined) return known ?? undefined;
  const found = rules.find((rule) => toolMatchesRulePattern(tool, rule.ruleValue, restrictive));
  // Only lists whose rules are frozen too are safe to answer from memory; MCP pools are bounded, the cap is a backstop.
  if (byTool.size < MAX_REMEMBERED_TOOLS && rules.every(isFrozenRule)) byTool.set(key, found ?? null);
  return found;
}

/** What tool-level matching depends on: the name, an MCP tool's server and tool names, and `alsoDeniedAs`. */
export function toolRuleKey(tool: RuleMatchableTool): string {
  const base = tool.mcpInfo === undefined ? tool.name : `${tool.name}\u0000${tool.mcpInfo.serverName}\u0000${tool.mcpInfo.toolName}`;
  const deniedAs = tool.permissionTraits?.alsoDeniedAs;
  return deniedAs === undefined ? base : `${base}\u0001${deniedAs}`;
}

const MAX_REMEMBERED_TOOLS = 4096;
const toolLevelAnswers = new WeakMap<readonly PermissionRule[], Map<string, PermissionRule | null>>();

export function isFrozenRule(rule: PermissionRule): boolean {
  return Object.isFrozen(rule) && Object.isFrozen(rule.ruleValue);
}
