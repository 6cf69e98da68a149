/**
 * The git side of EnterWorktree / ExitWorktree: find the project's own repository, add a worktree under the
 * toolgate-managed folder `<repository>/.toolgate/worktrees/<name>` on a new branch, check that a path is a worktree of
 * that repository, say what a worktree holds that removing it would lose, and remove it with its branch.
 *
 * Every git runs through the hardened runner (tool/git-runner.ts): the call's permission covers "make a worktree", not
 * running what a repository's configuration names (hooks, fsmonitor, filters). The repository is the one git finds
 * from the permission context's working directory with bare repositories refused unless named — a vendored folder laid
 * out as a bare repository is not a repository here — and it is then always named explicitly (`--git-dir`). The
 * worktree folder is a real folder inside the working directories: every component is checked with lstat (a committed
 * symlink `.toolgate/worktrees -> ~` must not send the checkout to the home folder), made by us one level at a time,
 * and git creates the worktree relative to the folder it was checked as, started in it. The checkout itself is a
 * separate `reset --hard` in the new worktree, so that the runner reads the filter names there (an `includeIf
 * "onbranch:…"` sees the worktree's branch) before any file is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GitError, runGit } from '../../tool/git-runner.js';

export { GitError };

/** Where worktrees live, under the repository's top level. */
export const WORKTREES_FOLDER = path.join('.toolgate', 'worktrees');
export const MAX_WORKTREE_NAME = 64;

/** A name: `/`-separated segments of letters, digits, `.`, `_`, `-` (no `.` or `..` segment), at most 64 characters. */
export function isValidWorktreeName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_WORKTREE_NAME && name.split('/').every((seg) => /^[A-Za-z0-9._-]+$/.test(seg) && seg !== '.' && seg !== '..');
}

/** A repository as git itself names it (physical paths). */
export interface OwnRepository {
  /** The top level of its working tree. */
  readonly root: string;
  /** The git directory of that working tree (a linked worktree's own, under the common directory). */
  readonly gitDir: string;
  /** Where its configuration, objects, refs and worktree list are. */
  readonly commonDir: string;
}

/**
 * The repository git finds from `cwd` (bare repositories refused unless named, so a folder that merely looks like one
 * does not count), or undefined when there is none or git refuses.
 */
export async function findRepository(cwd: string, signal?: AbortSignal): Promise<OwnRepository | undefined> {
  let out: string;
  try {
    out = await runGit(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-dir', '--git-common-dir'], { cwd, ...(signal ? { signal } : {}) });
  } catch {
    return undefined;
  }
  const [root, gitDir, commonDir] = out.split('\n');
  if (!root || !gitDir || !commonDir) return undefined;
  return { root: physical(root), gitDir: physical(gitDir), commonDir: physical(commonDir) };
}

const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

/** Runs git on the repository, named explicitly, started in `cwd` (default: its top level). */
function gitIn(repo: OwnRepository, args: readonly string[], signal?: AbortSignal, cwd: string = repo.root): Promise<string> {
  return runGit(args, { cwd, gitDir: repo.gitDir, ...(signal ? { signal } : {}) });
}

export interface CreatedWorktree {
  readonly path: string;
  readonly branch: string;
  /** The commit it started from (the checkout's HEAD): its own commits are the ones after it. */
  readonly baseCommit: string;
}

/**
 * Makes (or checks) each folder from `base` down to `dir`: every component must be a real directory, never a symbolic
 * link or anything else; absent ones are made here, one level at a time, and checked again.
 */
function realFolderChain(base: string, dir: string): void {
  let at = base;
  for (const part of path.relative(base, dir).split(path.sep).filter((p) => p !== '')) {
    at = path.join(at, part);
    let st = lstatOrUndefined(at);
    if (st === undefined) {
      try {
        fs.mkdirSync(at);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new GitError(`cannot make ${at}: ${(error as Error).message}`);
      }
      st = lstatOrUndefined(at);
    }
    if (st === undefined || st.isSymbolicLink() || !st.isDirectory()) {
      throw new GitError(`${at} is ${st?.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: worktrees are made only in real folders inside the project`);
    }
  }
  if (physical(dir) !== dir) throw new GitError(`${dir} is not where its path says (a component was replaced): refusing to make a worktree there`);
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** `*` in `<folder>/.gitignore`, written without following a link planted there (and never into a second name). */
function writeIgnoreAll(folder: string): void {
  const file = path.join(folder, '.gitignore');
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o644);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1) throw new GitError(`${file} is not a plain file: refusing to write it`);
    const current = st.size <= 64 ? fs.readFileSync(fd, 'utf8') : '';
    if (current.trim() === '*') return;
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, '*\n', 0);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * `git worktree add -b worktree-<name> <root>/.toolgate/worktrees/<name> HEAD` in the repository, checked out with
 * every filter switched off; the folder is git-ignored. `workingDirs`: the session's working directories (physical),
 * one of which must hold the worktree folder.
 */
