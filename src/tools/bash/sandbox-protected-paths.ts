/**
 * What a sandboxed command must not write because the host runs it later: repository metadata first of all. Git runs
 * programs named by a repository's configuration (`core.fsmonitor`, hooks, drivers, `core.pager`, …) on an ordinary
 * `git status`, and finds that configuration through files any writer could plant (`.git/config`, `config.worktree`,
 * `commondir`, a `.git` file's `gitdir:`, `info/attributes`, `worktrees/*`, `modules/*`, a bare repository's own
 * `config`). So every repository found in the writable roots is kept read-only as a whole: each `.git` (directory or
 * gitfile, and the directory a gitfile or `commondir` points to), each bare repository, and what its configuration —
 * with every file it includes, to git's depth — and the user's global configuration name inside the writable roots
 * (`core.hooksPath`, `include.path`, program paths such as a `core.fsmonitor` script).
 *
 * Where a repository could appear that git outside would use, a placeholder keeps it from being made: an empty
 * read-only `.git` at each working directory without one (git skips an empty `.git`, so git inside the sandbox still
 * finds the enclosing repository) and a `HEAD` folder beside it (git takes a folder with HEAD, objects and refs for a
 * bare repository before it looks further up); and `<submodule>/.git` for each gitlink of a repository's index
 * (sandbox-submodules.ts), initialised or not — `git status` looks into every submodule that has a `.git`.
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
 * The walk (sandbox-folder-walk.ts) is breadth-first, skips `node_modules` and symbolic links, stops after
 * `MAX_SCANNED_DIRS` folders, reads again only the folders that changed, and keeps protecting what earlier looks found
 * while it exists. What the look cannot vouch for is said in `incomplete`: the command is then not approved for being
 * sandboxed (it asks). A protected file with a second name (a hard link) is reported in `linked`: the command is then
 * not run sandboxed at all, since bubblewrap protects a name, not a file.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { forgetWalk, walkFolders, withEarlierFindings } from './sandbox-folder-walk.js';
import { namedByConfigs, readSmall } from './sandbox-git-config.js';
import { forgetIndexes, submoduleFolders } from './sandbox-submodules.js';

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
/** Submodule folders protected at most per look (an index or `.gitmodules` a command made could list any number). */
const MAX_SUBMODULES = 1_000;

export interface ProtectedScan {
  readonly paths: string[];
  /**
   * Why the scan may have missed something (too many folders, an index it cannot read, too many included files):
   * it cannot vouch for what it protects, so a command is not approved for running sandboxed (tools/bash/index.ts).
   */
  readonly incomplete?: string;
  /**
   * Protected files that have more than one name (hard links made before the session): another name may be writable,
   * and bubblewrap protects a name, not a file. The command is not run sandboxed (sandbox-policy.ts).
   */
  readonly linked?: string[];
}

export interface ScanOptions {
  readonly workingDirs: readonly string[];
  /** Every folder the sandbox lets commands write (working directories included). */
  readonly writableRoots: readonly string[];
  readonly home: string;
  readonly maxDirs?: number;
}

/** A repository directory to read: its worktree, and whether its index is this worktree's own (to read gitlinks). */
interface GitDir {
  readonly dir: string;
  readonly worktree: string;
  readonly own: boolean;
}

