/** A decision's trace in words, for `toolgate check`, prompts and logs. */
import type { DecisionLayer, PermissionDecision, PermissionResult } from '../tool/permission-types.js';
import { formatPermissionRule } from './permission-rule.js';

const LAYER_WORDS: Readonly<Record<DecisionLayer, string>> = {
  hook: 'a PreToolUse hook',
  denyRule: 'a deny rule',
  askRule: 'an ask rule',
  toolCheck: "the tool's own check",
  safetyCheck: 'a safety check',
  allowRule: 'an allow rule',
  readOnly: 'the read-only classification',
  mode: 'the permission mode',
  classifier: 'the auto-mode classifier',
  prompt: 'the permission prompt',
};

export function describeLayer(layer: DecisionLayer): string {
  return LAYER_WORDS[layer];
}

/** A permission decision in words: the verdict, the layer and rule that decided, the file the rule came from. */
export function explainDecision(decision: PermissionDecision | PermissionResult): string {
  const t = decision.decisionReason;
  const verdict = decision.behavior.toUpperCase();
  if (!t) return `${verdict}${'message' in decision && decision.message ? `: ${decision.message}` : ''}`;
  const lines = [`${verdict} — decided by ${LAYER_WORDS[t.layer]} (${t.layer})`];
  if (t.rule !== undefined) {
    const from = [t.source, t.sourceFile].filter((x) => x !== undefined).join(', ');
    lines.push(`  rule:       ${t.rule}${from ? `  (from ${from})` : ''}`);
  }
  if (t.subcommand !== undefined) lines.push(`  subcommand: ${t.subcommand}`);
  lines.push(`  reason:     ${t.reason}`);
  if (decision.behavior === 'ask' && decision.suggestions && decision.suggestions.length > 0) {
    lines.push(`  to allow:   add ${decision.suggestions.map((s) => JSON.stringify(formatPermissionRule(s))).join(' or ')} to permissions.allow`);
  }
  if (decision.behavior === 'deny' && decision.message && decision.message !== t.reason) lines.push(`  message:    ${decision.message}`);
  return lines.join('\n');
}
