/**
 * Path permissions for file tools and for the paths a Bash command reads or writes.
 *
 * Order for one path: deny rules (Read denies also block writes) → ask rules → plan mode (writes) → protected paths
 * (writes; skipped in bypassPermissions) → bypassPermissions → allow rules → working directories (reads inside are
 * free, acceptEdits allows writes inside, anything outside asks). Every check runs on the path as given AND on its real
 * path: a deny on either denies, an allow needs both.
 */
import { fsMemoScope, realpathNative, withFsMemo } from './observed-fs.js';
import type fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { PathChecks } from '../tool/path-checks.js';
import type {
  DecisionTrace,
  PermissionDenyDecision,
  PermissionRule,
  PermissionResult,
  ToolPermissionContext,
} from '../tool/permission-types.js';
import { deniedIdentities, identityKey } from './denied-identities.js';
import { caseFoldGlob, compilePathPatternVariants, patternRemainders, type CompiledPathPattern } from './path-pattern.js';
import { formatPermissionRule } from './permission-rule.js';
import { protectedPathReason } from './protected-paths.js';
import { statIfExists } from './observed-fs.js';
import { resolveRealPath } from './real-path.js';
import { homeOfUserOrGuess, tildeUser } from './user-home.js';

/**
 * Version-control metadata folders: never searched (their objects are noise and blow through budgets) — by the
 * search tools and by `toolgate hook`'s look at what a host's search would read.
 */
export const VCS_DIRECTORIES = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'] as const;

export type PathAccessKind = 'read' | 'write';

/** `~`, `~/x`, relative, `..`, `//`, `./` and trailing `/` → one absolute, normalised path. */
export function expandPath(p: string, cwd: string, homeDir?: string): string {
  let s = p;
  if (s === '~') s = homeDir ?? os.homedir();
  else if (s.startsWith('~/')) s = (homeDir ?? os.homedir()) + s.slice(1);
  else {
    // `~user/…` is that user's home (the passwd database), never a folder of the working directory.
    const user = tildeUser(s);
    if (user !== undefined) s = homeOfUserOrGuess(user, homeDir ?? os.homedir()) + s.slice(user.length + 1);
  }
  return path.isAbsolute(s) ? resolveAbsolute(s) : path.resolve(cwd, s);
}

// A `//`, `.` or `..` segment, or a trailing `/`: what path.resolve changes in an absolute POSIX path.
const NOT_NORMAL = /\/\.{0,2}(?:\/|$)/;

/** path.resolve of an absolute path, without its cost (most of a microsecond, several per decision) when it is normal already. */
function resolveAbsolute(p: string): string {
  return path.sep === '/' && p.charCodeAt(0) === 47 && !NOT_NORMAL.test(p) ? p : path.resolve(p);
}

/** Tools whose path rules govern reads (allow: Read only; deny/ask also the search tools' names). */
const READ_ALLOW_TOOLS = new Set(['Read']);
const READ_RESTRICT_TOOLS = new Set(['Read', 'Glob', 'Grep', 'LSP', 'NotebookRead']);
/** Edit rules cover Write and NotebookEdit; deny/ask written against those names are honoured too (fail closed). */
const WRITE_ALLOW_TOOLS = new Set(['Edit']);
const WRITE_RESTRICT_TOOLS = new Set(['Edit', 'Write', 'NotebookEdit', 'MultiEdit']);

interface CompiledPathRules {
  readonly readDeny: readonly CompiledPathPattern[];
  readonly readAsk: readonly CompiledPathPattern[];
  readonly readAllow: readonly CompiledPathPattern[];
  readonly writeDeny: readonly CompiledPathPattern[];
  readonly writeAsk: readonly CompiledPathPattern[];
  readonly writeAllow: readonly CompiledPathPattern[];
  /** Files named literally by read/write deny rules: a hard link is the same file under another name. */
  readonly readDenyFiles: readonly LiteralDenyFile[];
  readonly writeDenyFiles: readonly LiteralDenyFile[];
}

