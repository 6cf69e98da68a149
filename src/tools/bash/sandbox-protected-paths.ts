/**
 * What a sandboxed command must not write because the host runs it later: repository metadata first of all. Git runs
 * programs named by a repository's configuration (`core.fsmonitor`, hooks, drivers, `core.pager`, …) on an ordinary
 * `git status`, and finds that configuration through files any writer could plant (`.git/config`, `config.worktree`,
 * `commondir`, a `.git` file's `gitdir:`, `info/attributes`, `worktrees/*`, `modules/*`, a bare repository's own
 * `config`). So every repository found in the writable roots is kept read-only as a whole: each `.git` (directory or
 * gitfile, and the directory a gitfile or `commondir` points to), each bare repository, and what its configuration
 * names inside the writable roots (`core.hooksPath`, `include.path`, program paths such as a `core.fsmonitor` script).
 * A working directory without `.git` gets an empty read-only `.git` placeholder for the command's lifetime: git skips
 * an empty `.git` directory (so git inside the sandbox still finds the enclosing repository), and no command can put
 * a repository of its own there.
 *
 * Placeholders: bubblewrap can only mount over something, so for a protected name that is absent the runtime makes a
 * mount point in the project on the host for as long as the command (and any other sandboxed command) runs. Asked
 * for a path below the name, it makes an empty folder there rather than an empty file: git status lists no empty
 * folder and Glob/Grep list files only, so the placeholders stay out of commits and listings, and a file of that
 * name cannot be created through them any more than through a file.
 *
 * Also the files the sandbox runtime protects only relative to the process's working directory (`.bashrc`,
 * `.gitconfig`, `.vscode`, …): resolved here against every working directory, and looked for below them as the
 * runtime does below its own.
 *
 * The walk is breadth-first, skips `node_modules` and symbolic links, and stops after `MAX_SCANNED_DIRS` folders; what
 * it cannot see is said in `incomplete` (and docs/sandbox.md says what to do about it). It runs before every
 * sandboxed command, so what it read is kept: a folder whose identity and change times are what they were is not read
 * again (an lstat instead of a readdir, about three times cheaper), see `walkFolders`.
 */
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { readFile, lstat, stat } from 'node:fs/promises';
import path from 'node:path';

/** Relative to each working directory: read-only in the sandbox, a placeholder when absent (blocks creating it). */
export const WORKING_DIR_PROTECTED: readonly string[] = [
  '.claude',
  '.toolgate',
  '.mcp.json',
  // The sandbox runtime's own list (DANGEROUS_FILES and its directories; a test keeps the two in step).
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.vscode',
  '.idea',
];

/** Names that, found anywhere below a working directory, are protected too (the runtime scans for the same). */
const NESTED_PROTECTED = new Set(WORKING_DIR_PROTECTED.map((n) => n.toLowerCase()));

export const MAX_SCANNED_DIRS = 10_000;
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Configuration keys whose value names a program or a file git loads (matched lower-case; `.*` for a subsection).
 * `always`: the path is protected even when nothing is there yet (git would load what a command puts there).
 */
const CONFIG_PATH_KEYS: readonly { readonly key: RegExp; readonly always?: boolean; readonly folder?: boolean; readonly relativeToFile?: boolean }[] = [
  { key: /^core\.hookspath$/, always: true, folder: true },
  { key: /^(include|includeif\..*)\.path$/, always: true, relativeToFile: true },
  { key: /^core\.(fsmonitor|pager|editor|sshcommand|askpass)$/ },
  { key: /^sequence\.editor$/ },
  { key: /^diff\.external$/ },
  { key: /^diff\..*\.(command|textconv)$/ },
  { key: /^filter\..*\.(clean|smudge|process)$/ },
  { key: /^merge\..*\.driver$/ },
  { key: /^credential(\..*)?\.helper$/ },
  { key: /^gpg(\..*)?\.program$/ },
  { key: /^alias\..*$/ },
  { key: /^pager\..*$/ },
  { key: /^(difftool|mergetool)\..*\.(cmd|path)$/ },
  { key: /^uploadpack\.packobjectshook$/ },
];

export interface ProtectedScan {
  readonly paths: string[];
  /** Why the scan may have missed something (too many folders). */
  readonly incomplete?: string;
}

