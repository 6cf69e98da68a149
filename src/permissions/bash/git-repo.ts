/**
 * Which repository a git command will use, found the way git finds it (issue 21): from where it runs (`cd`, `-C`),
 * upwards, the first directory with a `.git` — a folder, or a file whose `gitdir:` points anywhere — or that is itself
 * a git directory (a bare repository: `HEAD`, `objects`, `refs`; no `.git` needed), or the one `--git-dir`/`GIT_DIR`
 * names; its configuration lives in its common directory (`commondir`). That configuration names programs git runs on
 * its own (fsmonitor, pager, diff and merge drivers, textconv, clean/smudge filters, hooks, ssh), so:
 *  - a repository that is not the project's own (the one found from the project root or a working directory) asks;
 *  - the project's own repository keeps auto-allowed git commands only while its configuration names no such program
 *    that the Bash tool does not switch off itself (it sets `core.fsmonitor=false`, `safe.bareRepository=explicit` and
 *    a plain pager for every command: tools/bash/git-safety-env.ts).
 * Nothing is cached: a repository planted between two commands must be seen by the second.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { ToolPermissionContext } from '../../tool/permission-types.js';
import { racilyClean } from '../../tool/racy-clean.js';
import { bigStatIfExists, lstatIfExists, readTextSync, realpathNative, statIfExists } from '../observed-fs.js';
import { readOptions, type OptionSyntax } from './option-reader.js';
import type { CwdState } from './paths.js';
import { GLOBAL_OPTIONS } from './program-options.js';
import type { MatchWord } from './rule-match.js';
import type { SimpleCommand } from './types.js';

export interface GitRepo {
  /** The git directory (real path). */
  readonly gitDir: string;
  /** Where its configuration, objects and refs are (`commondir`), real path. */
  readonly commonDir: string;
  /** How it was found, for messages. */
  readonly how: string;
}

/** What git would do from a directory: use a repository, find none, or stop with an error (an unreadable `.git` file). */
export type Discovery = { readonly kind: 'repo'; readonly repo: GitRepo } | { readonly kind: 'none' } | { readonly kind: 'invalid'; readonly reason: string };

const real = (p: string): string => {
  try {
    return realpathNative(p);
  } catch {
    return resolve(p);
  }
};

// Checked on every git command: no exceptions on the common "not there" path (they cost more than the syscall).
const lstat = (p: string) => {
  try {
    return lstatIfExists(p);
  } catch {
    return undefined;
  }
};
const exists = (p: string): boolean => lstat(p) !== undefined;

const isDir = (p: string): boolean => {
  try {
    return statIfExists(p)?.isDirectory() ?? false;
  } catch {
    return false;
  }
};

/** Where `commondir` points (git's own layout for worktrees), or the git directory itself. */
function commonDirOf(gitDir: string): string {
  const file = join(gitDir, 'commondir');
  if (!exists(file)) return gitDir;
  try {
    const text = readTextSync(file).trim();
    if (text !== '') return real(isAbsolute(text) ? text : join(gitDir, text));
  } catch {
    // unreadable: git would not use it either
  }
  return gitDir;
}

/**
 * Could git take this directory as a git directory (`is_git_directory`)? Wider than git on purpose: a `HEAD` beside
 * `objects`/`refs` (or a `commondir`) is enough, whatever their contents.
 */
export function looksLikeGitDir(dir: string): boolean {
  if (!exists(join(dir, 'HEAD'))) return false;
  if (exists(join(dir, 'commondir'))) return true;
  return exists(join(dir, 'objects')) && exists(join(dir, 'refs'));
}

function repoAt(gitDir: string, how: string): Discovery {
  const g = real(gitDir);
  return { kind: 'repo', repo: { gitDir: g, commonDir: commonDirOf(g), how } };
}

/**
 * The repository git would use when started in `start` (an absolute directory). git walks up from the directory
 * the kernel gives it (getcwd: the physical one), so a symbolic link into another repository's subfolder leads there.
 */
