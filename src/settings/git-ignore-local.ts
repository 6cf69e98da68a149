/**
 * A person's local settings file (`.claude/settings.local.json`, toolgate's `.toolgate/settings.local.json`) holds
 * their grants for one machine: it must not end up in a commit. Claude Code adds `**∕.claude/settings.local.json` to
 * the user's global git ignore file; toolgate touches nothing outside the repository and writes the file's path to
 * the repository's own `.git/info/exclude` (never committed, this clone only), when git does not already ignore it.
 * Best effort: no git, no repository, or a git that fails leaves the grant written and the file as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gitResultSync, runGitSync } from '../tool/git-runner.js';

// Through the hardened runner (tool/git-runner.ts): the folder may be anyone's repository, or look like one.
function git(args: readonly string[], cwd: string): string | undefined {
  try {
    return runGitSync(args, { cwd, timeoutMs: 10_000 }).trim();
  } catch {
    return undefined;
  }
}

/** gitignore syntax for exactly this path, anchored at the repository's root. */
function exactPattern(relative: string): string {
  return `/${relative.split(path.sep).join('/').replace(/[\\*?[\]]/g, (c) => `\\${c}`)}`;
}

/**
 * Makes git ignore `file` (in a repository) through `.git/info/exclude`. Returns the exclude file when it was edited;
 * undefined when there was nothing to do (no repository, already ignored) or git could not be asked.
 */
export function ensureGitIgnored(file: string): string | undefined {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) return undefined;
  const top = git(['rev-parse', '--show-toplevel'], dir);
  if (top === undefined || top === '') return undefined;
  // Exit 0: ignored already (a .gitignore, the global ignore file, or an earlier exclude line).
  try {
    if (gitResultSync(['check-ignore', '-q', '--no-index', file], { cwd: dir, timeoutMs: 10_000 }).status !== 1) return undefined;
  } catch {
    return undefined;
  }
  const exclude = git(['rev-parse', '--git-path', 'info/exclude'], dir);
  if (exclude === undefined || exclude === '') return undefined;
  const excludeFile = path.resolve(dir, exclude);
  const relative = path.relative(fs.realpathSync(top), fs.realpathSync(file));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const line = exactPattern(relative);
  let current = '';
  try {
    current = fs.readFileSync(excludeFile, 'utf8');
  } catch {
    // No exclude file yet: it is created.
  }
  if (current.split('\n').includes(line)) return undefined;
  try {
    fs.mkdirSync(path.dirname(excludeFile), { recursive: true });
    const note = '# personal settings of toolgate / Claude Code: this machine only (added by toolgate)\n';
    fs.appendFileSync(excludeFile, `${current === '' || current.endsWith('\n') ? '' : '\n'}${current.includes(note) ? '' : note}${line}\n`);
  } catch {
    return undefined;
  }
  return excludeFile;
}