export async function createWorktree(repo: OwnRepository, name: string, workingDirs: readonly string[], signal?: AbortSignal): Promise<CreatedWorktree> {
  const folder = path.join(repo.root, WORKTREES_FOLDER);
  const target = path.join(folder, name);
  if (!workingDirs.some((d) => within(folder, d))) {
    throw new GitError(`the repository's top level ${repo.root} is outside the working directories: worktrees are made only inside the project`);
  }
  if (lstatOrUndefined(target) !== undefined) throw new GitError(`${target} exists already: enter it with \`path\`, or choose another name`);
  const branch = `worktree-${name}`;
  await gitIn(repo, ['check-ref-format', '--branch', branch], signal).catch(() => {
    throw new GitError(`"${branch}" is not a valid branch name; choose another worktree name`);
  });
  const baseCommit = (
    await gitIn(repo, ['rev-parse', '--verify', 'HEAD'], signal).catch(() => {
      throw new GitError('the repository has no commit yet: a worktree needs one to start from');
    })
  ).trim();
  const parent = path.dirname(target);
  realFolderChain(repo.root, parent);
  // The worktrees must not show up as untracked files of the checkout they came from.
  writeIgnoreAll(folder);
  // Started in the folder just checked, with the worktree named relative to it: git makes it there.
  await gitIn(repo, ['worktree', 'add', '--no-checkout', '-b', branch, `./${path.basename(target)}`, baseCommit], signal, parent);
  try {
    const made = physical(target);
    if (made !== target) throw new GitError(`the worktree landed at ${made}, not ${target}`);
    await runGit(['reset', '--hard', '--quiet', '--no-recurse-submodules'], { cwd: target, ...(signal ? { signal } : {}) });
  } catch (error) {
    await removeWorktree(repo, target, branch).catch(() => {});
    throw error;
  }
  return { path: target, branch, baseCommit };
}

/** The worktrees registered in the repository (physical paths), the main one first. */
export async function listWorktrees(repo: OwnRepository, signal?: AbortSignal): Promise<string[]> {
  const out = await gitIn(repo, ['worktree', 'list', '--porcelain', '-z'], signal);
  return out.split('\0').flatMap((line) => (line.startsWith('worktree ') ? [physical(line.slice('worktree '.length))] : []));
}

/**
 * Whether `wanted` (physical) is a linked worktree of the repository: registered in its worktree list, and tied to it
 * both ways — its `.git` is a plain file whose `gitdir:` is `<common dir>/worktrees/<id>`, whose own `gitdir` file
 * names `wanted/.git` back. A worktree list alone is only what the repository's files say.
 */
export async function isLinkedWorktreeOf(repo: OwnRepository, wanted: string, signal?: AbortSignal): Promise<boolean> {
  if (wanted === repo.root || !(await listWorktrees(repo, signal)).includes(wanted)) return false;
  const dotGit = path.join(wanted, '.git');
  const st = lstatOrUndefined(dotGit);
  if (st === undefined || !st.isFile() || st.nlink !== 1) return false;
  const m = /^gitdir: *(.+?)\s*$/m.exec(readSmall(dotGit) ?? '');
  if (!m) return false;
  const adminDir = physical(path.resolve(wanted, m[1]!));
  if (path.dirname(adminDir) !== path.join(repo.commonDir, 'worktrees')) return false;
  const back = readSmall(path.join(adminDir, 'gitdir'))?.trim();
  return back !== undefined && back !== '' && physical(path.resolve(adminDir, back)) === dotGit;
}

function readSmall(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    return st.isFile() && st.size <= 4096 ? fs.readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

export interface WorktreeChanges {
  /** Files `git status` lists (changed, staged, untracked). */
  readonly uncommittedFiles: number;
  /** Commits on the worktree's HEAD that its base commit does not have. */
  readonly newCommits: number;
}

export async function worktreeChanges(worktree: string, baseCommit: string, signal?: AbortSignal): Promise<WorktreeChanges> {
  const opts = { cwd: worktree, ...(signal ? { signal } : {}) };
  const status = await runGit(['status', '--porcelain', '--untracked-files=all'], opts);
  const count = await runGit(['rev-list', '--count', `${baseCommit}..HEAD`], opts);
  return { uncommittedFiles: status.split('\n').filter((l) => l.trim() !== '').length, newCommits: Number(count.trim()) || 0 };
}

/** Removes the worktree (even with changes: the caller decided) and deletes its branch. */
export async function removeWorktree(repo: OwnRepository, worktree: string, branch: string, signal?: AbortSignal): Promise<void> {
  await gitIn(repo, ['worktree', 'remove', '--force', worktree], signal);
  await gitIn(repo, ['branch', '-D', branch], signal);
}

export function physical(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