/**
 * Contexts are immutable, so a compiled view of one can be kept for its lifetime — bound to what the filesystem said
 * when it was compiled: a pattern is also compiled at the real location of its base folder (path-pattern.ts), and
 * where a symlink points can change between two decisions of one context. Every real path the compilation asked is
 * asked again before the view is used in a new decision (once per withFsMemo scope, through observed-fs.ts, so a
 * batch's reuse of an answer re-checks them too); a different answer compiles afresh. Other filesystem facts (which
 * file a deny rule names, how many names it has) are never kept here.
 */
interface CompiledEntry {
  readonly compiled: CompiledPathRules;
  /** Each path whose real location the compilation used, with that location. */
  readonly reals: ReadonlyMap<string, string>;
  /** The withFsMemo scope the reals were last confirmed in. */
  checkedIn: number | undefined;
}

const compiledCache = new WeakMap<ToolPermissionContext, CompiledEntry>();

function realOrSelf(p: string): string {
  const r = resolveRealPath(p);
  return r.ok ? r.path : p;
}

/** realOrSelf(p) === real, in one call for a path that exists (resolveRealPath asks whether it exists first). */
function stillReal(p: string, real: string): boolean {
  try {
    return realpathNative(p) === real;
  } catch {
    return realOrSelf(p) === real;
  }
}

/**
 * One rule's compiled variants by what they are made of — the rule as a trace shows it, the folders it is anchored at
 * — with the real paths they were made at: a batch whose every line brings its own rule set mostly brings the same
 * rules again. Used only while asking those real paths again (in the decision at hand) gets the same answers. Made
 * at the first path rule compiled (start-up: a decision without path rules never pays for its 4,096 slots).
 */
type RuleVariants = LRUCache<string, { readonly variants: readonly CompiledPathPattern[]; readonly reals: ReadonlyMap<string, string> }>;
let ruleVariants: RuleVariants | undefined;

function compileRules(ctx: ToolPermissionContext): CompiledPathRules {
  const scope = fsMemoScope();
  const cached = compiledCache.get(ctx);
  if (cached !== undefined && scope !== undefined && cached.checkedIn === scope) return cached.compiled;
  if (cached !== undefined && [...cached.reals].every(([p, real]) => stillReal(p, real))) {
    cached.checkedIn = scope;
    return cached.compiled;
  }
  const reals = new Map<string, string>();
  const real = (p: string): string => {
    let r = reals.get(p);
    if (r === undefined) reals.set(p, (r = realOrSelf(p)));
    return r;
  };
  const anchors = JSON.stringify([ctx.cwd, ctx.projectDir, ctx.homeDir ?? os.homedir()]);
  const variantsOf = (r: PermissionRule): readonly CompiledPathPattern[] => {
    const key = `${JSON.stringify([r.ruleBehavior, r.ruleValue.toolName, r.ruleValue.ruleContent, r.source, r.sourceFile ?? null, r.root ?? null, r.expiresAt ?? null])}${anchors}`;
    const cache: RuleVariants = (ruleVariants ??= new LRUCache({ max: 4096 }));
    const known = cache.get(key);
    if (known !== undefined && [...known.reals].every(([p, v]) => real(p) === v)) return known.variants;
    const used = new Map<string, string>();
    const variants = compilePathPatternVariants(r, r.ruleValue.ruleContent!, ctx, (p) => {
      const v = real(p);
      used.set(p, v);
      return v;
    });
    cache.set(key, { variants, reals: used });
    return variants;
  };
  const pick = (rules: readonly PermissionRule[], tools: Set<string>) =>
    rules.filter((r) => r.ruleValue.ruleContent !== undefined && tools.has(r.ruleValue.toolName)).flatMap(variantsOf);
  // Each list compiled when a decision first needs it (a Read never looks at Edit's allow rules, a WebFetch at none):
  // what it asks joins `reals`, so it is confirmed like the rest from the next decision on.
  const compiled: CompiledPathRules = lazily<CompiledPathRules>({
    readDeny: () => pick(ctx.alwaysDenyRules, READ_RESTRICT_TOOLS),
    writeDeny: () => [...pick(ctx.alwaysDenyRules, WRITE_RESTRICT_TOOLS), ...compiled.readDeny],
    readAsk: () => pick(ctx.alwaysAskRules, READ_RESTRICT_TOOLS),
    readAllow: () => pick(ctx.alwaysAllowRules, READ_ALLOW_TOOLS),
    writeAsk: () => pick(ctx.alwaysAskRules, WRITE_RESTRICT_TOOLS),
    writeAllow: () => pick(ctx.alwaysAllowRules, WRITE_ALLOW_TOOLS),
    readDenyFiles: () => literalDenyFiles(compiled.readDeny),
    writeDenyFiles: () => literalDenyFiles(compiled.writeDeny),
  });
  compiledCache.set(ctx, { compiled, reals, checkedIn: scope });
  return compiled;
}

