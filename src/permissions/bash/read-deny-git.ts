/**
 * The Read deny checks of git commands (read-deny.ts's judge): contents printed from history (`git show`, `git log -p`,
 * `git archive`…) and `REV:path` blobs, whose path is relative to the work tree's root, not the cwd.
 */
import { isAbsolute, resolve } from 'node:path';
import { existsSync, statIfExists } from '../observed-fs.js';
import type { CompiledPathPattern } from '../path-pattern.js';
import type { CwdState } from './paths.js';
import type { MatchWord } from './rule-match.js';
import { gitHistoryRead } from './git-history.js';
import { subcommandStarts } from './program-options.js';
import { hasGlobChars } from './glob-expand.js';
import { denyPatternsInside, ruleText, type ReadDenyScope } from './read-deny-scope.js';
import { gitRoot, resolveExact } from './read-deny-words.js';

/** What the git checks need of the judge deciding a command. */
export interface GitReadJudge {
  readonly state: CwdState;
  readonly home: string;
  readonly scope: ReadDenyScope;
  readonly realCache: Map<string, string>;
  /** True when it decided (a deny): the caller stops. */
  checkAbs(abs: string, subcommand: string): boolean;
  ask(pattern: CompiledPathPattern, reason: string, subcommand: string): void;
  cannotRuleOut(what: string, subcommand: string): void;
}

const short = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

const runsGit = (view: readonly MatchWord[]): boolean => view[0]?.literal === true && view[0].value.slice(view[0].value.lastIndexOf('/') + 1) === 'git';

/**
 * The git views of a command to judge. The deny views also read a git command without its global options from every
 * place its subcommand might start (`git -C sub status` is tried as `git sub status` too, for deny rules); that
 * guess is left out here when git's own reading of the longer view is certain (one place: `-C` takes `sub`), so a
 * `git -C DIR status` is not taken for an unknown `git DIR` that may print anything.
 */
export function gitViews(views: readonly (readonly MatchWord[])[]): (readonly MatchWord[])[] {
  const git = views.filter(runsGit);
  return git.filter((v) => !git.some((u) => u !== v && u.length > v.length && v.length > 1 && u.indexOf(v[1]!) > 1 && subcommandStarts('git', u)?.length === 1));
}

/**
 * `git show`, `git log -p`, `git archive`…: with Read denies in place, contents from history print only when the
 * pathspecs keep every denied path out (literal paths, none of them holding or naming a denied one).
 */
export function historyRead(judge: GitReadJudge, words: readonly MatchWord[], subcommand: string): void {
  const read = gitHistoryRead(words);
  if (read === undefined) return;
  const limits = [...read.pathspecs];
  for (const p of read.maybePaths) {
    // `REV:path` names one blob (its path was checked by revisionPaths); a positional that exists as a path limits
    // the output like a pathspec; anything else may be a revision.
    const colon = p.indexOf(':');
    if (colon > 0 && p.slice(colon + 1) !== '') {
      limits.push(p.slice(colon + 1));
      continue;
    }
    const abs = resolveExact(p, judge.state, judge.home);
    if (abs !== undefined && abs.length > 0 && abs.every((a) => existsSync(a))) limits.push(p);
  }
  if (limits.length === 0) return judge.cannotRuleOut(`${read.what} (any file, including denied ones, unless limited to paths with -- PATH)`, subcommand);
  for (const spec of limits) {
    if (spec.startsWith(':') || hasGlobChars(spec)) return judge.cannotRuleOut(`${read.what}, and the pathspec ${short(spec)} is a pattern`, subcommand);
    const resolved = resolveExact(spec, judge.state, judge.home);
    if (!resolved) return judge.cannotRuleOut(`${read.what}, and where ${short(spec)} points cannot be known`, subcommand);
    for (const abs of resolved) {
      if (judge.checkAbs(abs, subcommand)) return;
      let isFile = false;
      try {
        isFile = statIfExists(abs)?.isFile() ?? false;
      } catch {
        // unreadable: judged as a directory
      }
      if (isFile) continue;
      const hit = denyPatternsInside(judge.scope, abs, judge.realCache)[0];
      if (hit) return judge.ask(hit.pattern, `${read.what}, and ${abs} may hold files denied by ${ruleText(hit.pattern)}`, subcommand);
    }
  }
}

/** `git show HEAD:.env`: the path after the colon is relative to the work tree root, not the cwd. */
export function revisionPaths(judge: GitReadJudge, words: readonly MatchWord[], subcommand: string): void {
  for (const w of words) {
    const colon = w.literal ? w.value.indexOf(':') : -1;
    if (colon < 0 || w.value.startsWith('-')) continue;
    const rel = w.value.slice(colon + 1);
    if (rel === '' || isAbsolute(rel) || rel.startsWith('./') || rel.startsWith('../')) continue;
    for (const dir of judge.state.dirs) {
      const top = gitRoot(dir);
      if (top !== undefined) judge.checkAbs(resolve(top, rel), subcommand);
    }
  }
}