export async function scanProtectedPaths(options: ScanOptions): Promise<ProtectedScan> {
  const roots = outermost(options.writableRoots.map((r) => path.resolve(r)));
  const inWritable = (p: string) => roots.some((r) => within(p, r));
  // Never a writable root itself or a folder holding one: that would make the project read-only.
  const protectable = (p: string) => inWritable(p) && !roots.some((r) => r === p || r.startsWith(p + path.sep));
  const out = new Set<string>();
  const gitDirs: GitDir[] = [];
  const gaps: string[] = [];

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
    if (lstatOrUndefined(dotGit) === undefined) {
      out.add(path.join(dotGit, 'config'));
      // Nor may the folder itself become a repository: git takes a folder with a valid HEAD, objects/ and refs/ for
      // a bare one (outside toolgate safe.bareRepository defaults to `all`) before it looks further up for the
      // enclosing repository (a monorepo package). A HEAD that is a folder is never valid.
      for (const name of bareLayoutBlockers(dir)) for (const p of [path.join(dir, name), path.join(dir, name, PLACEHOLDER_CHILD)]) out.add(p);
    }
  }
  // The repository a working directory is inside of (a monorepo package as the working directory): its metadata is
  // outside the writable roots, but its configuration may name hooks or programs inside them, and its index
  // submodules there.
  for (const dir of options.workingDirs) {
    for (let d = path.dirname(dir); ; d = path.dirname(d)) {
      const dotGit = path.join(d, '.git');
      const st = lstatOrUndefined(dotGit);
      if (st?.isDirectory()) gitDirs.push({ dir: dotGit, worktree: d, own: true });
      else if (st?.isFile()) {
        const target = gitfileTarget(dotGit);
        if (target !== undefined) gitDirs.push({ dir: target, worktree: d, own: true });
      }
      if (st !== undefined || path.dirname(d) === d) break;
    }
  }
  // The user's global configuration: theirs, but what it includes or names may lie in a writable folder.
  const global = namedByConfigs(globalConfigFiles(options.home), options.home, options.home);
  for (const named of global.named) if (protectable(named)) out.add(named);
  // A home folder inside a writable root: git's global configuration is in it.
  if (inWritable(options.home)) for (const rel of ['.gitconfig', '.config/git']) out.add(path.join(options.home, rel));

  // Breadth-first over the writable roots: `.git` entries, bare repositories, nested protected names — and what
  // earlier looks found, where this one stopped short.
  const walk = await walkFolders(roots, options.maxDirs ?? MAX_SCANNED_DIRS, NESTED_PROTECTED);
  if (walk.incomplete !== undefined) gaps.push(walk.incomplete);
  for (const [p, kind] of withEarlierFindings(walk, inWritable)) {
    out.add(p);
    if (kind === 'bare') gitDirs.push({ dir: p, worktree: p, own: false });
    else if (kind === 'git') pushGitEntry(gitDirs, p);
  }

  // Each repository: the directories it points to, its submodules, what its configuration names.
  const configRead = new Set<string>();
  const indexRead = new Set<string>();
  const linkChecks = new Set<string>();
  let submodules = 0;
  for (let i = 0; i < gitDirs.length; i++) {
    const { dir, worktree, own } = gitDirs[i]!;
    out.add(dir);
    if (own && !indexRead.has(dir)) {
      indexRead.add(dir);
      const subs = submoduleFolders(dir, worktree);
      if (subs.unknown !== undefined) gaps.push(subs.unknown);
      for (const folder of subs.folders) {
        if (!inWritable(folder) || !realFolders(worktree, folder)) continue;
        if (++submodules > MAX_SUBMODULES) {
          gaps.push(`more than ${MAX_SUBMODULES} submodules: the others are not protected`);
          break;
        }
        const dotGit = path.join(folder, '.git');
        // Not initialised (no .git yet): a placeholder keeps one from being made, as at a working directory.
        if (lstatOrUndefined(dotGit) === undefined) out.add(path.join(dotGit, 'config'));
        else {
          out.add(dotGit);
          pushGitEntry(gitDirs, dotGit);
        }
      }
    }
    if (configRead.has(dir)) continue;
    configRead.add(dir);
    const common = pointer(path.join(dir, 'commondir'), dir);
    if (common !== undefined) gitDirs.push({ dir: common, worktree, own: false });
    const config = namedByConfigs([path.join(dir, 'config'), path.join(dir, 'config.worktree')], worktree, options.home);
    if (!config.complete) gaps.push(`the configuration of ${dir} includes too many files`);
    for (const named of config.named) if (protectable(named)) out.add(named);
    for (const file of ['config', 'config.worktree', 'commondir', 'info/attributes']) linkChecks.add(path.join(dir, file));
    for (const hook of hooksIn(path.join(dir, 'hooks'))) linkChecks.add(hook);
  }
  const paths = [...out].filter(inWritable);
  for (const p of paths) linkChecks.add(p);
  const linked = [...linkChecks].filter(hasOtherNames);
  return {
    paths,
    ...(gaps.length > 0 ? { incomplete: [...new Set(gaps)].join('; ') } : {}),
    ...(linked.length > 0 ? { linked } : {}),
  };
}