/** An object whose each field is made by its maker the first time it is read, then kept. */
function lazily<T extends object>(makers: { readonly [K in keyof T]: () => T[K] }): T {
  const made = new Map<keyof T, T[keyof T]>();
  const out = {} as T;
  for (const key of Object.keys(makers) as (keyof T)[]) {
    Object.defineProperty(out, key, {
      enumerable: true,
      get: () => {
        if (!made.has(key)) made.set(key, makers[key]());
        return made.get(key);
      },
    });
  }
  return out;
}

/** A path a deny rule names literally (no wildcard), with the rule's pattern. */
export interface LiteralDenyFile {
  readonly pattern: CompiledPathPattern;
  readonly path: string;
}

/** The patterns that name one path literally, first pattern per path: a pure function of the rules. */
export function literalDenyFiles(patterns: readonly CompiledPathPattern[]): LiteralDenyFile[] {
  const out = new Map<string, LiteralDenyFile>();
  for (const pattern of patterns) {
    if (pattern.segments.some((s) => /[*?[\\]/.test(s))) continue;
    const path = `/${pattern.segments.join('/')}`;
    if (!out.has(path)) out.set(path, { pattern, path });
  }
  return [...out.values()];
}

function statQuietly(p: string): fs.Stats | undefined {
  try {
    return statIfExists(p);
  } catch {
    return undefined;
  }
}

/** The cwd and the additional working directories, each as given and as its real path. */
export function workingDirectories(ctx: ToolPermissionContext): string[] {
  const dirs = new Set<string>();
  const add = (d: string) => {
    const abs = path.resolve(d);
    dirs.add(abs);
    const real = resolveRealPath(abs);
    if (real.ok) dirs.add(real.path);
  };
  add(ctx.cwd);
  for (const dir of ctx.additionalWorkingDirectories.values()) add(dir.path);
  return [...dirs];
}

export function isInsideDir(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);
}

function nfc(p: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(p) ? p : p.normalize('NFC');
}

function ruleTrace(layer: DecisionTrace['layer'], pat: CompiledPathPattern, reason: string): DecisionTrace {
  return {
    layer,
    reason,
    rule: formatPermissionRule(pat.rule.ruleValue),
    source: pat.rule.source,
    sourceFile: pat.rule.sourceFile,
  };
}

function firstMatch(patterns: readonly CompiledPathPattern[], candidates: readonly string[]): [CompiledPathPattern, string] | undefined {
  for (const c of candidates) for (const pat of patterns) if (pat.matches(c)) return [pat, c];
  return undefined;
}

function describe(candidate: string, given: string): string {
  return candidate === given ? given : `${given} (really ${candidate})`;
}

/** A path as the engine judges and notes it: absolute, normalised, NFC. */
export function comparablePath(absPath: string): string {
  return nfc(resolveAbsolute(absPath));
}

