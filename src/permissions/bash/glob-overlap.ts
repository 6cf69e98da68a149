/**
 * Could a shell glob match a path a Read deny pattern matches — whatever files exist? Asked when what exists now
 * is not what the glob will meet: another part of the same command may create files first (`git stash pop; cat .e*`).
 * Both are read as languages of names and intersected, segment by segment; where this reader cannot tell (a
 * bracket class against a bracket class, `..` after a glob), the answer is yes, so the caller asks.
 */
import { segmentToRegex, type CompiledPathPattern } from '../path-pattern.js';
import { bracketRegex } from './glob-expand.js';
import { denyPatternsInside, type ReadDenyScope } from './read-deny-scope.js';

type Token = { readonly star: true } | { readonly star: false; readonly lit?: string; readonly cls?: RegExp };

const STAR: Token = { star: true };

/** A bash glob segment (quote removal done: no escapes) or a rule's segment (`\x` is a literal x) as tokens. */
function tokens(seg: string, escapes: boolean): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (escapes && c === '\\' && i + 1 < seg.length) out.push({ star: false, lit: seg[++i]! });
    else if (c === '*') {
      if (out[out.length - 1] !== STAR) out.push(STAR);
    } else if (c === '?') out.push({ star: false });
    else if (c === '[') {
      const b = escapes ? ruleClass(seg, i) : bracketRegex(seg, i);
      if (b === null) out.push({ star: false, lit: '[' });
      else if (b === 'unsupported') out.push({ star: false });
      else {
        out.push({ star: false, cls: b.regex });
        i = b.end;
      }
    } else out.push({ star: false, lit: c });
  }
  return out;
}

/** A bracket class of a rule's segment, read as path-pattern.ts reads it. */
function ruleClass(seg: string, start: number): { regex: RegExp; end: number } | null | 'unsupported' {
  let j = start + 1;
  if (seg[j] === '!' || seg[j] === '^') j++;
  if (seg[j] === ']') j++;
  for (; j < seg.length; j++) {
    if (seg[j] === ']') {
      try {
        return { regex: new RegExp(`^${segmentToRegex(seg.slice(start, j + 1))}$`, 'u'), end: j };
      } catch {
        return 'unsupported';
      }
    }
  }
  return null;
}

const sameChar = (a: string, b: string, ci: boolean): boolean => a === b || (ci && a.toLowerCase() === b.toLowerCase());

/** Can one character be matched by both tokens (neither a star)? Two classes: assumed so. */
function charsMeet(a: Token, b: Token, ci: boolean): boolean {
  if (a.star || b.star) return true;
  if (a.lit !== undefined && b.lit !== undefined) return sameChar(a.lit, b.lit, ci);
  const lit = a.lit ?? b.lit;
  const cls = a.lit !== undefined ? b.cls : b.lit !== undefined ? a.cls : undefined;
  if (lit !== undefined && cls !== undefined) return cls.test(lit) || (ci && (cls.test(lit.toLowerCase()) || cls.test(lit.toUpperCase())));
  return true;
}

/**
 * Is there a name that the bash glob segment `glob` and the rule segment `rule` both match? Bash's glob never
 * matches a leading `.` unless the segment itself starts with one (dotglob is off).
 */
export function segmentsMeet(glob: string, rule: string, caseInsensitive: boolean): boolean {
  const a = tokens(glob, false);
  const b = tokens(rule, true);
  const aDot = a[0] !== undefined && !a[0].star && a[0].lit === '.';
  const bFirst = b[0];
  if (!aDot && bFirst !== undefined && !bFirst.star && bFirst.lit === '.') return false;
  // Breadth-first over pairs of positions: can both token lists be consumed by one name?
  const seen = new Set<number>();
  const width = b.length + 1;
  const queue: number[] = [0];
  seen.add(0);
  const visit = (i: number, j: number): void => {
    const k = i * width + j;
    if (!seen.has(k)) {
      seen.add(k);
      queue.push(k);
    }
  };
  while (queue.length > 0) {
    const k = queue.pop()!;
    const i = Math.floor(k / width);
    const j = k % width;
    if (i === a.length && j === b.length) return true;
    const x = a[i];
    const y = b[j];
    if (x?.star) {
      visit(i + 1, j);
      if (y !== undefined && !y.star) visit(i, j + 1);
    }
    if (y?.star) {
      visit(i, j + 1);
      if (x !== undefined && !x.star) visit(i + 1, j);
    }
    if (x !== undefined && y !== undefined && !x.star && !y.star && charsMeet(x, y, caseInsensitive)) visit(i + 1, j + 1);
  }
  return false;
}

/**
 * Could a path whose segments below some directory match `glob` (bash glob segments) also match `rule` (what is
 * left of a deny pattern below that directory: segments, `**` spanning any number)? A path inside what the rule
 * names counts (a pattern that names a directory covers everything in it).
 */
export function globMeetsRule(glob: readonly string[], rule: readonly string[], caseInsensitive: boolean): boolean {
  if (glob.some((s) => s === '..' || s === '.')) return true;
  const seen = new Set<string>();
  const stack: [number, number][] = [[0, 0]];
  while (stack.length > 0) {
    const [i, j] = stack.pop()!;
    const key = `${i},${j}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (j === rule.length) return true;
    const r = rule[j]!;
    if (r === '**') {
      stack.push([i, j + 1]);
      if (i < glob.length) stack.push([i + 1, j]);
      continue;
    }
    if (i < glob.length && segmentsMeet(glob[i]!, r, caseInsensitive)) stack.push([i + 1, j + 1]);
  }
  return false;
}

/**
 * The deny pattern that a glob — `rest` (its segments from the first one with a wildcard) below one of `dirs` — could
 * match a path of, whatever exists now; undefined when none could. `deniedDir`: the pattern that denies a directory
 * itself (then everything in it), if one does.
 */
export function patternGlobMayMeet(
  scope: ReadDenyScope,
  dirs: readonly string[],
  rest: readonly string[],
  realCache: Map<string, string>,
  deniedDir: (dir: string) => CompiledPathPattern | undefined,
): CompiledPathPattern | undefined {
  for (const dir of dirs) {
    const hit = deniedDir(dir) ?? denyPatternsInside(scope, dir, realCache).find((h) => h.remainders.some((r) => globMeetsRule(rest, r, h.pattern.caseInsensitive)))?.pattern;
    if (hit !== undefined) return hit;
  }
  return undefined;
}
