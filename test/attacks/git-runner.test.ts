/**
 * Invariant 3 (docs/security.md): every git toolgate runs itself goes through one hardened runner, and EnterWorktree
 * works only in the project's own repository, in a real folder inside the project. The attacker is the contents of a
 * repository: committed files (a vendored folder laid out as a bare repository, symlinks, `.gitattributes`), `.git`
 * internals (config naming filters, hooks, fsmonitor; a planted worktree list) and the environment toolgate inherits.
 * Every program a case plants writes a marker file; the tools run through the real runtime, with real git.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { RunResult, ToolRuntime } from '../../src/agent/types.js';
import { writeGrants } from '../../src/settings/grants.js';
import type { ToolUseBlock } from '../../src/tool/tool.js';

let dir: string;
let project: string;
let markers: string;
let outside: string;
const runtimes: ToolRuntime[] = [];

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A program that leaves `<markers>/<name>` when anything runs it, and passes its input through (a filter's job). */
function program(name: string): string {
  const file = path.join(dir, 'bin', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\ntouch '${path.join(markers, name)}'\ncat\n`);
  chmodSync(file, 0o755);
  return file;
}
const ran = () => readdirSync(markers).sort();

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A repository with one commit whose `.gitattributes` routes every file through the filter `x`. */
function repoWithFilteredFiles(at: string, bare = false): void {
  const src = bare ? path.join(dir, `src-${path.basename(at)}`) : at;
  mkdirSync(src, { recursive: true });
  git(src, 'init', '-q', '-b', 'main');
  write(path.join(src, '.gitattributes'), '* filter=x\n');
  write(path.join(src, 'app.txt'), 'v1\n');
  git(src, 'add', '.');
  git(src, 'commit', '-q', '-m', 'first');
  if (bare) git(dir, 'clone', '-q', '--bare', src, at);
}

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-git-')));
  project = path.join(dir, 'project');
  markers = path.join(dir, 'markers');
  outside = path.join(dir, 'home');
  mkdirSync(markers);
  mkdirSync(outside);
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function runtime(cwd = project): Promise<ToolRuntime> {
  const rt = await createToolRuntime({
    cwd,
    sessionDir: path.join(dir, 'session'),
    settings: { sources: [] },
    rules: { allow: ['EnterWorktree', 'ExitWorktree', 'Bash', 'Write'] },
    // A person who says yes to everything: what is refused here is refused by the tool, not by a prompt.
    onPermissionRequest: async () => ({ behavior: 'allow' }),
  });
  runtimes.push(rt);
  return rt;
}

let n = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_atk${++n}`, name, input }) as ToolUseBlock;
const text = (r: RunResult, i = 0): string => {
  const c = r.results[i]!.content;
  return typeof c === 'string' ? c : JSON.stringify(c);
};

