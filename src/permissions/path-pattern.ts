/**
 * Gitignore-style path patterns of `Read(…)` / `Edit(…)` rules, compiled to absolute-path matchers.
 *
 * Anchoring (Claude Code's documented forms):
 *   `//abs/path` → `/abs/path`;  `~/path` → home;  `~user/path` → that user's home (passwd);
 *   `/path` → the rule's root (its settings' project dir…);
 *   `./path` or `dir/path` → the working directory;  `name` (no slash) → any depth.
 * `*` and `?` never cross `/`, `**` spans whole segments, a pattern that names a directory covers everything in it.
 *
 * Deny and ask patterns are deliberately broader than allow patterns (fail closed): they compare case-insensitively,
 * a slash-less pattern matches at any depth anywhere on disk (not only below the cwd), and a single-segment directory
 * pattern (`secrets/**`) matches that directory at any depth. Where a deny pattern has two readings, both deny:
 * `/path` is the settings root's (Claude Code's documented reading) and also the filesystem's; `dir/file` is the
 * working directory's and also any depth below it; a bare `./.env` is the working directory's and also `.env`
 * anywhere. An allow pattern ending in a wildcard covers one level only
 * (`Edit(/docs/*)` allows docs/a.md, not docs/sub/a.md).
 */
import os from 'node:os';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { PermissionBehavior, PermissionRule, ToolPermissionContext } from '../tool/permission-types.js';
import { resolveRealPath } from './real-path.js';
import { homeOfUser, homeOfUserOrGuess, tildeUser } from './user-home.js';

export interface CompiledPathPattern {
  readonly rule: PermissionRule;
  /** The pattern as written in the rule. */
  readonly pattern: string;
  /** Absolute glob segments (no leading empty segment); `['**', …]` for patterns that float. */
  readonly segments: readonly string[];
  readonly caseInsensitive: boolean;
  /** Tests a normalised absolute path (the path or any of its ancestors named by the pattern). */
  readonly regex: RegExp;
  /** `regex.test(p)`, without compiling the regex when the pattern's literal start decides (see PathMatcher). */
  matches(p: string): boolean;
}

