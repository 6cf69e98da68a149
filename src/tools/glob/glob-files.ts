/**
 * The Glob listing: `rg --files` filtered by the pattern, every match's mtime read while rg is still walking, and
 * the oldest `limit` kept in a small heap — so the work beyond rg's own is one stat per match, overlapped with it,
 * and memory is bounded by the limit, not by the number of matches.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runRipgrep } from '../shared/ripgrep.js';
import { mtimeOf } from '../shared/search-path.js';
import { VCS_DIRECTORIES } from '../../permissions/paths.js';
import { denyGlobArgs, vcsExcludeArgs, type ReadDenyFilter, type SearchRoot } from '../shared/search-path.js';

export interface GlobPlan {
  /** The folder rg walks (and runs in: its globs are relative to it). */
  readonly root: string;
  /** The pattern as rg should match it, relative to `root`. */
  readonly glob: string;
}

const GLOB_META = /[*?[\]{}\\]/;

/**
 * Where to search and for what. A pattern without `/` matches at any depth (`*.md`), as in a .gitignore. A pattern
 * with `/` is anchored, and its leading literal folders become the search root: `src/**\/*.ts` walks only `src`,
 * `../lib/*.js` searches the sibling folder, and an absolute pattern names its own folder (it wins over `path`).
 */
export function planGlob(pattern: string, searchPath: string, homeDir?: string): GlobPlan {
  let base = searchPath;
  let rest = pattern;
  if (pattern.startsWith('/')) {
    base = '/';
    rest = pattern.slice(1);
  } else if (pattern === '~' || pattern.startsWith('~/')) {
    base = homeDir ?? os.homedir();
    rest = pattern.slice(2);
  } else if (!pattern.includes('/') || pattern.startsWith('!')) {
    return { root: searchPath, glob: pattern };
  }
  const segments = rest.split('/');
  const literal: string[] = [];
  // The last segment stays in the glob even when literal: it names the files.
  while (literal.length < segments.length - 1 && !GLOB_META.test(segments[literal.length]!)) {
    literal.push(segments[literal.length]!);
  }
  const remaining = segments.slice(literal.length).join('/');
  // join, not resolve: a relative base stays relative (getPath hands it to the engine, which resolves it).
  return { root: path.join(base, ...literal), glob: remaining === '' ? '**' : `/${remaining}` };
}

/** Version-control folders are skipped unless the pattern names one (`.git/**`, `**\/.hg/hgrc`). */
export function patternNamesVcsDirectory(pattern: string): boolean {
  return pattern.split('/').some((segment) => (VCS_DIRECTORIES as readonly string[]).includes(segment));
}

export interface ListFilesRequest {
  readonly plan: GlobPlan;
  /** Whether to skip what .gitignore / .ignore files exclude. */
  readonly respectGitignore: boolean;
  readonly includeVcs: boolean;
  readonly deny: ReadDenyFilter;
  readonly limit: number;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The root opened and bound to the call's decision (search-path.ts): rg lists it, not what its path names later. */
  readonly bound?: SearchRoot;
}

export interface ListFilesResult {
  /** The oldest `limit` matches, oldest first (equal times by path), as Claude Code lists them. */
  readonly files: string[];
  /** How many files matched in all. */
  readonly totalMatches: number;
  readonly timedOut: boolean;
}

/** The rg command line for a listing (the benchmark compares against raw rg with the pattern alone). */
export function globCommandArgs(request: Pick<ListFilesRequest, 'plan' | 'respectGitignore' | 'includeVcs' | 'deny'>, target = request.plan.root): string[] {
  // One core is left to this process, which stats every match while rg walks: listing a tree is cheap per file, and
  // an rg that takes every core only makes the two wait for each other.
  const threads = Math.max(1, os.availableParallelism() - 1);
  const args = ['--no-config', '--files', '--null', '--hidden', '--no-follow', '--threads', String(threads)];
  if (!request.respectGitignore) args.push('--no-ignore');
  args.push('--glob', request.plan.glob);
  if (!request.includeVcs) args.push(...vcsExcludeArgs());
  args.push(...denyGlobArgs(request.deny), '--', target);
  return args;
}

export async function listFiles(request: ListFilesRequest): Promise<ListFilesResult> {
  if (request.bound === undefined && !isDirectory(request.plan.root)) return { files: [], totalMatches: 0, timedOut: false };
  const fast = await list(request, false);
  // rg's exclusion is complete by construction; should a listed file be denied all the same, list again checking
  // every path (isPathReadDenied resolves a real path per call: too slow to run on every match by default).
  if (!request.deny.active || fast.timedOut || !fast.files.some((f) => request.deny.isDenied(f))) return fast;
  return list(request, true);
}

async function list(request: ListFilesRequest, checkEach: boolean): Promise<ListFilesResult> {
  const { deny, bound } = request;
  const oldest = new OldestFiles(request.limit);
  let total = 0;
  const outcome = await runRipgrep(
    {
      args: globCommandArgs(request, bound?.arg),
      cwd: bound?.cwd ?? request.plan.root,
      signal: request.signal,
      timeoutMs: request.timeoutMs,
      separator: '\0',
      onRecord: (printed) => {
        if (printed === '') return;
        const file = bound ? bound.shown(printed) : printed;
        if (checkEach && deny.isDenied(file)) return;
        total++;
        oldest.add(file, mtimeOf(file));
      },
    },
    'Glob',
  );
  if (!outcome.timedOut && outcome.exitCode !== 0 && outcome.exitCode !== 1 && outcome.records === 0) {
    const detail = outcome.stderr.trim();
    throw new Error(`Glob failed — ripgrep could not list files${detail ? `:\n${detail}` : '.'}`);
  }
  return { files: oldest.sorted(), totalMatches: total, timedOut: outcome.timedOut };
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** A bounded max-heap on (mtime, then path): the root is the entry the next older file pushes out. */
export class OldestFiles {
  private readonly paths: string[] = [];
  private readonly times: number[] = [];

  constructor(private readonly limit: number) {}

  /** True when `a` ranks after `b` (newer, or as old with a later path). */
  private worse(a: number, b: number): boolean {
    const ta = this.times[a]!;
    const tb = this.times[b]!;
    return ta > tb || (ta === tb && this.paths[a]! > this.paths[b]!);
  }

  add(file: string, mtime: number): void {
    if (this.limit <= 0) return;
    if (this.paths.length < this.limit) {
      this.paths.push(file);
      this.times.push(mtime);
      this.up(this.paths.length - 1);
      return;
    }
    const rootTime = this.times[0]!;
    if (mtime > rootTime || (mtime === rootTime && file > this.paths[0]!)) return;
    this.paths[0] = file;
    this.times[0] = mtime;
    this.down(0);
  }

  sorted(): string[] {
    const order = this.paths.map((_, i) => i);
    order.sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
    return order.map((i) => this.paths[i]!);
  }

  private swap(i: number, j: number): void {
    [this.paths[i], this.paths[j]] = [this.paths[j]!, this.paths[i]!];
    [this.times[i], this.times[j]] = [this.times[j]!, this.times[i]!];
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.paths.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < n && this.worse(l, worst)) worst = l;
      if (r < n && this.worse(r, worst)) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }
}
