/**
 * Invariant 6 (docs/security.md): the sandbox protects what runs outside it. The attacker is the model's own Bash
 * calls, running an opaque program (python) inside the real sandbox (bubblewrap through @anthropic-ai/sandbox-runtime):
 * it plants configuration in a repository's metadata that git outside the sandbox would run (hooks, config), reads
 * toolgate's own state (OAuth tokens, transcripts, grants), or leaves files in the project that a later commit would
 * take (the placeholders the sandbox needs to block creating protected files).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BashOutput } from '../../src/tools/bash/bash-output.js';
import { BashTool } from '../../src/tools/bash/index.js';
import { detectSandbox } from '../../src/tools/bash/sandbox.js';
import { shutdownSandboxRuntime } from '../../src/tools/bash/sandbox-runtime.js';
import { callTool, makeProject, waitFor, type TestProject } from '../../src/tools/bash/test-helpers/project.js';
import { GlobTool } from '../../src/tools/glob/index.js';

const availability = await detectSandbox();
// Written reason for skipping: the cases run commands in a real sandbox, which needs bubblewrap and socat (apt packages
// bubblewrap, socat; .ci/run installs them) and a kernel that lets bwrap create namespaces. Where they are installed
// (the development machines, CI) the cases run; a machine without them has no sandbox to attack.
if (!availability.available) console.warn(`sandbox attack tests skipped: ${availability.reason}`);

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let tmp: string;
let home: string;
let extra: string;
let project: TestProject;
const savedState = process.env.XDG_STATE_HOME;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const run = (command: string, extraInput: Record<string, unknown> = {}) => callTool<BashOutput>(BashTool, { command, ...extraInput }, project.context);

/** One opaque program (python) appends to each file; prints `<i>=written` or `<i>=refused`. */
async function plant(targets: readonly string[]): Promise<string[]> {
  const script =
    `python3 - ${targets.map((t) => JSON.stringify(t)).join(' ')} <<'EOF'\nimport os, sys\nfor i, p in enumerate(sys.argv[1:]):\n` +
    `    try:\n        os.makedirs(os.path.dirname(p), exist_ok=True)\n        open(p, 'a').write('\\n[core]\\n\\tfsmonitor = /tmp/evil\\n')\n        print(f'{i}=written')\n` +
    `    except OSError as e:\n        print(f'{i}=refused')\nEOF`;
  const r = await run(script);
  expect(r.data.sandboxed).toBe(true);
  return targets.map((_, i) => new RegExp(`^${i}=(\\w+)$`, 'm').exec(r.text)?.[1] ?? `no answer: ${r.text}`);
}

beforeAll(() => {
  tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-sandbox-')));
  home = path.join(tmp, 'home');
  extra = path.join(tmp, 'extra');
  mkdirSync(home);
  mkdirSync(extra);
  process.env.XDG_STATE_HOME = path.join(tmp, 'state');
  project = makeProject({ settings: { sandbox: { enabled: true } }, additionalDirs: [extra] });
  // The person's home folder is elsewhere than the machine's: toolgate's state there is this test's.
  project.context.setAppState((s) => ({ ...s, toolPermissionContext: { ...s.toolPermissionContext, homeDir: home } }));
  const p = project.dir;
  git(p, 'init', '-q', '-b', 'main');
  write(path.join(p, '.git', 'info', 'exclude'), '.session/\n');
  write(path.join(p, 'README.md'), 'hello\n');
  git(p, 'add', 'README.md');
  git(p, 'commit', '-q', '-m', 'one');
  // A nested clone, a submodule (gitdir in .git/modules), a linked worktree inside the project, and a repository in
  // the added directory.
  git(p, 'init', '-q', path.join(p, 'vendor', 'lib'));
  write(path.join(p, '.git', 'modules', 'm', 'HEAD'), 'ref: refs/heads/main\n');
  write(path.join(p, '.git', 'modules', 'm', 'config'), '[core]\n');
  mkdirSync(path.join(p, '.git', 'modules', 'm', 'hooks'));
  write(path.join(p, 'm', '.git'), `gitdir: ${path.join(p, '.git', 'modules', 'm')}\n`);
  git(p, 'worktree', 'add', '-q', path.join(p, 'wt'));
  git(extra, 'init', '-q');
});