/**
 * The decision for reading or writing one absolute path under this context. `passthrough` means nothing objects and
 * nothing allows: the caller's chain goes on (and ends in a prompt). `checks`: the call's record, where the real path
 * judged is noted for the tool to bind what it opens to (src/tool/path-checks.ts).
 */
export function checkPathPermission(absPath: string, kind: PathAccessKind, ctx: ToolPermissionContext, checks?: PathChecks): PermissionResult {
  // One check sees one state of the disk, each path's metadata asked once (observed-fs.ts withFsMemo).
  return withFsMemo(() => decidePathPermission(absPath, kind, ctx, checks));
}

function decidePathPermission(absPath: string, kind: PathAccessKind, ctx: ToolPermissionContext, checks?: PathChecks): PermissionResult {
  const verb = kind === 'read' ? 'read' : 'write to';
  // eslint-disable-next-line no-control-regex
  if (!path.isAbsolute(absPath) || /[\x00-\x1f\x7f]/.test(absPath)) {
    const reason = `cannot judge path ${JSON.stringify(absPath)}: not absolute or contains control characters`;
    return { behavior: 'ask', message: reason, decisionReason: { layer: 'safetyCheck', reason, classifierApprovable: false } };
  }
  const given = nfc(resolveAbsolute(absPath));
  const real = resolveRealPath(given);
  if (!real.ok) {
    return {
      behavior: 'ask',
      message: real.reason,
      decisionReason: { layer: 'safetyCheck', reason: real.reason, classifierApprovable: false },
    };
  }
  const realPath = nfc(real.path);
  checks?.note(given, realPath);
  const candidates = realPath === given ? [given] : [given, realPath];
  const rules = compileRules(ctx);

  const denied = firstMatch(kind === 'read' ? rules.readDeny : rules.writeDeny, candidates) ?? hardLinkMatch(realPath, kind, rules);
  if (denied) {
    const [pat, c] = denied;
    const reason = `${verb} ${describe(c, given)} is denied by ${formatPermissionRule(pat.rule.ruleValue)}`;
    return { behavior: 'deny', message: `Permission to ${reason}`, decisionReason: ruleTrace('denyRule', pat, reason) };
  }
  const asked = firstMatch(kind === 'read' ? rules.readAsk : rules.writeAsk, candidates);
  if (asked) {
    const [pat, c] = asked;
    const reason = `${verb} ${describe(c, given)} matches ask rule ${formatPermissionRule(pat.rule.ruleValue)}`;
    return { behavior: 'ask', message: `Permission to ${reason}`, decisionReason: ruleTrace('askRule', pat, reason) };
  }
  if (kind === 'write') {
    if (ctx.mode === 'plan') {
      const reason = `plan mode is read-only: writing ${given} is not allowed`;
      return { behavior: 'deny', message: reason, decisionReason: { layer: 'mode', reason } };
    }
    if (ctx.mode !== 'bypassPermissions') {
      for (const c of candidates) {
        const hit = protectedPathReason(c);
        if (hit !== undefined) {
          const reason = `${describe(c, given)} is a protected path (${hit}): writes always ask, allow rules and acceptEdits cannot pre-approve them (only bypassPermissions skips this safety check)`;
          return {
            behavior: 'ask',
            message: `Writing ${given} needs confirmation: ${reason}`,
            decisionReason: { layer: 'safetyCheck', reason, classifierApprovable: true },
          };
        }
      }
    }
  }
  if (ctx.mode === 'bypassPermissions') {
    const reason = `bypassPermissions mode allows ${kind === 'read' ? 'reading' : 'writing'} ${given}`;
    return { behavior: 'allow', decisionReason: { layer: 'mode', reason } };
  }

  // A bare `Read`/`Edit` allow rule is a tool-level rule: it allows the tool inside the working directories only
  // (the resolution chain applies it); reaching outside them takes a rule that names the path.
  const allowPatterns = kind === 'read' ? rules.readAllow : rules.writeAllow;
  if (allowPatterns.length > 0) {
    const matches = candidates.map((c) => allowPatterns.find((pat) => pat.matches(c)));
    if (matches.every((m) => m !== undefined)) {
      const pat = matches[0]!;
      const reason = `${kind === 'read' ? 'reading' : 'writing'} ${given}${realPath !== given ? ` and its real path ${realPath}` : ''} is allowed by ${formatPermissionRule(pat.rule.ruleValue)}`;
      return { behavior: 'allow', decisionReason: ruleTrace('allowRule', pat, reason) };
    }
  }

  const workingDirs = workingDirectories(ctx);
  const outside = candidates.find((c) => !workingDirs.some((d) => isInsideDir(c, d)));
  if (outside !== undefined) {
    const reason = `${describe(outside, given)} is outside the working directories (${[ctx.cwd, ...[...ctx.additionalWorkingDirectories.values()].map((d) => d.path)].join(', ')})`;
    return {
      behavior: 'ask',
      message: `Permission to ${verb} ${given}: ${reason}`,
      decisionReason: { layer: 'safetyCheck', reason, classifierApprovable: true, notGranted: { access: kind, what: given } },
    };
  }
  if (kind === 'read') {
    return { behavior: 'allow', decisionReason: { layer: 'readOnly', reason: `reading ${given} inside the working directories` } };
  }
  if (ctx.mode === 'acceptEdits') {
    return { behavior: 'allow', decisionReason: { layer: 'mode', reason: `acceptEdits mode allows writing ${given} inside the working directories` } };
  }
  const reason = `no rule allows writing ${given}`;
  return { behavior: 'passthrough', message: reason, decisionReason: { layer: 'toolCheck', reason, notGranted: { access: 'write', what: given } } };
}

