/**
 * Allow ceilings: a skill's (or custom command's) `allowed-tools` while it is active in an agent's turn. They only
 * narrow: an automatic allow (an allow rule, a mode, read-only classification, a hook's allow, the sandbox
 * auto-allow) of that agent's call stands when the ceiling's rules cover the call, and becomes a question otherwise
 * (headless: a denial). Deny and ask rules decide before a ceiling is looked at, and a ceiling never allows what the
 * rules would not: a skill checked into a repository cannot grant itself anything.
 *
 * Coverage is the engine's own rule matching with the ceiling's rules as the only allow rules: a whole-tool rule
 * (`Read`, `mcp__github`) or a content rule (`Bash(git add *)`, `Read(src/**)`, `Skill(deploy)`). Read-only
 * classification and working-directory access do not count as coverage.
 */
import type {
  AllowCeiling,
  PermissionDecision,
  PermissionRule,
  ToolPermissionContext,
} from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { checkToolContent } from './content-check.js';
import { formatPermissionRule } from './permission-rule.js';
import { updatePermissionContext } from './permission-context.js';
import { findToolLevelRule } from './tool-rule-match.js';

/** The ceilings that narrow this agent's calls (`undefined`: the main thread); empty when none. */
export function ceilingsFor(ctx: ToolPermissionContext, agentId: string | undefined): readonly AllowCeiling[] {
  const all = ctx.allowCeilings as readonly AllowCeiling[] | undefined;
  if (all === undefined || all.length === 0) return [];
  return all.filter((c) => c.agentId === agentId);
}

/** A new context with one more ceiling for `ceiling.agentId`'s calls. */
export function addAllowCeiling(ctx: ToolPermissionContext, ceiling: AllowCeiling): ToolPermissionContext {
  const all = (ctx.allowCeilings as readonly AllowCeiling[] | undefined) ?? [];
  return updatePermissionContext(ctx, { allowCeilings: [...all, ceiling] });
}

/** A new context without the ceilings of this agent (its turn ended); the same context when it had none. */
export function removeAllowCeilings(ctx: ToolPermissionContext, agentId: string | undefined): ToolPermissionContext {
  const all = (ctx.allowCeilings as readonly AllowCeiling[] | undefined) ?? [];
  if (!all.some((c) => c.agentId === agentId)) return ctx;
  const rest = all.filter((c) => c.agentId !== agentId);
  if (rest.length > 0) return updatePermissionContext(ctx, { allowCeilings: rest });
  const { allowCeilings: _dropped, ...without } = ctx;
  return updatePermissionContext(without as ToolPermissionContext, {});
}

/** Whether these rules, as the only allow rules, would allow the call by a rule (not by being read-only). */
export function rulesCoverCall(rules: readonly PermissionRule[], tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): boolean {
  if (rules.length === 0) return false;
  if (findToolLevelRule(rules, tool) !== undefined) return true;
  const only: ToolPermissionContext = { ...ctx, mode: 'default', alwaysAllowRules: rules, alwaysDenyRules: [], alwaysAskRules: [] };
  try {
    const content = checkToolContent(tool, input, only);
    return content.behavior === 'allow' && content.decisionReason?.layer === 'allowRule';
  } catch {
    return false; // a check that cannot decide does not cover anything
  }
}

/**
 * The decision under the agent's ceilings: an allow the ceilings do not cover becomes an ask whose trace names the
 * ceilings and what would have allowed it. Denials and asks pass through unchanged.
 */
export function applyAllowCeilings(
  decision: PermissionDecision,
  ceilings: readonly AllowCeiling[],
  tool: AnyTool,
  input: Record<string, unknown>,
  ctx: ToolPermissionContext,
): PermissionDecision {
  if (decision.behavior !== 'allow' || ceilings.length === 0) return decision;
  if (ceilings.some((c) => rulesCoverCall(c.rules, tool, input, ctx))) return decision;
  const labels = ceilings.map((c) => c.label).join(', ');
  const allowed = [...new Set(ceilings.flatMap((c) => c.rules.map((r) => formatPermissionRule(r.ruleValue))))].join(', ');
  const before = decision.decisionReason?.reason;
  const reason =
    `${labels} ${ceilings.length === 1 ? 'is' : 'are'} active and ${ceilings.length === 1 ? 'its' : 'their'} allowed-tools ` +
    `(${allowed || 'none'}) do not cover this ${tool.name} call${before ? `; without ${ceilings.length === 1 ? 'it' : 'them'}: ${before}` : ''}`;
  return {
    behavior: 'ask',
    message: `${tool.name} needs permission: ${reason}`,
    // Only a person lifts a ceiling: an automatic classifier approving would be one more automatic allow.
    decisionReason: { layer: 'prompt', reason, classifierApprovable: false },
  };
}
