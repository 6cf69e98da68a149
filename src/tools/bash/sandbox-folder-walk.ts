/**
 * The look through the writable folders (sandbox-protected-paths.ts): breadth-first, `node_modules` and symbolic links
 * skipped, at most a given number of folders. It runs before every sandboxed command, so what it read is kept: a
 * folder whose identity and change times are what they were is not read again (an lstat instead of a readdir, about
 * three times cheaper). And what it found is kept too: a repository once found stays protected while it exists, even
 * when a later look stops short of it — else the limit would be a switch any command could turn (make 10,000 empty
 * folders, and the next look would not reach an existing nested clone).
 */
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';

export interface Walk {
  readonly folders: readonly { dir: string; facts: FolderFacts }[];
  /** Why the walk stopped short, when it did. */
  readonly incomplete?: string;
}

/** What one folder holds that the scan cares about, and the key that says whether it may have changed since. */
export interface FolderFacts {
  /** Device, inode, change and modification times: any entry made, removed or renamed in it changes them. */
  readonly key: string;
  /** Its last change was long enough before it was read that a later change cannot carry the same times. */
  readonly stable: boolean;
  readonly bare: boolean;
  readonly dotGit?: 'dir' | 'file' | 'other';
  readonly protectedNames: readonly string[];
  readonly subdirs: readonly string[];
}

/**
 * Folders read before, by path. A folder whose key is unchanged (and was stable when read) is not read again: one
 * lstat instead of a readdir. Timestamps have a coarse clock tick, so a change in the same tick as the one before a
 * read could leave the times as they were: a folder changed less than `RACY_MS` before it was read is read again
 * every time, until it has been quiet that long (git's "racily clean" entries, for the same reason).
 */
let folderCache = new Map<string, FolderFacts>();
const RACY_MS = 2_000;
/** Folders handled between two turns of the event loop (the work is synchronous: one lstat, or a readdir, each). */
const SLICE = 256;

function readFolder(dir: string, key: string, stable: boolean, nested: ReadonlySet<string>): FolderFacts | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  if (isBareRepository(new Set(entries.map((e) => e.name)))) return { key, stable, bare: true, protectedNames: [], subdirs: [] };
  let dotGit: FolderFacts['dotGit'];
  const protectedNames: string[] = [];
  const subdirs: string[] = [];
  for (const e of entries) {
    if (e.name === '.git') {
      dotGit = e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other';
      continue;
    }
    if (nested.has(e.name.toLowerCase())) protectedNames.push(e.name);
    if (e.isDirectory() && e.name !== 'node_modules') subdirs.push(e.name);
  }
  return { key, stable, bare: false, ...(dotGit !== undefined ? { dotGit } : {}), protectedNames, subdirs };
}

/**
 * The folders below `roots`, breadth-first, at most `max` of them, each with its facts (from the cache when unchanged);
 * `nested`: the names (lower-case) to report wherever they are met.
 */
export async function walkFolders(roots: readonly string[], max: number, nested: ReadonlySet<string>): Promise<Walk> {
  const folders: { dir: string; facts: FolderFacts }[] = [];
  const seen = new Map<string, FolderFacts>();
  let queue = [...roots];
  let incomplete: string | undefined;
  let sinceYield = 0;
  while (queue.length > 0) {
    if (folders.length + queue.length > max) {
      incomplete = `looked through ${max} folders of the writable roots; repositories deeper in them are not protected by the sandbox`;
      queue = queue.slice(0, Math.max(0, max - folders.length));
    }
    const next: string[] = [];
    for (const dir of queue) {
      if (++sinceYield >= SLICE) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      let st: Stats;
      try {
        st = lstatSync(dir);
      } catch {
        continue;
      }
      // Replaced by a link (or anything else) since its parent was read: not followed.
      if (!st.isDirectory()) continue;
      const key = `${st.dev}:${st.ino}:${st.ctimeMs}:${st.mtimeMs}`;
      const known = folderCache.get(dir);
      const facts = known !== undefined && known.stable && known.key === key ? known : readFolder(dir, key, Math.max(st.ctimeMs, st.mtimeMs) < Date.now() - RACY_MS, nested);
      if (facts === undefined) continue;
      seen.set(dir, facts);
      folders.push({ dir, facts });
      for (const name of facts.subdirs) next.push(path.join(dir, name));
    }
    if (incomplete !== undefined) break;
    queue = next;
  }
  // What this look saw replaces what the last one saw: the cache never holds more than one look's folders.
  folderCache = seen;
  return incomplete === undefined ? { folders } : { folders, incomplete };
}

/** A `.git` entry, a bare repository, or a protected name (`.bashrc`, `.mcp.json`, …). */
export type Finding = 'git' | 'bare' | 'name';

/**
 * What looks found, by path: a finding stays protected while it exists, even when a later look stops short of it.
 * The folder limit would otherwise be a switch: a command that makes 10,000 empty folders would hide an existing
 * nested clone from the next look. Replaced, for the folders below the roots looked through, by every complete look.
 */
const findings = new Map<string, Finding>();
const MAX_FINDINGS = 100_000;

/** What `walk` found, with what earlier looks found that still exists where it stopped short, by path. */
export function withEarlierFindings(walk: Walk, inWritable: (p: string) => boolean): Map<string, Finding> {
  const found = new Map<string, Finding>();
  for (const { dir, facts } of walk.folders) {
    if (facts.bare) found.set(dir, 'bare');
    else if (facts.dotGit !== undefined) found.set(path.join(dir, '.git'), 'git');
    for (const name of facts.protectedNames) found.set(path.join(dir, name), 'name');
  }
  for (const [p, kind] of findings) {
    if (!inWritable(p) || found.has(p)) continue;
    if (walk.incomplete !== undefined && exists(p)) found.set(p, kind);
    else findings.delete(p);
  }
  for (const [p, kind] of found) if (findings.size < MAX_FINDINGS || findings.has(p)) findings.set(p, kind);
  return found;
}

/** What git itself takes for a repository directory: HEAD, and objects and refs (or a commondir that has them). */
function isBareRepository(names: ReadonlySet<string>): boolean {
  return names.has('HEAD') && ((names.has('objects') && names.has('refs')) || names.has('commondir'));
}

/** Forgets every folder read and everything found (the next look reads them all again): for measurements and tests. */
export function forgetWalk(): void {
  folderCache = new Map();
  findings.clear();
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