/**
 * A file with several names that is one of the files a deny rule names literally. Both sides are asked now: the denied
 * file may have been created, replaced or linked since the context was made. Only a file with several names costs
 * the extra stats.
 */
function hardLinkMatch(realPath: string, kind: PathAccessKind, rules: CompiledPathRules): [CompiledPathPattern, string] | undefined {
  const files = kind === 'read' ? rules.readDenyFiles : rules.writeDenyFiles;
  if (files.length === 0) return undefined;
  const st = statQuietly(realPath);
  return st ? sameFileAsDenied(st, files) : undefined;
}

function sameFileAsDenied(st: FileIdentity, files: readonly LiteralDenyFile[]): [CompiledPathPattern, string] | undefined {
  if (st.nlink < 2) return undefined;
  for (const file of files) {
    const denied = statQuietly(file.path);
    if (denied?.isFile() && denied.dev === st.dev && denied.ino === st.ino) return [file.pattern, `a hard link to ${file.path}`];
  }
  return undefined;
}

/**
 * A file with several names that is one of the files a wildcard deny rule covers (denied-identities.ts walks for
 * them). When the walk could not see them all, it cannot say no: the first wildcard pattern answers, fail closed.
 */
function sameFileAsWildcardDenied(st: FileIdentity, patterns: readonly CompiledPathPattern[], ctx: ToolPermissionContext): [CompiledPathPattern, string] | undefined {
  if (st.nlink < 2 || patterns.length === 0) return undefined;
  const roots = workingDirectories(ctx);
  let scan = deniedIdentities(patterns, roots, false);
  let hit = scan.ids.get(identityKey(st));
  if (!hit) {
    scan = deniedIdentities(patterns, roots, true);
    hit = scan.ids.get(identityKey(st));
  }
  if (hit) return [hit[0], `a hard link to ${hit[1]}`];
  const first = patterns.find((p) => p.segments.some((seg) => /[*?[\\]/.test(seg)));
  return scan.complete || first === undefined ? undefined : [first, 'a file with several names (hard links) that may be one the rule covers: too many files to compare'];
}

/** What identifies a file whatever its name: a descriptor's fstat gives it without resolving any path. */
export type FileIdentity = Pick<fs.Stats, 'dev' | 'ino' | 'nlink'>;

/**
 * The deny decision for an object already opened, judged by what was opened: the real path its descriptor names and,
 * for a file with several names, its identity against the files deny rules name literally. Undefined: no deny rule
 * covers it. Nothing is resolved by path here — the path of the object is the descriptor's, not a name that can be
 * swapped since.
 */
export function deniedOpenedObject(realPath: string, st: FileIdentity, kind: PathAccessKind, ctx: ToolPermissionContext): PermissionDenyDecision | undefined {
  const rules = compileRules(ctx);
  const p = nfc(realPath);
  const patterns = kind === 'read' ? rules.readDeny : rules.writeDeny;
  const denied = firstMatch(patterns, [p]) ?? sameFileAsDenied(st, kind === 'read' ? rules.readDenyFiles : rules.writeDenyFiles) ?? sameFileAsWildcardDenied(st, patterns, ctx);
  if (!denied) return undefined;
  const [pat, c] = denied;
  const reason = `${kind === 'read' ? 'read' : 'write to'} ${c === p ? p : `${p} (${c})`} is denied by ${formatPermissionRule(pat.rule.ruleValue)}`;
  return { behavior: 'deny', message: `Permission to ${reason}`, decisionReason: ruleTrace('denyRule', pat, reason) };
}

/** True when the context has a Read deny rule with a path (Read, or the search tools' names): cheap, no compiling. */
export function hasReadDenyRules(ctx: ToolPermissionContext): boolean {
  return ctx.alwaysDenyRules.some((r) => r.ruleValue.ruleContent !== undefined && READ_RESTRICT_TOOLS.has(r.ruleValue.toolName));
}

/** The compiled Read deny patterns (every variant), for callers that reason about what a directory could hold. */
export function readDenyPatterns(ctx: ToolPermissionContext): readonly CompiledPathPattern[] {
  return hasReadDenyRules(ctx) ? compileRules(ctx).readDeny : [];
}

/** True when a Read deny rule (or a Grep/Glob one) covers this path or its real path: for filtering search results. */
export function isPathReadDenied(absPath: string, ctx: ToolPermissionContext): boolean {
  const given = nfc(resolveAbsolute(absPath));
  const real = resolveRealPath(given);
  const candidates = !real.ok ? [given] : real.path === given ? [given] : [given, nfc(real.path)];
  const rules = compileRules(ctx);
  if (firstMatch(rules.readDeny, candidates) !== undefined || hardLinkMatch(candidates[candidates.length - 1]!, 'read', rules) !== undefined) return true;
  const st = statQuietly(candidates[candidates.length - 1]!);
  return st !== undefined && st.isFile() && sameFileAsWildcardDenied(st, rules.readDeny, ctx) !== undefined;
}

/**
 * The read-deny rules as ripgrep `--glob` patterns relative to `searchRoot` (pass each as `--glob '!<g>'`, and run rg
 * with `cwd: searchRoot` — ripgrep matches globs against paths relative to its own cwd). A `**` among them means the
 * whole root is denied. Letters are case-folded (`[eE]`) because deny matching ignores case.
 * Symlinks inside the tree are not resolved here: filter results with `isPathReadDenied` when following links.
 */
export function readDenyGlobs(ctx: ToolPermissionContext, searchRoot: string): string[] {
  const names = nfc(path.resolve(searchRoot)).split('/').filter((s) => s !== '');
  const out = new Set<string>();
  for (const pat of compileRules(ctx).readDeny) {
    for (const rest of patternRemainders(pat.segments, names, pat.caseInsensitive)) {
      if (rest.length === 0) {
        out.add('**');
        continue;
      }
      const glob = rest.map((s) => (s === '**' ? s : caseFoldGlob(s))).join('/');
      out.add(glob);
      if (!glob.endsWith('/**')) out.add(`${glob}/**`);
    }
  }
  return [...out];
}
