/**
 * Protected paths: configuration that runs code or carries credentials (VCS internals, editor and agent settings,
 * shell start-up files). A write to one always asks — allow rules and acceptEdits cannot pre-approve it — except in
 * bypassPermissions. Matched per path segment, case-insensitively (case-insensitive filesystems exist).
 */

/** A path with any of these as a segment is protected. */
export const PROTECTED_DIRECTORIES: readonly string[] = [
  '.git',
  '.claude',
  '.toolgate',
  '.vscode',
  '.idea',
  '.husky',
  '.cargo',
  '.devcontainer',
  '.yarn',
  '.mvn',
  '.ssh',
  '.gnupg',
];

/** Two-segment directories (`.config/git`). */
export const PROTECTED_NESTED_DIRECTORIES: readonly (readonly [string, string])[] = [
  ['.config', 'git'],
  ['.config', 'fish'],
];

/** A path whose last segment is one of these is protected. */
export const PROTECTED_FILES: readonly string[] = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.cshrc',
  '.tcshrc',
  '.inputrc',
  '.envrc',
  '.gitconfig',
  '.gitmodules',
  '.gitattributes',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.netrc',
  '.ripgreprc',
  '.mcp.json',
  '.claude.json',
];

/**
 * Claude Code's own exception: agent worktrees live under `.claude/worktrees` and are ordinary project files; so are
 * toolgate's (EnterWorktree makes them under `.toolgate/worktrees`). What a worktree holds in its own `.git`,
 * `.claude` or `.toolgate` is protected as anywhere else.
 */
const EXEMPT_AFTER: readonly (readonly [string, string])[] = [
  ['.claude', 'worktrees'],
  ['.toolgate', 'worktrees'],
];

const DIRS = new Set(PROTECTED_DIRECTORIES);
const FILES = new Set(PROTECTED_FILES);

/** The protected segment a path contains (for the trace), or undefined. */
export function protectedPathReason(absPath: string): string | undefined {
  const segs = absPath.split('/').filter((s) => s !== '');
  const lower = segs.map((s) => s.toLowerCase());
  for (let i = 0; i < lower.length; i++) {
    const seg = lower[i]!;
    if (DIRS.has(seg)) {
      const exempt = EXEMPT_AFTER.some(([a, b]) => a === seg && lower[i + 1] === b && i + 2 < lower.length);
      if (!exempt) return `${segs[i]}/`;
    }
    if (i + 1 < lower.length && PROTECTED_NESTED_DIRECTORIES.some(([a, b]) => a === seg && b === lower[i + 1])) {
      return `${segs[i]}/${segs[i + 1]}/`;
    }
  }
  const last = lower[lower.length - 1];
  if (last !== undefined && FILES.has(last)) return segs[segs.length - 1];
  return undefined;
}

export function isProtectedPath(absPath: string): boolean {
  return protectedPathReason(absPath) !== undefined;
}