describe('EnterWorktree runs no program a repository names', () => {
  it("a vendored folder laid out as a bare repository (filter, hooks, fsmonitor, core.worktree): after `cd` into it, the worktree is the project's own and nothing of the vendored one runs", async () => {
    repoWithFilteredFiles(project);
    const vendored = path.join(project, 'vendor', 'evil');
    repoWithFilteredFiles(vendored, true);
    mkdirSync(path.join(vendored, 'work'));
    git(vendored, 'config', 'core.bare', 'false');
    git(vendored, 'config', 'core.worktree', path.join(vendored, 'work'));
    git(vendored, 'config', 'filter.x.smudge', program('vendored-smudge'));
    git(vendored, 'config', 'core.fsmonitor', program('vendored-fsmonitor'));
    write(path.join(vendored, 'hooks', 'post-checkout'), `#!/bin/sh\ntouch '${path.join(markers, 'vendored-hook')}'\n`);
    chmodSync(path.join(vendored, 'hooks', 'post-checkout'), 0o755);

    const rt = await runtime();
    const r = await rt.run([use('Bash', { command: 'cd vendor/evil' }), use('EnterWorktree', { name: 'w' })]);
    expect(text(r, 1)).toContain(`Created a worktree at ${path.join(project, '.toolgate', 'worktrees', 'w')}`);
    expect(ran()).toEqual([]);
    expect(existsSync(path.join(vendored, 'work', '.toolgate'))).toBe(false);
  });

  it('a project folder that is itself laid out as a bare repository is no repository: refused, nothing runs', async () => {
    repoWithFilteredFiles(project, true);
    mkdirSync(path.join(project, 'work'));
    git(project, 'config', 'core.bare', 'false');
    git(project, 'config', 'core.worktree', path.join(project, 'work'));
    git(project, 'config', 'filter.x.smudge', program('bare-smudge'));
    const rt = await runtime();
    const r = await rt.run([use('EnterWorktree', { name: 'w' })]);
    expect(r.results[0]!.is_error).toBe(true);
    expect(text(r)).toMatch(/is not inside a git repository/);
    expect(ran()).toEqual([]);
    expect(existsSync(path.join(project, 'work', '.toolgate'))).toBe(false);
  });

  it("the project's own configuration names smudge and clean filters (one only for the worktree's branch, through includeIf onbranch), a post-checkout hook and core.fsmonitor: the worktree is made and removed, none of them runs", async () => {
    repoWithFilteredFiles(project);
    git(project, 'config', 'filter.x.smudge', program('smudge'));
    git(project, 'config', 'filter.x.clean', program('clean'));
    git(project, 'config', 'filter.x.required', 'true');
    write(path.join(dir, 'onbranch.cfg'), `[filter "x"]\n\tsmudge = ${program('onbranch-smudge')}\n\tprocess = ${program('onbranch-process')}\n`);
    git(project, 'config', 'includeIf.onbranch:worktree-*.path', path.join(dir, 'onbranch.cfg'));
    git(project, 'config', 'core.fsmonitor', program('fsmonitor'));
    git(project, 'config', 'core.pager', program('pager'));
    git(project, 'config', 'credential.helper', `!${program('credential')}`);
    write(path.join(project, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\ntouch '${path.join(markers, 'hook')}'\n`);
    chmodSync(path.join(project, '.git', 'hooks', 'post-checkout'), 0o755);

    const rt = await runtime();
    const r = await rt.run([use('EnterWorktree', { name: 'w' })]);
    const wt = path.join(project, '.toolgate', 'worktrees', 'w');
    expect(text(r)).toContain(`Created a worktree at ${wt}`);
    expect(ran()).toEqual([]);
    expect(readFileSync(path.join(wt, 'app.txt'), 'utf8')).toBe('v1\n');
    // A change in the worktree makes `git status` (ExitWorktree's look for work to lose) hash the file: no clean filter.
    await rt.run([use('Write', { file_path: path.join(wt, 'app.txt'), content: 'v2\n' })]);
    const removed = await rt.run([use('ExitWorktree', { action: 'remove', discard_changes: true })]);
    expect(text(removed)).toContain(`Removed the worktree ${wt}`);
    expect(ran()).toEqual([]);
  });

  it("a submodule of the worktree populated with a repository of its own (clean filter, fsmonitor): ExitWorktree's `git status` does not look into it, so none of its programs runs", async () => {
    // git status starts `git status` in every populated submodule, under that submodule's own configuration, whose
    // filter names the runner never read. The worktree's submodule folder starts empty (no recursion on checkout):
    // whoever can write the worktree can make it a repository.
    const src = path.join(dir, 'subsrc');
    mkdirSync(src);
    git(src, 'init', '-q', '-b', 'main');
    write(path.join(src, 'lib.txt'), 'lib\n');
    git(src, 'add', '.');
    git(src, 'commit', '-q', '-m', 'lib');
    mkdirSync(project);
    git(project, 'init', '-q', '-b', 'main');
    write(path.join(project, 'README.md'), 'hello\n');
    git(project, 'add', '.');
    git(project, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', src, 'sub');
    git(project, 'commit', '-q', '-m', 'one');
    const rt = await runtime();
    expect(text(await rt.run([use('EnterWorktree', { name: 'w' })]))).toContain('Created a worktree');
    const sub = path.join(project, '.toolgate', 'worktrees', 'w', 'sub');
    git(sub, 'init', '-q');
    write(path.join(sub, '.gitattributes'), '* filter=ev\n');
    write(path.join(sub, 'f'), 'x\n');
    git(sub, 'add', '.');
    git(sub, 'commit', '-q', '-m', 'e');
    git(sub, 'config', 'filter.ev.clean', program('submodule-clean'));
    git(sub, 'config', 'core.fsmonitor', program('submodule-fsmonitor'));
    utimesSync(path.join(sub, 'f'), 1, 1);
    // Plain git in the worktree runs them: the attack is real.
    git(path.dirname(sub), 'status', '--porcelain');
    expect(ran()).toEqual(['submodule-clean', 'submodule-fsmonitor']);
    for (const m of ran()) rmSync(path.join(markers, m));
    utimesSync(path.join(sub, 'f'), 2, 2);
    const removed = await rt.run([use('ExitWorktree', { action: 'remove', discard_changes: true })]);
    expect(text(removed)).toContain('Removed the worktree');
    expect(ran()).toEqual([]);
  });

  it('GIT_* variables toolgate inherits (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_*) do not redirect or configure its git', async () => {
    repoWithFilteredFiles(project);
    const decoy = path.join(dir, 'decoy.git');
    repoWithFilteredFiles(decoy, true);
    git(decoy, 'config', 'filter.x.smudge', program('decoy-smudge'));
    const saved = { ...process.env };
    Object.assign(process.env, {
      GIT_DIR: decoy,
      GIT_WORK_TREE: outside,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: program('env-fsmonitor'),
      GIT_CONFIG_PARAMETERS: `'filter.x.smudge'='${program('env-smudge')}'`,
    });
    try {
      const rt = await runtime();
      const r = await rt.run([use('EnterWorktree', { name: 'w' })]);
      expect(text(r)).toContain(`Created a worktree at ${path.join(project, '.toolgate', 'worktrees', 'w')}`);
      // The settings writer's exclude line goes to the settings file's own repository, not GIT_DIR's.
      const written = writeGrants({ rules: ['Bash(ls:*)'], destination: 'localSettings', projectDir: project, homeDir: outside });
      expect(written.gitIgnoredIn).toBe(path.join(project, '.git', 'info', 'exclude'));
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
    expect(ran()).toEqual([]);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(decoy, 'info', 'exclude')) && readFileSync(path.join(decoy, 'info', 'exclude'), 'utf8')).not.toMatch(/settings\.local\.json/);
  });
});

describe('EnterWorktree makes worktrees only in real folders inside the project', () => {
  it('a committed symlink .toolgate/worktrees -> a folder outside (the home folder): refused, nothing lands there', async () => {
    repoWithFilteredFiles(project);
    mkdirSync(path.join(project, '.toolgate'));
    symlinkSync(outside, path.join(project, '.toolgate', 'worktrees'));
    git(project, 'add', '.toolgate');
    git(project, 'commit', '-q', '-m', 'link');
    const rt = await runtime();
    const r = await rt.run([use('EnterWorktree', { name: 'w' })]);
    expect(r.results[0]!.is_error).toBe(true);
    expect(text(r)).toMatch(/is a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
    expect(rt.permissionContext.cwd).toBe(project);
  });

  it("a symlink .toolgate/worktrees/.gitignore -> a file outside: the file is not written through", async () => {
    repoWithFilteredFiles(project);
    const rc = path.join(outside, '.bashrc');
    writeFileSync(rc, 'export KEEP=1\n');
    mkdirSync(path.join(project, '.toolgate', 'worktrees'), { recursive: true });
    symlinkSync(rc, path.join(project, '.toolgate', 'worktrees', '.gitignore'));
    const rt = await runtime();
    const r = await rt.run([use('EnterWorktree', { name: 'w' })]);
    expect(r.results[0]!.is_error).toBe(true);
    expect(readFileSync(rc, 'utf8')).toBe('export KEEP=1\n');
    expect(existsSync(path.join(project, '.toolgate', 'worktrees', 'w'))).toBe(false);
  });
});

describe('EnterWorktree path: only a worktree of the project’s own repository', () => {
  /** Registers `folder` in `repo`'s worktree list as git would (`.git/worktrees/<id>/gitdir`), without `folder` knowing. */
  function plantWorktreeEntry(repoGitDir: string, id: string, folder: string): void {
    const admin = path.join(repoGitDir, 'worktrees', id);
    write(path.join(admin, 'gitdir'), `${path.join(folder, '.git')}\n`);
    write(path.join(admin, 'HEAD'), 'ref: refs/heads/main\n');
    write(path.join(admin, 'commondir'), '../..\n');
  }

  it("a vendored repository's planted worktree list naming the home folder: after `cd` into it, refused; the working directory stays", async () => {
    repoWithFilteredFiles(project);
    const vendored = path.join(project, 'vendor', 'lib');
    repoWithFilteredFiles(vendored);
    plantWorktreeEntry(path.join(vendored, '.git'), 'home', outside);
    expect(git(vendored, 'worktree', 'list', '--porcelain')).toContain(`worktree ${outside}`);
    const rt = await runtime();
    const r = await rt.run([use('Bash', { command: 'cd vendor/lib' }), use('EnterWorktree', { path: outside })]);
    expect(r.results[1]!.is_error).toBe(true);
    expect(text(r, 1)).toMatch(/is not another worktree of the repository/);
    expect(rt.permissionContext.cwd).toBe(project);
  });

  it("an entry planted in the project's own worktree list, for a folder whose .git does not point back: refused", async () => {
    repoWithFilteredFiles(project);
    plantWorktreeEntry(path.join(project, '.git'), 'home', outside);
    // The list names the folder; the folder has no `.git` naming the entry back.
    expect(git(project, 'worktree', 'list', '--porcelain')).toContain(`worktree ${outside}`);
    const rt = await runtime();
    const r = await rt.run([use('EnterWorktree', { path: outside })]);
    expect(r.results[0]!.is_error).toBe(true);
    expect(text(r)).toMatch(/is not another worktree of the repository/);
    expect(rt.permissionContext.cwd).toBe(project);
    // A real worktree of the project is entered (after the person's yes).
    const real = path.join(dir, 'feature');
    git(project, 'worktree', 'add', '-q', '-b', 'feature', real);
    const ok = await rt.run([use('EnterWorktree', { path: real })]);
    expect(text(ok)).toContain(`Moved the session into the worktree ${real}.`);
    expect(lstatSync(path.join(real, '.git')).isFile()).toBe(true);
  });
});
