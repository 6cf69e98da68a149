/** A decision's trace in words, for `toolgate check`, prompts and logs. */
import type { ClassifierTrace, DecisionLayer, PermissionDecision, PermissionResult } from '../tool/permission-types.js';
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
  if (t.classifier !== undefined) lines.push(`  classifier: ${describeClassifier(t.classifier)}`);
  if (decision.behavior === 'ask' && decision.suggestions && decision.suggestions.length > 0) {
    lines.push(`  to allow:   add ${decision.suggestions.map((s) => JSON.stringify(formatPermissionRule(s))).join(' or ')} to permissions.allow`);
  }
  if (decision.behavior === 'deny' && decision.message && decision.message !== t.reason) lines.push(`  message:    ${decision.message}`);
  return lines.join('\n');
}

/** `allow at stage 1 (claude-haiku-5-5; 110 tokens, $0.000150, speculative): reason`, or `not asked: reason`. */
export function describeClassifier(c: ClassifierTrace): string {
  if (c.outcome === 'skipped') return `not asked: ${c.reason}`;
  const what = c.outcome === 'unavailable' ? 'no verdict' : c.outcome === 'unused' ? 'not needed' : c.outcome;
  const u = c.usage;
  const tokens = u ? u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens : undefined;
  const facts = [
    c.models?.join(' then '),
    tokens !== undefined ? `${tokens} tokens` : undefined,
    c.costUsd !== undefined ? `$${c.costUsd.toFixed(6)}` : undefined,
    c.durationMs !== undefined && c.outcome !== 'unused' ? `${Math.round(c.durationMs)} ms` : undefined,
    c.speculative ? 'speculative' : undefined,
  ].filter((x) => x !== undefined);
  return `${what}${c.stage !== undefined ? ` at stage ${c.stage}` : ''}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}: ${c.reason}`;
}
