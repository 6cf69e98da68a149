/**
 * The seeds' `preparePermissionMatcher(input)`: does a rule written in the permission rule language (`Bash(rm *)`,
 * `Read(./.env)`, `WebFetch(domain:x.com)`, `mcp__srv`) cover one call? The engine answers it, from the tool's traits,
 * for every tool (built-in, MCP, an embedder's): a rule matches a call exactly when the same rule, as a deny rule,
 * would deny it — the matcher runs the engine's own deny stage with that one rule. So a hook's `if` and a permission
 * rule with the same text can never disagree, and every spelling the engine sees through for deny rules (`env rm x`,
 * `bash -c 'rm x'`, `cat .e*`) a hook's `if` sees through too.
 *
 * `maybe` is the engine's "cannot rule it out" (a command it cannot parse, a word that only expands at run time, a
 * glob it cannot expand): a deny rule asks then, and a hook's `if` runs (the seeds: fail toward running the check).
 */
import type {
  DecisionTrace,
  PermissionRule,
  PermissionRuleSource,
  ToolPermissionContext,
} from '../tool/permission-types.js';
import { PERMISSION_RULE_SOURCES } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { analysisReady } from './analysis-ready.js';
import { checkToolContent } from './content-check.js';
import { updatePermissionContext } from './permission-context.js';
import { formatPermissionRule, tryParsePermissionRule } from './permission-rule.js';
import { toolMatchesRulePattern } from './tool-rule-match.js';

export type RuleMatchVerdict = 'match' | 'maybe' | 'none';

export interface RuleMatch {
  readonly verdict: RuleMatchVerdict;
  /** The rule as the engine reads it back (`Bash(rm *)`); the text as given when it could not be read. */
  readonly rule: string;
  /** Why, in the engine's words (`matches deny rule Bash(rm *)`, `the command could not be parsed`). */
  readonly reason?: string;
  /** For shell tools: the subcommand (or the view of it) that matched. */
  readonly subcommand?: string;
}

/** Where a rule was written: which settings file, so `/path` rules are anchored where that file's rules are. */
export interface RuleOrigin {
  /** A settings source (`projectSettings`, …); anything else (a plugin's name) reads as `session`. */
  readonly source?: string;
  readonly sourceFile?: string;
  readonly root?: string;
}

/** Matches rule texts against the one call it was prepared for. Never throws. */
export type PermissionMatcher = (rule: string, origin?: RuleOrigin) => RuleMatch;

/**
 * A matcher for this call under this permission context (its cwd, project root, home and working directories anchor
 * path rules; its rules and mode play no part). Async only because a shell tool's commands need the Bash parser,
 * loaded on first use; if it cannot load, every content rule of a shell tool is `maybe`.
 *
 * `tool` may be only a name, for a caller that does not have the tool object: then a rule naming the tool as a whole
 * is told apart, and a content rule naming it (`Bash(rm *)`) cannot be judged without the tool's traits: `maybe`.
 */
export async function preparePermissionMatcher(
  tool: AnyTool | string,
  input: Record<string, unknown>,
  ctx: ToolPermissionContext,
): Promise<PermissionMatcher> {
  if (typeof tool === 'string') return (text) => matchByName(tool, text);
  // Not loaded (or failing to): the analysis fails closed ("cannot parse"), which makes content rules `maybe` below.
  const ready = analysisReady(tool, input);
  if (ready) await ready;
  const base = baseContext(ctx);
  return (text, origin) => {
    try {
      return matchRule(tool, input, base, text, origin);
    } catch (error) {
      return { verdict: 'maybe', rule: text, reason: `the rule could not be checked (${error instanceof Error ? error.message : String(error)})` };
    }
  };
}

/**
 * Contexts are immutable and a session decides many calls against one: the rule-free view of a context, and the
 * one-rule contexts built on it, are kept (so each rule's compiled paths and commands are too).
 */
interface Base {
  readonly ctx: ToolPermissionContext;
  readonly withRule: Map<string, ToolPermissionContext>;
}
const bases = new WeakMap<ToolPermissionContext, Base>();
const MAX_RULES_PER_CONTEXT = 256;

function baseContext(ctx: ToolPermissionContext): Base {
  let base = bases.get(ctx);
  if (base === undefined) {
    base = { ctx: updatePermissionContext(ctx, { mode: 'default', alwaysAllowRules: [], alwaysAskRules: [], alwaysDenyRules: [] }), withRule: new Map() };
    bases.set(ctx, base);
  }
  return base;
}

function contextWithRule(base: Base, text: string, rule: PermissionRule): ToolPermissionContext {
  const key = JSON.stringify([text, rule.source, rule.sourceFile ?? null, rule.root ?? null]);
  let ctx = base.withRule.get(key);
  if (ctx === undefined) {
    ctx = updatePermissionContext(base.ctx, { alwaysDenyRules: [rule] });
    if (base.withRule.size >= MAX_RULES_PER_CONTEXT) base.withRule.clear();
    base.withRule.set(key, ctx);
  }
  return ctx;
}

function matchByName(name: string, text: string): RuleMatch {
  const parsed = tryParsePermissionRule(text);
  if (!parsed.ok) return { verdict: 'maybe', rule: text, reason: `the rule cannot be read: ${parsed.error.problem}` };
  const written = formatPermissionRule(parsed.value);
  if (toolMatchesRulePattern({ name }, parsed.value)) return { verdict: 'match', rule: written, reason: `${name} is named by ${written}` };
  if (parsed.value.ruleContent !== undefined && parsed.value.toolName === name) {
    return { verdict: 'maybe', rule: written, reason: `${name}'s traits are unknown here, so its content cannot be judged` };
  }
  return { verdict: 'none', rule: written };
}

function ruleSource(source: string | undefined): PermissionRuleSource {
  return source !== undefined && (PERMISSION_RULE_SOURCES as readonly string[]).includes(source) ? (source as PermissionRuleSource) : 'session';
}

function matchRule(tool: AnyTool, input: Record<string, unknown>, base: Base, text: string, origin: RuleOrigin | undefined): RuleMatch {
  const parsed = tryParsePermissionRule(text);
  if (!parsed.ok) return { verdict: 'maybe', rule: text, reason: `the rule cannot be read: ${parsed.error.problem}` };
  const rule: PermissionRule = {
    source: ruleSource(origin?.source),
    ruleBehavior: 'deny',
    ruleValue: parsed.value,
    ...(origin?.sourceFile !== undefined ? { sourceFile: origin.sourceFile } : {}),
    ...(origin?.root !== undefined ? { root: origin.root } : {}),
  };
  const written = formatPermissionRule(parsed.value);
  if (toolMatchesRulePattern(tool, parsed.value, true)) return { verdict: 'match', rule: written, reason: `${tool.name} is named by ${written}` };
  const ctx = contextWithRule(base, text, rule);
  const result = checkToolContent(tool, input, ctx);
  const trace: DecisionTrace | undefined = result.decisionReason;
  const found = { rule: written, ...(trace?.reason !== undefined ? { reason: trace.reason } : {}), ...(trace?.subcommand !== undefined ? { subcommand: trace.subcommand } : {}) };
  // With this one deny rule and nothing else, a deny is the rule matching; an ask that names a rule is the engine
  // unable to rule it out. Any other ask (a write outside the working directories) is not about the rule.
  if (result.behavior === 'deny') return { verdict: 'match', ...found };
  if (result.behavior === 'ask' && (trace?.layer === 'askRule' || trace?.rule !== undefined)) return { verdict: 'maybe', ...found };
  return { verdict: 'none', rule: written };
}
