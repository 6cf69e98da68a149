/**
 * Permission texts the pipeline writes: a PreToolUse hook's verdict as a permission decision (with its trace), and
 * the denial of an `ask` nobody can answer — which names the rule that would allow the call, so a headless user
 * knows what to add to their settings.
 */
import type { PreToolUseOutcome } from '../hooks/types.js';
import type { PermissionAskDecision, PermissionDecision, PermissionRuleValue } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';

export function hookDecisionToPermission(
  decision: NonNullable<PreToolUseOutcome['decision']>,
  input: Record<string, unknown>,
  toolName: string,
): PermissionDecision | undefined {
  const reason = decision.reason ?? `PreToolUse hook ${decision.source}`;
  const trace = { layer: 'hook' as const, reason, rule: decision.source };
  switch (decision.behavior) {
    case 'allow':
      return { behavior: 'allow', updatedInput: input, decisionReason: trace };
    case 'ask':
      return { behavior: 'ask', message: decision.reason ?? 'A PreToolUse hook asked for confirmation.', decisionReason: trace };
    case 'deny':
      return {
        behavior: 'deny',
        // Claude Code's words (the model knows them); which hook it was stays in the trace.
        message: `PreToolUse:${toolName} hook error: ${decision.reason || 'Blocked by hook'}`,
        decisionReason: trace,
      };
    default:
      return undefined;
  }
}

/** `Tool(content)` with `(`, `)` and `\` escaped, the way settings files spell rules. */
export function formatRuleValue(value: PermissionRuleValue): string {
  if (value.ruleContent === undefined) return value.toolName;
  return `${value.toolName}(${value.ruleContent.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** An `ask` that reached the pipeline: nobody could answer it, so the call is denied, saying how to allow it. */
export function unansweredAskMessage(tool: AnyTool, ask: PermissionAskDecision): string {
  const rules = (ask.suggestions ?? []).map(formatRuleValue);
  const suggestion = rules.length > 0 ? rules.map((r) => `"${r}"`).join(', ') : `"${tool.name}"`;
  return (
    `Permission to use ${tool.name} is required (${ask.message}), but nobody can answer a permission prompt here, ` +
    `so the call was denied. To allow it, add ${suggestion} to permissions.allow in your settings.`
  );
}
