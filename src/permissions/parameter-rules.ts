/**
 * Parameter rules (`Agent(model:opus)`, `Bash(run_in_background:true)`) of one rule list, parsed once: the engine
 * looks them up for every tool call, and a frozen list (every context's) keeps its parsed form per tool name.
 */
import type { PermissionRule } from '../tool/permission-types.js';

export interface ParameterRule {
  readonly rule: PermissionRule;
  /** The top-level input field the rule names. */
  readonly field: string;
  /** The value pattern, `*` as a wildcard. */
  readonly pattern: string;
  readonly matches: (value: string) => boolean;
}

/** Primary content fields may not be matched by parameter rules (they have their own rule forms). */
export const PRIMARY_FIELDS: ReadonlySet<string> = new Set(['command', 'file_path', 'path', 'url', 'notebook_path']);

const PARAMETER_RULE = /^([A-Za-z_][A-Za-z0-9_]*):(.*)$/s;
const NONE: readonly ParameterRule[] = [];
const parsedLists = new WeakMap<readonly PermissionRule[], ReadonlyMap<string, readonly ParameterRule[]>>();

/** The list's parameter rules for this tool, in list order. */
export function parameterRulesFor(rules: readonly PermissionRule[], toolName: string): readonly ParameterRule[] {
  if (rules.length === 0) return NONE;
  let byTool = parsedLists.get(rules);
  if (byTool === undefined) {
    byTool = parseList(rules);
    // Only a list that cannot change (nor its rules) may be answered from memory.
    if (Object.isFrozen(rules) && rules.every(isFrozenRule)) parsedLists.set(rules, byTool);
  }
  return byTool.get(toolName) ?? NONE;
}

function parseList(rules: readonly PermissionRule[]): Map<string, ParameterRule[]> {
  const byTool = new Map<string, ParameterRule[]>();
  for (const rule of rules) {
    const content = rule.ruleValue.ruleContent;
    if (content === undefined) continue;
    const m = PARAMETER_RULE.exec(content);
    if (!m || PRIMARY_FIELDS.has(m[1]!)) continue;
    const list = byTool.get(rule.ruleValue.toolName) ?? [];
    list.push({ rule, field: m[1]!, pattern: m[2]!, matches: wildcardMatcher(m[2]!) });
    byTool.set(rule.ruleValue.toolName, list);
  }
  return byTool;
}

function isFrozenRule(rule: PermissionRule): boolean {
  return Object.isFrozen(rule) && Object.isFrozen(rule.ruleValue);
}

/** `*` matches anything (newlines included); everything else literally. */
export function wildcardMatcher(pattern: string): (value: string) => boolean {
  if (!pattern.includes('*')) return (value) => value === pattern;
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
  return (value) => re.test(value);
}