export function discoverRepository(start: string): Discovery {
  for (let dir = real(start); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const st = lstat(dotGit);
    if (st) {
      if (st.isFile()) {
        let text: string;
        try {
          text = readTextSync(dotGit);
        } catch {
          return { kind: 'invalid', reason: `${dotGit} cannot be read` };
        }
        const m = /^gitdir: *(.+?)\s*$/m.exec(text);
        if (!m) return { kind: 'invalid', reason: `${dotGit} is not a gitdir: file` };
        const target = isAbsolute(m[1]!) ? m[1]! : join(dir, m[1]!);
        return repoAt(target, `${dotGit} points to ${target}`);
      }
      if (isDir(dotGit) && looksLikeGitDir(dotGit)) return repoAt(dotGit, dotGit);
    }
    if (looksLikeGitDir(dir)) return repoAt(dir, `${dir} (a bare repository)`);
    if (dirname(dir) === dir) return { kind: 'none' };
  }
}

export const sameRepo = (a: GitRepo, b: GitRepo): boolean => a.gitDir === b.gitDir && a.commonDir === b.commonDir;

/**
 * The repository is `own`, a linked worktree of it (same common directory) or a submodule whose git directory git
 * made inside it (`.git/modules/…`): their configuration is the repository's own or written by git itself.
 */
const ownedBy = (repo: GitRepo, own: GitRepo): boolean => repo.commonDir === own.commonDir || repo.gitDir.startsWith(`${own.commonDir}/`);

/**
 * Configuration variables that make git run a program (or read another tree) that the Bash tool does not switch off:
 * diff drivers and textconv (diff, log -p, show, blame, grep), clean/smudge filters (status, diff), an external diff,
 * gpg (log with signatures), and includes (their contents are not read here).
 */
function namesProgram(section: string, sub: string | undefined, name: string): boolean {
  switch (section) {
    case 'diff':
      return sub === undefined ? name === 'external' : name === 'command' || name === 'textconv';
    case 'filter':
      return sub !== undefined && (name === 'clean' || name === 'smudge' || name === 'process');
    case 'gpg':
      return name === 'program';
    case 'include':
    case 'includeif':
      return name === 'path';
    default:
      return false;
  }
}

/** The first program-naming variable in a git config file's text, or why the text cannot be read. */
export function programInConfig(text: string): string | undefined {
  let section: string | undefined;
  let sub: string | undefined;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!.replace(/\r$/, '').trimStart();
    if (line.startsWith('[')) {
      const m = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
      if (!m) return `an unreadable section header on line ${n + 1}`;
      const dot = m[1]!.indexOf('.');
      // `[diff "x"]`, and the old spelling `[diff.x]`.
      section = (dot < 0 ? m[1]! : m[1]!.slice(0, dot)).toLowerCase();
      sub = m[2] ?? (dot < 0 ? undefined : m[1]!.slice(dot + 1));
      line = line.slice(m[0].length).trimStart();
    }
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const k = /^([A-Za-z][A-Za-z0-9-]*)\s*(=|$|[#;])/.exec(line);
    if (!k || section === undefined) return `an unreadable line ${n + 1}`;
    const name = k[1]!.toLowerCase();
    if (namesProgram(section, sub, name)) return `${section}.${sub === undefined ? '' : `${sub}.`}${name}`;
    // A value continued on the next line (`\` at the end, outside a comment) is part of this variable.
    let state = continuation(k[2] === '=' ? line.slice(k[0].length) : '', false);
    while (state.continues && n + 1 < lines.length) state = continuation(lines[++n]!, state.quoted);
  }
  return undefined;
}

/** Does this piece of a value end in a line continuation (a backslash not in a comment), and is a quote open at its end? */
function continuation(piece: string, quotedAtStart: boolean): { continues: boolean; quoted: boolean } {
  let quoted = quotedAtStart;
  const text = piece.replace(/\r$/, '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      if (i === text.length - 1) return { continues: true, quoted };
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '#' || c === ';')) return { continues: false, quoted };
  }
  return { continues: false, quoted };
}

/** Findings by file, kept while the file's identity, size and modification time stay the same. */
const configCache = new Map<string, { readonly key: string; readonly found: string | undefined }>();

/** The program a repository's own configuration names (config, and config.worktree), if any. */
export function repoConfigProgram(repo: GitRepo): string | undefined {
  for (const file of [join(repo.commonDir, 'config'), join(repo.gitDir, 'config.worktree')]) {
    let st;
    try {
      st = bigStatIfExists(file);
    } catch {
      return `${file} cannot be read`;
    }
    if (st === undefined) continue;
    const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    let hit = configCache.get(file);
    if (hit?.key !== key) {
      const at = Date.now();
      let text: string;
      try {
        text = readTextSync(file);
      } catch {
        return `${file} cannot be read`;
      }
      hit = { key, found: programInConfig(text) };
      if (configCache.size > 64) configCache.clear();
      // A config changed just before its reading may change again with the same stat data: read again next time.
      if (!racilyClean({ mtimeMs: Number(st.mtimeNs) / 1e6, ctimeMs: Number(st.ctimeNs) / 1e6 }, at)) configCache.set(file, hit);
      else configCache.delete(file);
    }
    if (hit.found !== undefined) return `${file} sets ${hit.found}`;
  }
  return undefined;
}