const GLOB_CHARS = /[*?[\\]/;

/** The folder `/path` patterns of this rule are anchored at. */
export function ruleRoot(rule: PermissionRule, ctx: ToolPermissionContext): string {
  if (rule.root !== undefined) return rule.root;
  const home = ctx.homeDir ?? os.homedir();
  switch (rule.source) {
    case 'projectSettings':
    case 'localSettings':
    case 'policySettings':
      return ctx.projectDir;
    case 'userSettings':
      // Claude Code documents `/path` in user settings as relative to the settings file's folder (`~/.claude`).
      return rule.sourceFile !== undefined ? path.dirname(rule.sourceFile) : path.join(home, '.claude');
    case 'flagSettings':
      return rule.sourceFile !== undefined ? path.dirname(rule.sourceFile) : ctx.cwd;
    default:
      return ctx.cwd;
  }
}

/** Turns a rule's pattern into absolute glob segments. */
export function anchorPattern(pattern: string, behavior: PermissionBehavior, root: string, cwd: string, homeDir: string): string[] {
  return anchorAt(pattern, behavior, () => root, () => cwd, () => homeDir);
}

/**
 * anchorPattern with each folder asked for only when the pattern is anchored at it: a folder's real location is a
 * filesystem question, and a compilation that asked it depends on its answer (paths.ts asks it again at each use).
 */
function anchorAt(pattern: string, behavior: PermissionBehavior, root: () => string, cwd: () => string, homeDir: () => string): string[] {
  let p = pattern.normalize('NFC');
  // A trailing slash (gitignore: "directories only") is treated as naming the directory and its contents.
  while (p.length > 1 && p.endsWith('/') && !p.endsWith('\\/')) p = p.slice(0, -1);
  let base: string | undefined;
  let rest: string;
  if (p.startsWith('//')) {
    base = '/';
    rest = p.slice(2);
  } else if (p === '~' || p.startsWith('~/')) {
    base = homeDir();
    rest = p.slice(2);
  } else if (tildeUser(p) !== undefined) {
    // `~user/…`: that user's home (see compilePathPatternVariants for a user this machine does not know).
    const user = tildeUser(p)!;
    base = homeOfUserOrGuess(user, homeDir());
    rest = p.slice(user.length + 2);
  } else if (p.startsWith('/')) {
    base = root();
    rest = p.slice(1);
  } else if (p.startsWith('./') || p === '.' || p.startsWith('../') || p === '..') {
    base = cwd();
    rest = p;
  } else {
    const segs = p.split('/');
    const floats =
      segs.length === 1 || (behavior !== 'allow' && segs.length === 2 && segs[1] === '**' && !GLOB_CHARS.test(segs[0]!));
    if (floats) {
      // Deny/ask: anywhere on disk; allow: at any depth below the working directory.
      const floatBase = behavior === 'allow' ? splitAbs(cwd()) : [];
      return [...floatBase, '**', ...segs];
    }
    base = cwd();
    rest = p;
  }
  const segs = rest.split('/').filter((s) => s !== '' && s !== '.');
  // Resolve the literal leading segments (including `..`) against the base; globs stay as written.
  const literal: string[] = [];
  let i = 0;
  for (; i < segs.length; i++) {
    const s = segs[i]!;
    if (GLOB_CHARS.test(s)) break;
    literal.push(s);
  }
  const resolved = path.resolve(base, ...literal);
  return [...splitAbs(resolved), ...segs.slice(i)];
}

function splitAbs(abs: string): string[] {
  return abs.split('/').filter((s) => s !== '');
}

export function compilePathPattern(
  rule: PermissionRule,
  pattern: string,
  ctx: ToolPermissionContext,
): CompiledPathPattern {
  const home = ctx.homeDir ?? os.homedir();
  return compileSegments(rule, pattern, anchorPattern(pattern, rule.ruleBehavior, ruleRoot(rule, ctx), ctx.cwd, home));
}

/**
 * The pattern as written, plus the same pattern anchored at the real location of its base folder (cwd, project root,
 * home, rule root) when that passes through a symlink (`/tmp` → `/private/tmp`, a linked checkout): paths are compared
 * in both forms, so a rule must be too, or a deny written against the link misses the real path. Deny and ask
 * patterns also get their whole fixed prefix resolved (broader is safe for them); allow patterns never do, so an
 * allow naming a link inside the project does not extend to where the link points.
 */
export function compilePathPatternVariants(
  rule: PermissionRule,
  pattern: string,
  ctx: ToolPermissionContext,
  /** Where a folder really is (a caller that keeps the result asks through its own, to know what it depended on). */
  real: (p: string) => string = realOrSelf,
): CompiledPathPattern[] {
  const home = ctx.homeDir ?? os.homedir();
  // An allow rule for the home of a user the passwd database does not know allows nothing (deny and ask rules guess
  // where that home would be, which is wider than nothing).
  const user = tildeUser(pattern);
  if (user !== undefined && rule.ruleBehavior === 'allow' && homeOfUser(user) === undefined) return [];
  const out = [compilePathPattern(rule, pattern, ctx)];
  const add = (segments: readonly string[]) => {
    if (!out.some((o) => sameMatch(o.segments, segments))) out.push(compileSegments(rule, pattern, segments));
  };
  const atReal = (p: string) => anchorAt(p, rule.ruleBehavior, () => real(ruleRoot(rule, ctx)), () => real(ctx.cwd), () => real(home));
  add(atReal(pattern));
  // A deny or ask pattern with two readings denies by both (documented above): `/secrets/**` also from the
  // filesystem root, `config/keys.json` also at any depth below the working directory.
  if (rule.ruleBehavior !== 'allow') {
    for (const alt of alternateReadings(pattern)) {
      add(anchorPattern(alt, rule.ruleBehavior, ruleRoot(rule, ctx), ctx.cwd, home));
      add(atReal(alt));
    }
  }
  if (rule.ruleBehavior !== 'allow') {
    for (const variant of [...out]) {
      const segs = variant.segments;
      let n = 0;
      while (n < segs.length && !GLOB_CHARS.test(segs[n]!) && segs[n] !== '**') n++;
      if (n > 0) add([...real(`/${segs.slice(0, n).join('/')}`).split('/').filter((x) => x !== ''), ...segs.slice(n)]);
    }
  }
  return out;
}

/** Two compilations of one rule that match the same paths (the same segments: case and level follow the rule). */
function sameMatch(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function realOrSelf(p: string): string {
  const r = resolveRealPath(p);
  return r.ok ? r.path : p;
}

/**
 * The other readings of a deny/ask pattern a person may have meant. A bare `./.env` reads as the working directory's
 * `.env` and as `.env` (a name, at any depth: the `./` only saying "relative", as the documentation's "`path` or
 * `./path`" has it): the wider wins, so `src/.env` is denied too. With a slash after the name (`./src/x`) the
 * pattern is anchored either way.
 */
function alternateReadings(pattern: string): string[] {
  if (pattern.startsWith('/') && !pattern.startsWith('//')) return [`/${pattern}`];
  if (pattern.startsWith('./')) {
    const rest = pattern.replace(/^(\.\/)+/, '');
    return rest !== '' && !rest.includes('/') && rest !== '..' ? [rest] : [];
  }
  if (pattern.startsWith('../') || pattern.startsWith('~') || pattern.startsWith('**/')) return [];
  const segs = pattern.split('/').filter((x) => x !== '');
  if (segs.length < 2 || (segs.length === 2 && segs[1] === '**')) return [];
  return [`**/${pattern}`];
}

function compileSegments(rule: PermissionRule, pattern: string, segments: readonly string[]): CompiledPathPattern {
  const caseInsensitive = rule.ruleBehavior !== 'allow';
  // A pattern naming a directory covers what is in it — except, for allow rules, one that ends in a wildcard:
  // `Edit(/docs/*)` covers the entries of docs/ only, one level (deny and ask keep the reading that covers more).
  const last = segments[segments.length - 1];
  const oneLevel = rule.ruleBehavior === 'allow' && last !== undefined && last !== '**' && /[*?[]/.test(last);
  const matcher = matcherFor(segments, caseInsensitive, oneLevel);
  return {
    rule,
    pattern,
    segments,
    caseInsensitive,
    get regex() {
      return matcher.regex;
    },
    matches: (p) => matcher.matches(p),
  };
}

/**
 * Matchers by what they match (segments, case, one level), shared by every rule and context that compiles to the
 * same segments: a batch whose lines each bring their own rules compiles mostly the same patterns again, and V8
 * compiles a regex at its first use — for a case-insensitive Unicode one, hundreds of microseconds. Pure functions
 * of their key (no filesystem fact), so sharing them carries nothing from one decision to the next. Bounded. Made
 * at the first match: a cache of 4,096 slots costs ~0.7 ms to make, and a hook or check whose rules name no path
 * never asks it (docs/architecture.md, Start-up).
 */
let matchers: LRUCache<string, PathMatcher> | undefined;

function matcherFor(segments: readonly string[], caseInsensitive: boolean, oneLevel: boolean): PathMatcher {
  const key = `${caseInsensitive ? 'i' : 's'}${oneLevel ? '1' : '*'}${JSON.stringify(segments)}`;
  const cache = (matchers ??= new LRUCache<string, PathMatcher>({ max: 4096 }));
  let m = cache.get(key);
  if (m === undefined) cache.set(key, (m = new PathMatcher(segments, caseInsensitive, oneLevel)));
  return m;
}

// Printable ASCII: no character that case-folds into ASCII from outside it (ſ, K), no line terminator (which `.`
// does not match).
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * One pattern's regex, and a cheaper answer for what its leading literal segments decide. Every match starts with
 * the literal prefix (`/a/b`), followed by `/` or the end: a path that does not is no match. A pattern that is only
 * that prefix and `**` segments (`/a/b/**`, `/a/b`) matches exactly those paths. Exact for printable-ASCII paths and
 * prefixes, compared case-insensitively as ASCII when the regex ignores case (Unicode simple case folding agrees with
 * ASCII lower-casing there); anything else asks the regex, compiled then.
 */
class PathMatcher {
  readonly #segments: readonly string[];
  readonly #caseInsensitive: boolean;
  readonly #oneLevel: boolean;
  /** The literal start (`/a/b`, compared lower-cased when case-insensitive); undefined when there is none to use. */
  readonly #prefix: string | undefined;
  /** True when the prefix and `**` segments are the whole pattern. */
  readonly #prefixOnly: boolean;
  #regex: RegExp | undefined;

  constructor(segments: readonly string[], caseInsensitive: boolean, oneLevel: boolean) {
    this.#segments = segments;
    this.#caseInsensitive = caseInsensitive;
    this.#oneLevel = oneLevel;
    let n = 0;
    while (n < segments.length && segments[n] !== '**' && !GLOB_CHARS.test(segments[n]!)) n++;
    const prefix = `/${segments.slice(0, n).join('/')}`;
    this.#prefix = n > 0 && PRINTABLE_ASCII.test(prefix) ? (caseInsensitive ? prefix.toLowerCase() : prefix) : undefined;
    this.#prefixOnly = !oneLevel && segments.slice(n).every((s) => s === '**');
  }

  get regex(): RegExp {
    if (this.#regex === undefined) {
      let src = '^';
      for (const seg of this.#segments) src += seg === '**' ? '(?:/[^/]+)*' : `/${segmentToRegex(seg)}`;
      src += this.#oneLevel ? '$' : '(?:/.*)?$';
      this.#regex = new RegExp(src, this.#caseInsensitive ? 'iu' : 'u');
    }
    return this.#regex;
  }

  matches(p: string): boolean {
    const prefix = this.#prefix;
    if (prefix === undefined || !PRINTABLE_ASCII.test(p)) return this.regex.test(p);
    const head = p.length > prefix.length ? p.slice(0, prefix.length) : p;
    if ((this.#caseInsensitive ? head.toLowerCase() : head) !== prefix) return false;
    if (p.length > prefix.length && p.charCodeAt(prefix.length) !== 47) return false;
    return this.#prefixOnly || this.regex.test(p);
  }
}

/** One glob segment (no `/`) as a regex fragment: `*` → `[^/]*`, `?` → `[^/]`, `[…]` classes, `\x` escapes. */
export function segmentToRegex(seg: string): string {
  let out = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '\\' && i + 1 < seg.length) {
      out += escapeRegex(seg[++i]!);
    } else if (c === '*') {
      while (seg[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = findClassEnd(seg, i);
      if (end === -1) {
        out += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, end);
      let negate = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negate = true;
        body = body.slice(1);
      }
      body = body.replace(/[\]\\^]/g, (m) => `\\${m}`);
      out += negate ? `[^/${body}]` : `[${body}]`;
      i = end;
    } else {
      out += escapeRegex(c);
    }
  }
  return out;
}

function findClassEnd(seg: string, start: number): number {
  let j = start + 1;
  if (seg[j] === '!' || seg[j] === '^') j++;
  if (seg[j] === ']') j++;
  for (; j < seg.length; j++) if (seg[j] === ']') return j;
  return -1;
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** Whether one glob segment matches one concrete path segment. */
export function segmentMatches(seg: string, name: string, caseInsensitive: boolean): boolean {
  return new RegExp(`^${segmentToRegex(seg)}$`, caseInsensitive ? 'iu' : 'u').test(name.normalize('NFC'));
}

/**
 * The patterns that remain after matching `segments` against the concrete leading path `names` (a glob derivative).
 * An empty remainder means the pattern already covers that path as a whole.
 */
export function patternRemainders(
  segments: readonly string[],
  names: readonly string[],
  caseInsensitive: boolean,
): string[][] {
  let states: (readonly string[])[] = [segments];
  for (const name of names) {
    const next: (readonly string[])[] = [];
    for (const st of states) {
      if (st.length === 0) {
        next.push(st); // already covers an ancestor: covers this too
        continue;
      }
      const head = st[0]!;
      if (head === '**') {
        next.push(st); // `**` absorbs this segment
        for (const r of patternRemainders(st.slice(1), [name], caseInsensitive)) next.push(r);
      } else if (segmentMatches(head, name, caseInsensitive)) {
        next.push(st.slice(1));
      }
    }
    states = dedupe(next);
    if (states.length === 0) break;
  }
  return states.map((s) => [...s]);
}

function dedupe(list: (readonly string[])[]): (readonly string[])[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const k = s.join('/');
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A glob segment made case-insensitive for matchers that have no such flag (ripgrep `--glob`): `a` → `[aA]`. */
export function caseFoldGlob(seg: string): string {
  let out = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '\\' && i + 1 < seg.length) {
      const n = seg[++i]!;
      out += isLetter(n) ? `[${n.toLowerCase()}${n.toUpperCase()}]` : `\\${n}`;
    } else if (c === '[' && findClassEnd(seg, i) !== -1) {
      const end = findClassEnd(seg, i);
      let body = seg.slice(i + 1, end);
      let neg = '';
      if (body.startsWith('!') || body.startsWith('^')) {
        neg = '!';
        body = body.slice(1);
      }
      out += `[${neg}${body}${swapCase(body)}]`;
      i = end;
    } else if (isLetter(c)) {
      out += `[${c.toLowerCase()}${c.toUpperCase()}]`;
    } else if (c === '{' || c === '}' || c === ',') {
      out += `\\${c}`;
    } else {
      out += c;
    }
  }
  return out;
}

function isLetter(c: string): boolean {
  return c.length === 1 && c.toLowerCase() !== c.toUpperCase();
}

function swapCase(s: string): string {
  let out = '';
  for (const c of s) out += c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
  return out;
}