const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

/**
 * What a working directory without `.git` must not gain to be a repository by itself: `HEAD` (a placeholder folder,
 * which git never takes for a valid HEAD); where a HEAD is there already, `objects`, `refs` and `commondir` too.
 */
function bareLayoutBlockers(dir: string): string[] {
  const head = lstatOrUndefined(path.join(dir, 'HEAD'));
  return head === undefined || head.isDirectory() ? ['HEAD'] : ['HEAD', 'objects', 'refs', 'commondir'];
}

/** A `.git` entry: its directory, or the one its gitfile names, as a repository whose worktree is its folder. */
function pushGitEntry(gitDirs: GitDir[], dotGit: string): void {
  const st = lstatOrUndefined(dotGit);
  if (st?.isDirectory()) gitDirs.push({ dir: dotGit, worktree: path.dirname(dotGit), own: true });
  else if (st?.isFile()) {
    const target = gitfileTarget(dotGit);
    if (target !== undefined) gitDirs.push({ dir: target, worktree: path.dirname(dotGit), own: true });
  }
}

/** Each folder from `top` down to `folder` that exists is a real folder (git looks into no submodule past a link). */
function realFolders(top: string, folder: string): boolean {
  let at = top;
  for (const part of path.relative(top, folder).split(path.sep)) {
    at = path.join(at, part);
    const st = lstatOrUndefined(at);
    if (st === undefined) return true;
    if (!st.isDirectory()) return false;
  }
  return true;
}

/** `~/.gitconfig` and `$XDG_CONFIG_HOME/git/config` (else `~/.config/git/config`). */
function globalConfigFiles(home: string): string[] {
  const xdg = process.env.XDG_CONFIG_HOME;
  return [path.join(home, '.gitconfig'), path.join(xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'git', 'config')];
}

/** The hooks in a folder, sample hooks left out (git never runs them). */
function hooksIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => !n.endsWith('.sample'))
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

/** A regular file with more than one name. */
function hasOtherNames(file: string): boolean {
  try {
    const st = lstatSync(file);
    return st.isFile() && st.nlink > 1;
  } catch {
    return false;
  }
}

/** Forgets every folder read, everything found and every index read (the next look starts afresh): tests, measurements. */
export function forgetScannedFolders(): void {
  forgetWalk();
  forgetIndexes();
}

/** Below every absent protected name, so that its placeholder is a folder (never created: it is inside it). */
export const PLACEHOLDER_CHILD = '.sandbox-placeholder';

/** The roots not inside another root. */
function outermost(roots: readonly string[]): string[] {
  const sorted = [...new Set(roots)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const r of sorted) if (!out.some((o) => r === o || r.startsWith(o.endsWith(path.sep) ? o : o + path.sep))) out.push(r);
  return out;
}

// Synchronous, like the walk and the configuration reads: each call is cheaper than a trip through the thread pool.
function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** `gitdir: <path>` of a gitfile, resolved against the file's folder. */
function gitfileTarget(file: string): string | undefined {
  const text = readSmall(file);
  const m = text === undefined ? undefined : /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return m ? path.resolve(path.dirname(file), m[1]!) : undefined;
}

/** A one-line path file (`commondir`), resolved against `base`. */
function pointer(file: string, base: string): string | undefined {
  const text = readSmall(file)?.trim();
  return text ? path.resolve(base, text) : undefined;
}
