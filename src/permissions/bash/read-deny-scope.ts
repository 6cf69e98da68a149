/**
 * What the Read deny rules of a context say about a directory: which rules could match something inside it (a
 * pattern anchored inside it, or one that floats), and whether a denied file has hard links that could be anywhere.
 */
import type { DecisionTrace, ToolPermissionContext } from '../../tool/permission-types.js';
import { statIfExists } from '../observed-fs.js';
import { patternRemainders, type CompiledPathPattern } from '../path-pattern.js';
import { formatPermissionRule } from '../permission-rule.js';
import { literalDenyFiles, readDenyPatterns, type LiteralDenyFile } from '../paths.js';
import { realLocation } from './paths.js';

export interface ReadDenyScope {
  readonly patterns: readonly CompiledPathPattern[];
  /** Remainders by directory text: a pure function of the patterns, so kept for the context's lifetime (bounded). */
  readonly remainderCache: Map<string, readonly (readonly (readonly string[])[])[]>;
  /** The files the deny rules name literally; whether one has other names is asked per decision (`hardLinkedDenied`). */
  readonly literals: readonly LiteralDenyFile[];
}

export interface InsideHit {
  readonly pattern: CompiledPathPattern;
  /** What is left of the pattern below the directory (non-empty; `**` segments kept). */
  readonly remainders: readonly (readonly string[])[];
}

/** By the compiled patterns (paths.ts keeps them while the real paths they were compiled at still hold). */
const scopes = new WeakMap<readonly CompiledPathPattern[], ReadDenyScope>();

/** The Read deny view of a context; undefined when it has no Read deny rule (the fast path). */
export function readDenyScope(ctx: ToolPermissionContext): ReadDenyScope | undefined {
  const patterns = readDenyPatterns(ctx);
  if (patterns.length === 0) return undefined;
  let scope = scopes.get(patterns);
  if (scope === undefined) scopes.set(patterns, (scope = { patterns, remainderCache: new Map(), literals: literalDenyFiles(patterns) }));
  return scope;
}

/**
 * A file a deny rule names literally that has other names now (hard links: they may sit in any directory). Asked at
 * each decision, not kept with the scope: a link made after the context (by a program the engine never saw) counts.
 */
export function hardLinkedDenied(scope: ReadDenyScope): LiteralDenyFile | undefined {
  for (const file of scope.literals) {
    try {
      const st = statIfExists(file.path);
      if (st?.isFile() && st.nlink > 1) return file;
    } catch {
      // unreadable: nothing to learn about its links
    }
  }
  return undefined;
}

/** The deny patterns that could match a path strictly inside `absDir` (as written or at its real location). */
export function denyPatternsInside(scope: ReadDenyScope, absDir: string, realCache?: Map<string, string>): InsideHit[] {
  const real = realLocation(absDir, realCache);
  const forms = (real === absDir ? [absDir] : [absDir, real]).map((form) => remaindersOf(scope, form));
  const hits: InsideHit[] = [];
  scope.patterns.forEach((pattern, i) => {
    const remainders: (readonly string[])[] = [];
    for (const form of forms) {
      for (const r of form[i]!) if (!remainders.some((x) => x.join('/') === r.join('/'))) remainders.push(r);
    }
    if (remainders.length > 0) hits.push({ pattern, remainders });
  });
  return hits;
}

/** For each pattern, its non-empty remainders below the directory `form`. */
function remaindersOf(scope: ReadDenyScope, form: string): readonly (readonly (readonly string[])[])[] {
  const hit = scope.remainderCache.get(form);
  if (hit) return hit;
  const names = form.split('/').filter((s) => s !== '');
  const out = scope.patterns.map((p) => patternRemainders(p.segments, names, p.caseInsensitive).filter((r) => r.length > 0));
  if (scope.remainderCache.size >= 512) scope.remainderCache.clear();
  scope.remainderCache.set(form, out);
  return out;
}

/** The name an exclusion must leave out to cover a remainder: its last real segment, and whether it is a folder. */
export function excludedName(remainder: readonly string[]): { segment: string; dir: boolean } | undefined {
  for (let i = remainder.length - 1; i >= 0; i--) {
    const seg = remainder[i]!;
    if (seg !== '**') return { segment: seg, dir: i < remainder.length - 1 };
  }
  return undefined;
}

export const ruleText = (pattern: CompiledPathPattern): string => formatPermissionRule(pattern.rule.ruleValue);

/** An askRule trace naming a Read deny rule: bypassPermissions cannot pass it, and no mode turns it into an allow. */
export function askRuleTrace(pattern: CompiledPathPattern, reason: string, subcommand: string): DecisionTrace {
  const r = pattern.rule;
  return { layer: 'askRule', reason, rule: ruleText(pattern), source: r.source, ...(r.sourceFile ? { sourceFile: r.sourceFile } : {}), subcommand };
}
