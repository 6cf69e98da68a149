/**
 * The rules a `toolgate check` request gives (`"rules": [{ source, behavior, rule, root }]`), read into permission
 * rules. A policy suite's lines each bring a rule set of their own, mostly the same rules again: each rule is parsed
 * and validated once per content and the frozen result shared by every context that names it (a line's set is an
 * assembly of rules already read). Parsing and validating are pure functions of what the key holds — the source, the
 * behaviour, the root and the rule's exact text — so a shared rule is the rule a fresh parse would give; nothing about
 * the filesystem is kept here (a pattern's real locations are compiled and re-checked per decision: paths.ts).
 */
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { PermissionRule } from '../../tool/permission-types.js';
import { PERMISSION_RULE_SOURCES } from '../../tool/permission-types.js';
import { tryParsePermissionRule, validatePermissionRule } from '../../permissions/permission-rule.js';

/** A request that cannot be decided as given (a bad field, a rule that cannot be read): its error, no decision. */
export class CheckRequestError extends Error {}

const SOURCES: ReadonlySet<string> = new Set(PERMISSION_RULE_SOURCES);
/** Longer rule texts are read afresh each time: the cache's memory stays bounded by entries × this. */
const MAX_CACHED_RULE_CHARS = 2048;

/**
 * Rules read before, by everything reading one depends on. Only rules that read without an error are kept: an error
 * names the rule's place in its list, and is reported afresh.
 */
export class RequestRules {
  /** Made at the first request that brings rules: a single `check` or `hook` never does (start-up, ~0.7 ms). */
  #known: LRUCache<string, PermissionRule> | undefined;

  /** The rules of a request's `rules` field, in order. Throws CheckRequestError for the first one that cannot be read. */
  parse(value: unknown): PermissionRule[] {
    if (!Array.isArray(value)) throw new CheckRequestError('"rules" must be an array');
    const known = (this.#known ??= new LRUCache<string, PermissionRule>({ max: 4096 }));
    const out: PermissionRule[] = new Array<PermissionRule>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const key = ruleKey(item);
      let rule = key === undefined ? undefined : known.get(key);
      if (rule === undefined) {
        rule = readRule(item, `rules[${i}]`);
        if (key !== undefined) known.set(key, rule);
      }
      out[i] = rule;
    }
    return out;
  }
}

/**
 * The key a rule is kept by: its source and behaviour (each one of a fixed set of words without `|`), its root
 * (length-prefixed) and its text last, so no value can spell another's key. Undefined for an item that is not a
 * well-typed rule (read afresh: the error it gets names its place) or whose text is too long to keep.
 */
function ruleKey(item: unknown): string | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const { source, behavior, rule, root } = item as Record<string, unknown>;
  if (typeof source !== 'string' || !SOURCES.has(source)) return undefined;
  if (behavior !== 'allow' && behavior !== 'deny' && behavior !== 'ask') return undefined;
  if (typeof rule !== 'string' || rule.length > MAX_CACHED_RULE_CHARS) return undefined;
  if (root !== undefined && (typeof root !== 'string' || root.length > MAX_CACHED_RULE_CHARS)) return undefined;
  return `${source}|${behavior}|${root === undefined ? '-' : `${root.length}:${root}`}|${rule}`;
}

/** One rule read and validated; frozen, with its value, so that every context sharing it shares it unchanged. */
function readRule(item: unknown, where: string): PermissionRule {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new CheckRequestError(`${where} must be an object`);
  const { source, behavior, rule, root } = item as Record<string, unknown>;
  if (typeof source !== 'string' || !SOURCES.has(source)) {
    throw new CheckRequestError(`${where}.source must be one of ${PERMISSION_RULE_SOURCES.join(', ')}`);
  }
  if (behavior !== 'allow' && behavior !== 'deny' && behavior !== 'ask') throw new CheckRequestError(`${where}.behavior must be allow, deny or ask`);
  if (typeof rule !== 'string') throw new CheckRequestError(`${where}.rule must be a string`);
  const parsed = tryParsePermissionRule(rule);
  if (!parsed.ok) throw new CheckRequestError(`${where}: ${parsed.error.message}`);
  const problems = validatePermissionRule(parsed.value, behavior).errors;
  if (problems.length > 0) throw new CheckRequestError(`${where}: ${problems.join('; ')} in rule ${JSON.stringify(rule)}`);
  if (root !== undefined && (typeof root !== 'string' || !path.isAbsolute(root))) throw new CheckRequestError(`${where}.root must be an absolute path`);
  return Object.freeze({
    source: source as PermissionRule['source'],
    ruleBehavior: behavior,
    ruleValue: Object.freeze(parsed.value),
    ...(root !== undefined ? { root: path.resolve(root) } : {}),
  });
}