afterAll(async () => {
  if (savedState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = savedState;
  await project?.cleanup();
  rmSync(tmp, { recursive: true, force: true });
  await shutdownSandboxRuntime();
});

describe.skipIf(!availability.available)('a sandboxed command cannot plant what git outside the sandbox runs', () => {
  it("every .git of the project and the added directories: a nested clone's, a submodule's, a worktree's, the added directory's", async () => {
    const p = project.dir;
    const targets = [
      path.join(p, 'vendor', 'lib', '.git', 'config'),
      path.join(p, 'vendor', 'lib', '.git', 'hooks', 'pre-commit'),
      path.join(p, '.git', 'modules', 'm', 'config'),
      path.join(p, '.git', 'modules', 'm', 'hooks', 'post-checkout'),
      path.join(p, 'm', '.git'),
      path.join(p, '.git', 'worktrees', 'wt', 'config.worktree'),
      path.join(p, 'wt', '.git'),
      path.join(extra, '.git', 'config'),
      path.join(extra, '.git', 'hooks', 'pre-commit'),
    ];
    const before = targets.map((t) => (existsSync(t) ? readFileSync(t, 'utf8') : undefined));
    expect(await plant(targets)).toEqual(targets.map(() => 'refused'));
    expect(targets.map((t) => (existsSync(t) ? readFileSync(t, 'utf8') : undefined))).toEqual(before);
  }, 120_000);

  it('a repository made by one sandboxed command in a folder the look had already read is read-only to the next', async () => {
    const deep = path.join(project.dir, 'deep', 'a', 'b');
    mkdirSync(deep, { recursive: true });
    // Quiet long enough for the look to trust what it read of these folders (and not read them again unless changed).
    await new Promise((r) => setTimeout(r, 2_200));
    expect((await run('true')).data.sandboxed).toBe(true);
    const made = await run(`mkdir -p deep/a/b/.git/hooks deep/a/b/.git/objects deep/a/b/.git/refs && echo 'ref: refs/heads/main' > deep/a/b/.git/HEAD && printf '[core]\\n' > deep/a/b/.git/config`);
    expect(made.data.sandboxed).toBe(true);
    expect(made.block.is_error).toBeFalsy();
    const config = path.join(deep, '.git', 'config');
    const before = readFileSync(config, 'utf8');
    expect(await plant([config, path.join(deep, '.git', 'hooks', 'post-checkout')])).toEqual(['refused', 'refused']);
    expect(readFileSync(config, 'utf8')).toBe(before);
  }, 120_000);
});

describe.skipIf(!availability.available)("a sandboxed command cannot read toolgate's own state", () => {
  it('OAuth tokens, transcripts and tool results of this and other sessions, user grants and MCP servers: unreadable; the session temp folder still works', async () => {
    const state = path.join(tmp, 'state', 'toolgate');
    const secrets = [
      path.join(state, 'mcp-oauth', 'server-abc.json'),
      path.join(state, 'sessions', 'other', 'transcript.jsonl'),
      path.join(home, '.local', 'state', 'toolgate', 'mcp-oauth', 'default.json'),
      path.join(project.sessionDir, 'transcript.jsonl'),
      path.join(project.sessionDir, 'tool-results', 'toolu_1.txt'),
      path.join(home, '.toolgate', 'settings.json'),
      path.join(home, '.claude', 'settings.json'),
      path.join(home, '.claude.json'),
    ];
    for (const file of secrets) write(file, 'SECRET-TOKEN-1234\n');
    const r = await run(`for f in ${secrets.map((s) => JSON.stringify(s)).join(' ')}; do cat "$f" 2>/dev/null; done; ls -R ${JSON.stringify(state)} 2>/dev/null; echo done`);
    expect(r.data.sandboxed).toBe(true);
    expect(r.text).not.toContain('SECRET-TOKEN');
    expect(r.text).not.toContain('transcript.jsonl');
    expect(r.text).toContain('done');
    const scratch = await run('echo scratch > "$TMPDIR/x" && cat "$TMPDIR/x"');
    expect(scratch.text).toBe('scratch');
  }, 60_000);
});

describe.skipIf(!availability.available)('the placeholders the sandbox needs stay out of git status and file listings', () => {
  async function whileSandboxedCommandRuns(check: () => Promise<void>): Promise<void> {
    const started = path.join(project.dir, 'started.txt');
    rmSync(started, { force: true });
    const bg = await run('touch started.txt; sleep 60', { run_in_background: true });
    expect(bg.data.sandboxed).toBe(true);
    await waitFor(() => existsSync(started), 20_000, 'the background command');
    rmSync(started);
    try {
      await check();
    } finally {
      await project.tasks.stop(bg.data.backgroundTaskId!);
    }
  }

  for (const where of ['the session runs elsewhere than its project', 'the process runs in the project (the CLI)']) {
    it(`while a sandboxed command runs, nothing new in git status or Glob, and no protected file can be made (${where})`, async () => {
      const p = project.dir;
      const cwd = process.cwd();
      if (where.includes('CLI')) process.chdir(p);
      try {
        const status = git(p, 'status', '--porcelain', '--untracked-files=all');
        // The session folder (inside this project here) holds the command's own output files: not the project's
        // (Glob's paths are relative to the working directory now, as Claude Code's are).
        const glob = async () => (await callTool<{ filenames: string[] }>(GlobTool, { pattern: '**/*', path: p }, project.context)).data.filenames.filter((f) => !f.split(path.sep).includes('.session'));
        const listed = await glob();
        await whileSandboxedCommandRuns(async () => {
          expect(git(p, 'status', '--porcelain', '--untracked-files=all')).toBe(status);
          expect(await glob()).toEqual(listed);
          // The mount points are there (folders, which neither shows).
          expect(lstatSync(path.join(p, '.mcp.json')).isDirectory()).toBe(true);
          // Still blocked: a second sandboxed command cannot create them either.
          expect(await plant([path.join(p, '.mcp.json'), path.join(p, '.claude', 'settings.json'), path.join(p, '.bashrc')])).toEqual(['refused', 'refused', 'refused']);
        });
        await waitFor(() => !existsSync(path.join(p, '.mcp.json')), 10_000, 'the placeholders to go');
        expect(git(p, 'status', '--porcelain', '--untracked-files=all')).toBe(status);
      } finally {
        process.chdir(cwd);
      }
    }, 120_000);
  }
});
