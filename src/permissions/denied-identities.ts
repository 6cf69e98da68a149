/**
 * Which files a wildcard deny rule covers, by identity (device and inode): a hard link is the same file under another
 * name, and `Read(**\/.env)` or `Read(./secrets/**)` name no one file whose identity could be asked (the literal rules
 * are: paths.ts `literalDenyFiles`). So the files those patterns match are found by walking — the working directories,
 * and a pattern's own folder where it lies outside them (`~/.ssh/**`) — and their identities kept for a moment: an
 * opened file with several names is denied when it is one of them (docs/security.md §2).
 *
 * Only a file with more than one name ever needs this, so the walk is made on the first such file and again when the
 * last walk is older than REFRESH_MS. A walk that had to stop (more than MAX_ENTRIES entries) cannot say a file is
 * not denied: the caller fails closed. `node_modules` folders are not walked (package stores link their files there
 * by the thousand; a secret a deny rule protects does not live there) — written down as residue.
 */
import type fs from 'node:fs';
import { readdirEntriesSync, statIfExists } from './observed-fs.js';
import { patternRemainders, type CompiledPathPattern } from './path-pattern.js';

const REFRESH_MS = 2_000;
const MAX_ENTRIES = 200_000;
const GLOB = /[*?[\\]/;

export interface DeniedIdentities {
  /** `dev:ino` → the pattern that covers the file, and one of its paths. */
  readonly ids: ReadonlyMap<string, readonly [CompiledPathPattern, string]>;
  /** False when the walk stopped early: a file not found in `ids` may still be a denied one. */
  readonly complete: boolean;
}

interface Scan extends DeniedIdentities {
  readonly at: number;
}

const scans = new WeakMap<readonly CompiledPathPattern[], Scan>();

export const identityKey = (st: Pick<fs.Stats, 'dev' | 'ino'>): string => `${st.dev}:${st.ino}`;

/** The wildcard patterns among `patterns` (literal ones are judged by their one path). */
function wildcards(patterns: readonly CompiledPathPattern[]): CompiledPathPattern[] {
  return patterns.filter((p) => p.segments.some((s) => GLOB.test(s)));
}

/** The folder a pattern is anchored in: its segments before the first wildcard ('/' for a pattern that floats). */
function baseOf(pattern: CompiledPathPattern): string {
  const fixed: string[] = [];
  for (const s of pattern.segments) {
    if (GLOB.test(s)) break;
    fixed.push(s);
  }
  return `/${fixed.join('/')}`;
}

const inside = (p: string, dir: string) => p === dir || dir === '/' || p.startsWith(`${dir}/`);

/**
 * The identities of the files the wildcard patterns cover, within `roots` (the working directories' real paths) and
 * the patterns' own folders outside them. `fresh`: walk again unless the last walk is newer than REFRESH_MS.
 */
export function deniedIdentities(patterns: readonly CompiledPathPattern[], roots: readonly string[], fresh: boolean): DeniedIdentities {
  const known = scans.get(patterns);
  if (known && (!fresh || Date.now() - known.at < REFRESH_MS)) return known;
  const pats = wildcards(patterns);
  const starts = new Set<string>();
  for (const pat of pats) {
    const base = baseOf(pat);
    // A base that holds a working directory (a pattern that floats, `~/**`): the working directories are walked.
    if (roots.some((r) => inside(r, base))) for (const r of roots) starts.add(r);
    else starts.add(base);
  }
  const ids = new Map<string, readonly [CompiledPathPattern, string]>();
  let entries = 0;
  let complete = true;
  const stack = [...starts].filter((s) => ![...starts].some((o) => o !== s && inside(s, o)));
  while (stack.length > 0 && complete) {
    const dir = stack.pop()!;
    const names = dir.split('/').filter((s) => s !== '');
    const live = pats.filter((p) => patternRemainders(p.segments, names, p.caseInsensitive).length > 0);
    if (live.length === 0) continue;
    let list: fs.Dirent[];
    try {
      list = readdirEntriesSync(dir);
    } catch {
      continue;
    }
    for (const entry of list) {
      if (++entries > MAX_ENTRIES) {
        complete = false;
        break;
      }
      const full = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') stack.push(full);
      } else if (entry.isFile()) {
        const pat = live.find((p) => p.matches(full.normalize('NFC')));
        const st = pat ? statIfExists(full) : undefined;
        if (pat && st?.isFile()) ids.set(identityKey(st), [pat, full]);
      }
    }
  }
  const scan: Scan = { at: Date.now(), ids, complete };
  scans.set(patterns, scan);
  return scan;
}