/** The project's own repositories: the ones git finds from the project root, the cwd and each working directory. */
export function ownRepositories(ctx: ToolPermissionContext): GitRepo[] {
  const out: GitRepo[] = [];
  for (const dir of new Set([ctx.projectDir, ctx.cwd, ...ctx.additionalWorkingDirectories.keys()].map((d) => resolve(ctx.cwd, d)))) {
    const found = discoverRepository(dir);
    if (found.kind === 'repo' && !out.some((r) => sameRepo(r, found.repo))) out.push(found.repo);
  }
  return out;
}

const GIT_SYNTAX: OptionSyntax = { ...GLOBAL_OPTIONS.git!, stopAtOperand: true };
const ENV_REPO = /^(GIT_DIR|GIT_WORK_TREE|GIT_COMMON_DIR)=/;

export interface GitRepositoryVerdict {
  /** The repository is not the project's own (or cannot be known): ask, whatever the rules say. */
  readonly foreign?: string;
  /** The project's own repository names a program in its configuration: not auto-allowed as read-only. */
  readonly config?: string;
}

/**
 * Which repository this git view (`git …`, words from the program on) will use, in the directories it may run in.
 * `mayCreate`: a subcommand of the same command that may create files (so a repository), if there is one.
 */
export function gitRepositoryCheck(
  view: readonly MatchWord[],
  sub: SimpleCommand,
  state: CwdState,
  ctx: ToolPermissionContext,
  own: () => readonly GitRepo[],
  mayCreate?: () => string | undefined,
): GitRepositoryVerdict {
  const r = readOptions(view, GIT_SYNTAX, 1);
  const dirsOpt: string[] = [];
  let gitDir: string | undefined;
  for (const o of r.options) {
    const name = o.names[0];
    if (name !== '-C' && name !== '--git-dir') continue;
    if (o.value === undefined || !o.value.literal || /[*?[]/.test(o.value.value)) {
      return { foreign: `git ${name} with a value that cannot be known: which repository it uses cannot be known` };
    }
    if (name === '-C') dirsOpt.push(o.value.value);
    else gitDir = o.value.value;
  }
  for (const w of [...sub.assignments, ...sub.words.map((x) => (x.literal ? x.value : ''))]) {
    const m = ENV_REPO.exec(w);
    if (!m) continue;
    const value = w.slice(m[0].length).replace(/^(['"])(.*)\1$/, '$2');
    if (/[$`\\]/.test(value)) return { foreign: `${m[1]} is set to a value that cannot be known: which repository git uses cannot be known` };
    if (m[1] === 'GIT_DIR') gitDir = value;
  }
  if (state.unknown) return { foreign: 'git reads the configuration of the repository it runs in, and where it runs cannot be known here' };
  for (const start of state.dirs) {
    let dir = start;
    for (const c of dirsOpt) dir = resolve(dir, c);
    // Elsewhere than the project's directory, what git finds now is what it will find only if nothing in the same
    // command makes a repository there first (or the directory itself: `mkdir x && cd x && git init && git log`).
    const writer = dir !== ctx.cwd ? mayCreate?.() : undefined;
    if (writer !== undefined) return { foreign: `git would run in ${dir}, and "${writer}" in the same command may create a repository there first` };
    const found = gitDir !== undefined ? repoAt(resolve(dir, gitDir), resolve(dir, gitDir)) : discoverRepository(dir);
    if (found.kind === 'none') continue;
    if (found.kind === 'invalid') return { foreign: `git would stop or use another repository: ${found.reason}` };
    const repo = found.repo;
    if (!own().some((o) => ownedBy(repo, o))) {
      return { foreign: `git would use the repository ${repo.how}, not the project's own; its configuration can name programs git runs (core.fsmonitor, diff and filter drivers, hooks, a pager)` };
    }
    const program = repoConfigProgram(repo);
    if (program !== undefined) return { config: `git runs programs its repository's configuration names (${program}), so it is not read-only` };
  }
  return {};
}
