/**
 * The git side of EnterWorktree / ExitWorktree: find the repository, add a worktree under the toolgate-managed folder
 * `<repository>/.toolgate/worktrees/<name>` on a new branch, say what a worktree holds that removing it would lose,
 * and remove it with its branch. Every git command runs without the repository's hooks and fsmonitor (the call's
 * permission covers "make a worktree", not running programs the repository's configuration names) and never
 * prompts for credentials.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where worktrees live, under the repository's top level. */
export const WORKTREES_FOLDER = path.join('.toolgate', 'worktrees');
export const MAX_WORKTREE_NAME = 64;

/** A name: `/`-separated segments of letters, digits, `.`, `_`, `-` (no `.` or `..` segment), at most 64 characters. */
export function isValidWorktreeName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_WORKTREE_NAME && name.split('/').every((seg) => /^[A-Za-z0-9._-]+$/.test(seg) && seg !== '.' && seg !== '..');
}

export class GitError extends Error {
  override readonly name = 'GitError';
}

export function git(cwd: string, args: readonly string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-C', cwd, ...args],
      { env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' }, maxBuffer: 16 * 1024 * 1024, ...(signal ? { signal } : {}) },
      (error, stdout, stderr) => {
        if (error) reject(new GitError(`git ${args[0]} failed: ${(stderr || error.message).trim().split('\n').slice(0, 3).join(' ')}`));
        else resolve(stdout);
      },
    );
  });
}

/** The top level of the repository `cwd` is in (physical path), or undefined outside one. */
export async function repositoryRoot(cwd: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return physical((await git(cwd, ['rev-parse', '--show-toplevel'], signal)).trim());
  } catch {
    return undefined;
  }
}

export interface CreatedWorktree {
  readonly path: string;
  readonly branch: string;
  /** The commit it started from (the checkout's HEAD): its own commits are the ones after it. */
  readonly baseCommit: string;
}

/** `git worktree add -b worktree-<name> <root>/.toolgate/worktrees/<name> HEAD`; the folder is git-ignored. */
export async function createWorktree(root: string, name: string, signal?: AbortSignal): Promise<CreatedWorktree> {
  const folder = path.join(root, WORKTREES_FOLDER);
  const target = path.join(folder, name);
  if (existsSync(target)) throw new GitError(`${target} exists already: enter it with \`path\`, or choose another name`);
  const branch = `worktree-${name}`;
  await git(root, ['check-ref-format', '--branch', branch], signal).catch(() => {
    throw new GitError(`"${branch}" is not a valid branch name; choose another worktree name`);
  });
  const baseCommit = (await git(root, ['rev-parse', '--verify', 'HEAD'], signal).catch(() => {
    throw new GitError('the repository has no commit yet: a worktree needs one to start from');
  })).trim();
  mkdirSync(folder, { recursive: true });
  // The worktrees must not show up as untracked files of the checkout they came from.
  const ignore = path.join(folder, '.gitignore');
  if (!existsSync(ignore) || readFileSync(ignore, 'utf8').trim() !== '*') writeFileSync(ignore, '*\n');
  await git(root, ['worktree', 'add', '-b', branch, target, baseCommit], signal);
  return { path: physical(target), branch, baseCommit };
}

/** The worktrees of the repository (physical paths), the main one first. */
export async function listWorktrees(root: string, signal?: AbortSignal): Promise<string[]> {
  const out = await git(root, ['worktree', 'list', '--porcelain'], signal);
  return out.split('\n').flatMap((line) => (line.startsWith('worktree ') ? [physical(line.slice('worktree '.length))] : []));
}

export interface WorktreeChanges {
  /** Files `git status` lists (changed, staged, untracked). */
  readonly uncommittedFiles: number;
  /** Commits on the worktree's HEAD that its base commit does not have. */
  readonly newCommits: number;
}

export async function worktreeChanges(worktree: string, baseCommit: string, signal?: AbortSignal): Promise<WorktreeChanges> {
  const status = await git(worktree, ['status', '--porcelain', '--untracked-files=all'], signal);
  const count = await git(worktree, ['rev-list', '--count', `${baseCommit}..HEAD`], signal);
  return { uncommittedFiles: status.split('\n').filter((l) => l.trim() !== '').length, newCommits: Number(count.trim()) || 0 };
}

/** Removes the worktree (even with changes: the caller decided) and deletes its branch. */
export async function removeWorktree(root: string, worktree: string, branch: string, signal?: AbortSignal): Promise<void> {
  await git(root, ['worktree', 'remove', '--force', worktree], signal);
  await git(root, ['branch', '-D', branch], signal);
}

export function physical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
