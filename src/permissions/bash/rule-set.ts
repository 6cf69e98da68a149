/**
 * The Bash rules of a permission context and matching them against an analysed command: definite matches, and
 * "possible" ones where a non-literal word or an unanalysable construct could make a deny/ask rule match.
 */
import type { PermissionRule } from '../../tool/permission-types.js';
import type { BashAnalysis, SimpleCommand } from './types.js';
import { compileBashRuleFor, matchCompiled, matchFlagsCompiled, mayMatchCompiled, type CompiledRule, type MatchWord } from './rule-match.js';
import { denyViews } from './wrappers.js';
import { naiveWords, rawSegments } from './raw-split.js';

export interface BashRule {
  readonly rule: PermissionRule;
  readonly content: string | undefined;
  /** `Bash(npm test)` / `Bash`. */
  readonly text: string;
  /** Compiled content (undefined for a bare `Bash`). */
  readonly compiled: CompiledRule | undefined;
  /** Content trimmed, as the whole command is compared with it. */
  readonly trimmed: string | undefined;
  /** Written with shell operators (`curl * | sh`): such a rule can only match the command as a whole. */
  readonly operators: boolean;
  /** The content's words, quotes removed (the flags a rule names itself). */
  readonly words: readonly string[];
}

/**
 * The Bash rules of one rule list, compiled once per list: a context's lists are immutable, and each decision asks
 * for all three. The snapshot guards against a list that was changed in place anyway.
 */
const compiledLists = new WeakMap<readonly PermissionRule[], { readonly snapshot: readonly PermissionRule[]; readonly key: string; readonly rules: readonly BashRule[] }>();

/** The shell rules of a list: those naming any of `toolNames` (`Bash`, or a custom shell tool's name). */
export function bashRules(rules: readonly PermissionRule[], toolNames: readonly string[] = BASH_ONLY): readonly BashRule[] {
  const key = toolNames.join('\u0000');
  const hit = compiledLists.get(rules);
  if (hit && hit.key === key && hit.snapshot.length === rules.length && hit.snapshot.every((r, i) => r === rules[i])) return hit.rules;
  const out: BashRule[] = [];
  for (const rule of rules) {
    const toolName = rule.ruleValue.toolName;
    if (!toolNames.includes(toolName)) continue;
    const content = rule.ruleValue.ruleContent;
    out.push({
      rule,
      content,
      text: content === undefined ? toolName : `${toolName}(${content})`,
      compiled: content === undefined ? undefined : compileBashRuleFor(content, rule.ruleBehavior),
      trimmed: content?.trim(),
      operators: content !== undefined && /[|&;]/.test(content),
      words: content === undefined ? [] : content.split(/\s+/).map((w) => w.replace(/:\*$/, '').replace(/^['"]|['"]$/g, '')).filter(Boolean),
    });
  }
  compiledLists.set(rules, { snapshot: [...rules], key, rules: out });
  return out;
}

const BASH_ONLY: readonly string[] = ['Bash'];

export interface RuleMatch {
  readonly rule: BashRule;
  /** The subcommand (or raw piece) that matched. */
  readonly subcommand: string;
}

const literal = (value: string): MatchWord => ({ value, literal: true });

/** Argv views of a raw (unparsed) piece of text, following literal code strings naively too. */
function rawViews(text: string, depth = 0): (readonly MatchWord[])[] {
  const views: (readonly MatchWord[])[] = [];
  for (const segment of rawSegments(text)) {
    const dv = denyViews(naiveWords(segment).map(literal));
    views.push(...dv.views);
    if (depth < 3) for (const c of dv.code) views.push(...rawViews(c.code, depth + 1));
  }
  return views;
}

function viewsOf(analysis: BashAnalysis): { text: string; views: readonly (readonly MatchWord[])[] }[] {
  const out = analysis.subcommands.map((s: SimpleCommand) => ({ text: s.text, views: s.denyWords }));
  if (!analysis.ok) {
    for (const segment of analysis.rawSegments) out.push({ text: segment, views: rawViews(segment) });
  }
  return out;
}

/**
 * Deny/ask matching. `definite`: the rule matches a subcommand (through wrappers, flags in any order, raw pieces
 * of an unparsable command). `possible`: only a non-literal word stands between the rule and a match.
 */
export function matchDenyLike(rules: readonly BashRule[], analysis: BashAnalysis, whole: string): { definite?: RuleMatch; possible?: RuleMatch } {
  if (rules.length === 0) return {};
  const pieces = viewsOf(analysis);
  let possible: RuleMatch | undefined;
  let wholeWords: MatchWord[] | undefined;
  for (const rule of rules) {
    const compiled = rule.compiled;
    if (compiled === undefined) return { definite: { rule, subcommand: whole } };
    if (compiled.kind === 'any' || rule.trimmed === whole) return { definite: { rule, subcommand: whole } };
    // A rule written with operators (`curl * | bash`) can only match the command as a whole.
    if (rule.operators && matchCompiled(compiled, (wholeWords ??= whole.split(/\s+/).map(literal)))) {
      return { definite: { rule, subcommand: whole } };
    }
    for (const piece of pieces) {
      for (const view of piece.views) {
        if (matchCompiled(compiled, view) || matchFlagsCompiled(compiled, view)) return { definite: { rule, subcommand: piece.text } };
        if (!possible && view.some((w) => !w.literal) && mayMatchCompiled(compiled, view)) possible = { rule, subcommand: piece.text };
      }
    }
  }
  return { possible };
}