export interface ScanOptions {
  readonly workingDirs: readonly string[];
  /** Every folder the sandbox lets commands write (working directories included). */
  readonly writableRoots: readonly string[];
  readonly home: string;
  readonly maxDirs?: number;
}

export async function scanProtectedPaths(options: ScanOptions): Promise<ProtectedScan> {
  const roots = outermost(options.writableRoots.map((r) => path.resolve(r)));
  const inWritable = (p: string) => roots.some((r) => p === r || p.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  const out = new Set<string>();
  const gitDirs: { dir: string; worktree: string }[] = [];

  for (const dir of options.workingDirs) {
    for (const rel of WORKING_DIR_PROTECTED) {
      const p = path.join(dir, rel);
      out.add(p);
      // Also a path below it: where nothing is there, the runtime's placeholder then lands on `p` as an empty
      // read-only folder instead of an empty file — which neither `git status` nor a file listing shows, and which
      // blocks creating a file of that name just the same. Where something is there, the runtime skips this one.
      out.add(path.join(p, PLACEHOLDER_CHILD));
    }
    const dotGit = path.join(dir, '.git');
    // An absent `.git` gets an empty read-only directory as placeholder (the runtime makes one for the first missing
    // component of a deeper path); `.git` itself would get /dev/null, and git stops at an invalid gitfile.
    if ((await lstatOrUndefined(dotGit)) === undefined) out.add(path.join(dotGit, 'config'));
  }
  // The repository a working directory is inside of (a monorepo package as the working directory): its metadata is
  // outside the writable roots, but its configuration may name hooks or programs inside them.
  for (const dir of options.workingDirs) {
    for (let d = path.dirname(dir); ; d = path.dirname(d)) {
      const dotGit = path.join(d, '.git');
      const st = await lstatOrUndefined(dotGit);
      if (st?.isDirectory()) gitDirs.push({ dir: dotGit, worktree: d });
      else if (st?.isFile()) {
        const target = await gitfileTarget(dotGit);
        if (target !== undefined) gitDirs.push({ dir: target, worktree: d });
      }
      if (st !== undefined || path.dirname(d) === d) break;
    }
  }
  // A home folder inside a writable root: git's global configuration is in it.
  if (inWritable(options.home)) for (const rel of ['.gitconfig', '.config/git']) out.add(path.join(options.home, rel));

  // Breadth-first over the writable roots: `.git` entries, bare repositories, nested protected names.
  const walk = await walkFolders(roots, options.maxDirs ?? MAX_SCANNED_DIRS);
  for (const { dir, facts } of walk.folders) {
    if (facts.bare) {
      out.add(dir);
      gitDirs.push({ dir, worktree: dir });
      continue;
    }
    if (facts.dotGit !== undefined) {
      const full = path.join(dir, '.git');
      out.add(full);
      if (facts.dotGit === 'dir') gitDirs.push({ dir: full, worktree: dir });
      else if (facts.dotGit === 'file') {
        const target = await gitfileTarget(full);
        if (target !== undefined) gitDirs.push({ dir: target, worktree: dir });
      }
    }
    for (const name of facts.protectedNames) out.add(path.join(dir, name));
  }

  // Each repository: the directories it points to, and what its configuration names inside the writable roots.
  const seen = new Set<string>();
  for (let i = 0; i < gitDirs.length; i++) {
    const { dir, worktree } = gitDirs[i]!;
    if (seen.has(dir)) continue;
    seen.add(dir);
    out.add(dir);
    const common = await pointer(path.join(dir, 'commondir'), dir);
    if (common !== undefined) gitDirs.push({ dir: common, worktree });
    for (const file of ['config', 'config.worktree']) {
      for (const named of await namedByConfig(path.join(dir, file), worktree, options.home)) {
        // Never a writable root itself or a folder holding one: that would make the project read-only.
        if (inWritable(named) && !roots.some((r) => r === named || r.startsWith(named + path.sep))) out.add(named);
      }
    }
  }
  const paths = [...out].filter(inWritable);
  return walk.incomplete === undefined ? { paths } : { paths, incomplete: walk.incomplete };
}

/** Below every absent protected name, so that its placeholder is a folder (never created: it is inside it). */
export const PLACEHOLDER_CHILD = '.sandbox-placeholder';

/** What one folder holds that the scan cares about, and the key that says whether it may have changed since. */
interface FolderFacts {
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

/** Forgets every folder read (the next look reads them all again): for measurements and tests. */
export function forgetScannedFolders(): void {
  folderCache = new Map();
}

function readFolder(dir: string, key: string, stable: boolean): FolderFacts | undefined {
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
    if (NESTED_PROTECTED.has(e.name.toLowerCase())) protectedNames.push(e.name);
    if (e.isDirectory() && e.name !== 'node_modules') subdirs.push(e.name);
  }
  return { key, stable, bare: false, ...(dotGit !== undefined ? { dotGit } : {}), protectedNames, subdirs };
}

/** The folders below `roots`, breadth-first, at most `max` of them, each with its facts (from the cache when unchanged). */
async function walkFolders(roots: readonly string[], max: number): Promise<{ folders: { dir: string; facts: FolderFacts }[]; incomplete?: string }> {
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
      const facts = known !== undefined && known.stable && known.key === key ? known : readFolder(dir, key, Math.max(st.ctimeMs, st.mtimeMs) < Date.now() - RACY_MS);
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

/** The roots not inside another root. */
function outermost(roots: readonly string[]): string[] {
  const sorted = [...new Set(roots)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const r of sorted) if (!out.some((o) => r === o || r.startsWith(o.endsWith(path.sep) ? o : o + path.sep))) out.push(r);
  return out;
}

/** What git itself takes for a repository directory: HEAD, and objects and refs (or a commondir that has them). */
function isBareRepository(names: ReadonlySet<string>): boolean {
  return names.has('HEAD') && ((names.has('objects') && names.has('refs')) || names.has('commondir'));
}

async function lstatOrUndefined(p: string) {
  try {
    return await lstat(p);
  } catch {
    return undefined;
  }
}

async function readSmall(file: string): Promise<string | undefined> {
  try {
    const s = await stat(file);
    if (!s.isFile() || s.size > MAX_CONFIG_BYTES) return undefined;
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** `gitdir: <path>` of a gitfile, resolved against the file's folder. */
async function gitfileTarget(file: string): Promise<string | undefined> {
  const text = await readSmall(file);
  const m = text === undefined ? undefined : /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return m ? path.resolve(path.dirname(file), m[1]!) : undefined;
}

/** A one-line path file (`commondir`), resolved against `base`. */
async function pointer(file: string, base: string): Promise<string | undefined> {
  const text = (await readSmall(file))?.trim();
  return text ? path.resolve(base, text) : undefined;
}

/**
 * Paths a git configuration file names through keys that run programs or load files: every word of such a value that
 * looks like a path, resolved as git would (relative to the worktree for commands, to the file's folder for
 * `include.path`; `~/` is home). A program path counts only when something is there; a hooks folder or an include
 * counts either way.
 */
export async function namedByConfig(file: string, worktree: string, home: string): Promise<string[]> {
  const text = await readSmall(file);
  if (text === undefined) return [];
  const out: string[] = [];
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      section = `${header[1]!.toLowerCase()}${header[2] !== undefined ? `.${header[2]}` : ''}`;
      line = line.slice(header[0].length).trim();
      if (line === '') continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!m || m[2] === undefined) continue;
    const key = `${section}.${m[1]!.toLowerCase()}`;
    const spec = CONFIG_PATH_KEYS.find((k) => k.key.test(key));
    if (spec === undefined) continue;
    const value = m[2].replace(/\s[#;].*$/, '');
    for (const word of value.split(/[\s'"]+/)) {
      const w = word.replace(/^!/, '');
      if (w === '' || !/[/.]/.test(w) || /^[a-z][a-z0-9+.-]*:/i.test(w)) continue;
      const expanded = w === '~' ? home : w.startsWith('~/') ? path.join(home, w.slice(2)) : w;
      const abs = path.resolve(spec.relativeToFile ? path.dirname(file) : worktree, expanded);
      // A program or an include is a file (`git add .` in an alias names the worktree, not a program); the hooks
      // setting names a folder.
      const st = await lstatOrUndefined(abs);
      const wanted = spec.folder === true ? st === undefined || st.isDirectory() : st === undefined ? spec.always === true : !st.isDirectory();
      if (wanted) out.push(abs);
    }
  }
  return out;
}
