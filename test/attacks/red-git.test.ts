/**
 * Red team on issue 32, invariants 3 (one hardened git runner) and 6 (the sandbox protects what runs outside it), as
 * landed in 8bad99e. Every case is a hole: it FAILS on that code, and passes once the hole is closed.
 *
 * HELD (tried, refused or harmless):
 * - renaming a protected `.git`, or any folder above one (a submodule's folder, a nested clone's parent and
 *   grandparent): EBUSY, the runtime pins every ancestor of a protected path, so no swap of an existing repository;
 * - hard-linking `.git/config` (the project's, a nested clone's) from inside the sandbox: EXDEV (a link made before
 *   the session is another matter: see the medium hole below);
 * - a `.git` symlink made in the sandbox to a nested clone's `.git`, then written through: EROFS;
 * - worktree names `..`, `a/../b`, `.`, `A/.`, `ü`, `foo bar` (refused by the name check), `x/.git`, `x.lock`
 *   (refused by check-ref-format);
 * - the home folder as the working directory: `~/.local/state/toolgate` and `~/.toolgate` stay unreadable (the
 *   read-deny tmpfs lands over the write bind);
 * - a repository `git init`ed by the host into a `.git` placeholder survives the placeholder's removal (rmdir only);
 * - after a sandboxed command populated a submodule, the model's approved `git add -A`, `git stash`, `git commit -m`,
 *   `git checkout -b`, `git reset --hard` ran no program of it (only status-like commands look into submodules).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { RunResult, RuntimePermissionRequest, ToolRuntime } from '../../src/agent/types.js';
import type { ToolUseBlock } from '../../src/tool/tool.js';
import { detectSandbox } from '../../src/tools/bash/sandbox.js';
import { shutdownSandboxRuntime } from '../../src/tools/bash/sandbox-runtime.js';

const availability = await detectSandbox();
// Written reason for skipping: every case attacks the real sandbox (bubblewrap, socat); without them there is none.
if (!availability.available) console.warn(`red-git attack tests skipped: ${availability.reason}`);

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let dir: string;
let project: string;
let markers: string;
const runtimes: ToolRuntime[] = [];
let asked: string[] = [];

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A program that leaves `<markers>/<name>` when anything runs it, and passes its input through (a filter's job). */
function program(name: string): string {
  const file = path.join(dir, 'bin', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\ntouch '${path.join(markers, name)}'\ncat\n`);
  chmodSync(file, 0o755);
  return file;
}
const ran = () => readdirSync(markers).sort();

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-red-git-')));
  project = path.join(dir, 'project');
  markers = path.join(dir, 'markers');
  mkdirSync(markers);
  mkdirSync(project);
  asked = [];
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await shutdownSandboxRuntime();
});

/** The runtime as a session has it: sandbox on; a person who approves what they are asked (recorded in `asked`). */
async function runtime(options: { cwd?: string; env?: Record<string, string>; sessionDir?: string; additionalDirectories?: string[]; homeDir?: string } = {}): Promise<ToolRuntime> {
  const rt = await createToolRuntime({
    cwd: options.cwd ?? project,
    ...(options.env ? { env: options.env } : {}),
    ...(options.additionalDirectories ? { additionalDirectories: options.additionalDirectories } : {}),
    sessionDir: options.sessionDir ?? path.join(dir, 'session'),
    settings: { sources: [], object: { sandbox: { enabled: true } }, ...(options.homeDir ? { homeDir: options.homeDir } : {}) },
    rules: { allow: ['EnterWorktree', 'ExitWorktree'] },
    onPermissionRequest: async (request: RuntimePermissionRequest) => {
      asked.push(`${request.tool.name}: ${JSON.stringify(request.input)}`);
      return { behavior: 'allow' };
    },
  });
  runtimes.push(rt);
  return rt;
}

let n = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_red${++n}`, name, input }) as ToolUseBlock;
const text = (r: RunResult, i = 0): string => {
  const c = r.results[i]!.content;
  return typeof c === 'string' ? c : JSON.stringify(c);
};

/**
 * A python program (opaque to the permission engine, so auto-allowed and sandboxed) that makes `<at>` a repository of
 * its own whose configuration routes every file through a clean filter, with a file that git must hash again.
 */
function populateWithEvilRepository(at: string, filterProgram: string): string {
  return python(
    `import os, subprocess\n` +
      `env = dict(os.environ, GIT_AUTHOR_NAME='a', GIT_AUTHOR_EMAIL='a@a', GIT_COMMITTER_NAME='a', GIT_COMMITTER_EMAIL='a@a')\n` +
      `d = ${JSON.stringify(at)}\nos.makedirs(d, exist_ok=True)\n` +
      `def g(*a):\n    r = subprocess.run(['git', '-C', d, *a], env=env, capture_output=True, text=True)\n    if r.returncode: print(r.stderr); raise SystemExit(1)\n` +
      `g('init', '-q')\nopen(os.path.join(d, '.gitattributes'), 'w').write('* filter=ev\\n')\nopen(os.path.join(d, 'f'), 'w').write('x\\n')\n` +
      `g('add', '.')\ng('commit', '-q', '-m', 'e')\ng('config', 'filter.ev.clean', ${JSON.stringify(filterProgram)})\n` +
      `os.utime(os.path.join(d, 'f'), (1, 1))\nprint('populated')\n`,
  );
}

/** A Bash command running a python program: opaque to the engine, so auto-allowed and sandboxed. */
function python(source: string): string {
  return `python3 -c 'import base64; exec(base64.b64decode("${Buffer.from(source).toString('base64')}"))'`;
}

/** The project: one commit with a submodule `sub` (a gitlink and its .gitmodules), initialised or not. */
function projectWithSubmodule(initialised = false): void {
  const src = path.join(dir, 'subsrc');
  mkdirSync(src);
  git(src, 'init', '-q', '-b', 'main');
  write(path.join(src, 'lib.txt'), 'lib\n');
  git(src, 'add', '.');
  git(src, 'commit', '-q', '-m', 'lib');
  git(project, 'init', '-q', '-b', 'main');
  write(path.join(project, 'README.md'), 'hello\n');
  git(project, 'add', '.');
  git(project, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', src, 'sub');
  git(project, 'commit', '-q', '-m', 'one');
  if (initialised) return;
  // As a clone without --recursive has it: the gitlink's folder empty, no .git/modules.
  rmSync(path.join(project, 'sub'), { recursive: true, force: true });
  rmSync(path.join(project, '.git', 'modules'), { recursive: true, force: true });
  mkdirSync(path.join(project, 'sub'));
  git(project, 'config', '--remove-section', 'submodule.sub');
}

describe.skipIf(!availability.available)('invariant 3: toolgate’s own git runs no program a repository names', () => {
  it("HOLE (critical): ExitWorktree's `git status` recurses into a submodule of the worktree that a sandboxed command populated, and runs that submodule's clean filter on the host", async () => {
    // The runner switches off the filters of the repository it starts in only (their names are read there); git
    // status starts `git status` in every populated submodule, with the runner's settings but the submodule's own
    // configuration. EnterWorktree checks out with --no-recurse-submodules, so the worktree's `sub` is an empty folder,
    // which any sandboxed command (the worktree is the working directory) may turn into a repository.
    // Held twice now: the sandbox keeps the gitlink's `.git` read-only (so the populate may fail), and the runner does
    // not look into submodules (test/attacks/git-runner.test.ts checks that one alone, populated outside the sandbox).
    projectWithSubmodule();
    const rt = await runtime();
    const entered = await rt.run([use('EnterWorktree', { name: 'w' })]);
    expect(text(entered)).toContain('Created a worktree');
    const populated = await rt.run([use('Bash', { command: populateWithEvilRepository('sub', program('submodule-clean')) })]);
    // It ran (sandboxed): it populated the folder, or the sandbox refused to let it (the test asked for 'populated'
    // only, which a defence refusing this very write could never give).
    expect(text(populated)).toMatch(/populated|Read-only file system/);
    // Nobody was asked: the program ran sandboxed, auto-allowed.
    expect(asked).toEqual([]);
    expect(ran()).toEqual([]);
    await rt.run([use('ExitWorktree', { action: 'remove', discard_changes: true })]);
    expect(ran()).toEqual([]);
  }, 120_000);
});

describe.skipIf(!availability.available)('invariant 6: every .git in the project is read-only to sandboxed commands', () => {
  it("HOLE (critical): a submodule not yet initialised has no .git to protect; a sandboxed command gives it one, and the person's own `git status` in the project then runs its clean filter", async () => {
    // The look protects the `.git` entries it finds; a gitlink whose folder is empty (a clone without --recursive) has
    // none, so the folder is writable, and git outside the sandbox — `git status` looks into every populated
    // submodule for changes, with that submodule's own configuration — runs what the sandboxed command wrote there.
    // (The same git inside the worktree is hole 1: toolgate's own ExitWorktree.)
    projectWithSubmodule();
    const rt = await runtime();
    const populated = await rt.run([use('Bash', { command: populateWithEvilRepository('sub', program('submodule-clean')) })]);
    // It ran: it populated the folder, or the sandbox refused to let it (see the first case).
    expect(text(populated)).toMatch(/populated|Read-only file system/);
    // Nobody was asked: the program ran sandboxed, auto-allowed.
    expect(asked).toEqual([]);
    expect(ran()).toEqual([]);
    // The person, in their terminal: the most ordinary git there is.
    git(project, 'status', '--short');
    expect(ran()).toEqual([]);
  }, 120_000);
});

describe.skipIf(!availability.available)('invariant 6: what the look protected stays protected', () => {
  it("HOLE (critical): a session in a monorepo package (no .git of its own): a sandboxed command lays the package folder out as a bare repository, and the person's `git status` there takes it for the repository", async () => {
    // The placeholder blocks a `.git` in the working directory, not `HEAD`/`objects`/`refs`/`config` beside it; git
    // looks for a bare repository in each folder before going up to the monorepo's `.git` (safe.bareRepository
    // defaults to `all`: only toolgate's own git and the model's carry `explicit`).
    const mono = project;
    git(mono, 'init', '-q', '-b', 'main');
    write(path.join(mono, 'packages', 'app', 'index.js'), 'console.log(1)\n');
    git(mono, 'add', '.');
    git(mono, 'commit', '-q', '-m', 'one');
    const pkg = path.join(mono, 'packages', 'app');
    const rt = await runtime({ cwd: pkg });
    const layout = python(
      `import os, subprocess\n` +
        `env = dict(os.environ, GIT_AUTHOR_NAME='a', GIT_AUTHOR_EMAIL='a@a', GIT_COMMITTER_NAME='a', GIT_COMMITTER_EMAIL='a@a')\n` +
        `def run(*a):\n    r = subprocess.run(['git', *a], env=env, capture_output=True, text=True)\n    if r.returncode: print(r.stderr); raise SystemExit(1)\n` +
        `g = lambda *a: run('--git-dir=.', '--work-tree=.', *a)\n` +
        `run('init', '-q', '--bare', '.')\n` +
        `g('config', 'core.bare', 'false')\ng('config', 'core.worktree', '.')\nopen('.gitattributes', 'w').write('index.js filter=ev\\n')\n` +
        `g('add', 'index.js', '.gitattributes')\ng('commit', '-q', '-m', 'e')\ng('config', 'filter.ev.clean', ${JSON.stringify(program('bare-layout-clean'))})\n` +
        `os.utime('index.js', (1, 1))\nprint('laid out')\n`,
    );
    const r = await rt.run([use('Bash', { command: layout })]);
    // It ran: it laid the folder out, or git could not make a repository of it there (a HEAD that is a folder).
    expect(text(r)).toMatch(/laid out|Read-only file system|not in a git directory/);
    expect(asked).toEqual([]);
    expect(ran()).toEqual([]);
    // The person, in the package folder of their monorepo.
    git(pkg, 'status', '--short');
    expect(ran()).toEqual([]);
  }, 120_000);

  it("HOLE (high): an include inside an included file is not followed: the project's config includes a committed `.gitconfig` (protected), whose own `[include]` names a project file the sandbox may write; git outside runs its fsmonitor", async () => {
    // namedByConfig reads `.git/config` and `config.worktree` only; git follows includes to any depth. A shared,
    // committed `.gitconfig` that the person opted into (`include.path = ../.gitconfig`, a common pattern) and that
    // itself includes `tools/git/extra.cfg`: the second file is an ordinary project file to the sandbox.
    git(project, 'init', '-q', '-b', 'main');
    write(path.join(project, '.gitconfig'), '[include]\n\tpath = tools/git/extra.cfg\n');
    write(path.join(project, 'tools', 'git', 'extra.cfg'), '[alias]\n\tst = status\n');
    git(project, 'add', '.');
    git(project, 'commit', '-q', '-m', 'shared git settings');
    git(project, 'config', 'include.path', '../.gitconfig');
    const rt = await runtime();
    const r = await rt.run([use('Bash', { command: python(`open('tools/git/extra.cfg', 'a').write('[core]\\n\\tfsmonitor = ${program('included-fsmonitor')}\\n')\nprint('appended')\n`) })]);
    expect(asked).toEqual([]);
    // It ran: it appended, or the sandbox refused the write.
    expect(text(r)).toMatch(/appended|Read-only file system/);
    // The person's own git status (no toolgate settings there): git loads the second include and runs fsmonitor.
    git(project, 'status', '--short');
    expect(ran()).toEqual([]);
  }, 120_000);

  it('HOLE (high): a background sandboxed command keeps the write access it started with; a repository git makes on the host later (an approved `git init`/`git clone`) gets its hooks from it', async () => {
    // The look runs before each command: a long-running (background) command keeps the mounts of its start, so a
    // `.git` made afterwards in a writable folder is writable to it for as long as it runs.
    // (Defence: git that makes a repository is not run outside the sandbox while such a command runs. The test first
    // asserted that the approved `git init` ran, then that its hook did not: it now asserts the refusal, and that the
    // same command runs once the background command is stopped — with nothing left to plant the hook.)
    git(project, 'init', '-q', '-b', 'main');
    const hook = path.join(project, 'vendor', 'new', '.git', 'hooks', 'pre-commit');
    const rt = await runtime();
    const watcher = python(
      `import os, time\nh = ${JSON.stringify(hook)}\nfor _ in range(600):\n` +
        `    if os.path.isdir(os.path.dirname(h)):\n        open(h, 'w').write('#!/bin/sh\\ntouch ${path.join(markers, 'planted-hook')}\\n')\n        os.chmod(h, 0o755)\n        break\n` +
        `    time.sleep(0.1)\n`,
    );
    const bg = await rt.run([use('Bash', { command: watcher, run_in_background: true })]);
    expect(text(bg)).toMatch(/background/i);
    // The person approves the model's `git init` of a folder for a new library (it writes a repository: run outside).
    mkdirSync(path.join(project, 'vendor'));
    const init = await rt.run([use('Bash', { command: 'git init -q vendor/new' })]);
    expect(init.results[0]!.is_error).toBe(true);
    expect(text(init)).toMatch(/not run: "git init -q vendor\/new" makes a repository, and 1 sandboxed command still running/);
    for (let i = 0; i < 20 && !existsSync(hook); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(path.join(project, 'vendor', 'new'))).toBe(false);
    // Stopped, the background command holds nothing any more: the same command runs.
    const id = /with ID: (\S+)\./.exec(text(bg))?.[1];
    expect(text(await rt.run([use('TaskStop', { task_id: id })]))).not.toMatch(/error/i);
    const again = await rt.run([use('Bash', { command: 'git init -q vendor/new' })]);
    expect(text(again)).toContain('outside the sandbox');
    // Their first commit there, approved too: git's hooks stay on for the model's approved git (issue 21).
    await rt.run([use('Bash', { command: 'cd vendor/new && git -c user.name=p -c user.email=p@p commit -q --allow-empty -m first' })]);
    expect(ran()).toEqual([]);
  }, 120_000);

  it("HOLE (high): the look's 10,000-folder limit is the attacker's switch: one sandboxed command makes 10,000 empty folders, and the next may write an existing nested clone's .git", async () => {
    // walkFolders stops a level early once the folders seen and queued pass MAX_SCANNED_DIRS: the residue in
    // docs/security.md speaks of repositories too deep in a huge tree, but the tree is the attacker's to grow. The
    // command runs anyway (the result carries a note), with `vendor/lib/.git` writable.
    git(project, 'init', '-q', '-b', 'main');
    git(project, 'init', '-q', 'vendor/lib');
    const config = path.join(project, 'vendor', 'lib', '.git', 'config');
    const before = readFileSync(config, 'utf8');
    const rt = await runtime();
    const flood = await rt.run([use('Bash', { command: python("import os\nfor i in range(10000):\n    os.mkdir(f'f{i}')\nprint('flooded')\n") })]);
    expect(text(flood)).toContain('flooded');
    expect(asked).toEqual([]);
    const write = python(`open('vendor/lib/.git/config', 'a').write('[core]\\n\\tfsmonitor = ${program('flooded-fsmonitor')}\\n')\n`);
    await rt.run([use('Bash', { command: write })]);
    // The look stopped short, so the sandbox no longer stands in for a prompt: the person is asked (the test first
    // asserted that nobody was, which only held while the look could be switched off). This person says yes, and the
    // clone an earlier look found stays read-only all the same.
    expect(asked).toEqual([`Bash: ${JSON.stringify({ command: write })}`]);
    expect(readFileSync(config, 'utf8')).toBe(before);
  }, 180_000);

  it('HOLE (medium): a hard link to .git/config elsewhere in the project (made before the session) is a writable second name for it', async () => {
    git(project, 'init', '-q', '-b', 'main');
    mkdirSync(path.join(project, 'docs'));
    execFileSync('ln', [path.join(project, '.git', 'config'), path.join(project, 'docs', 'notes.ini')]);
    const before = readFileSync(path.join(project, '.git', 'config'), 'utf8');
    const rt = await runtime();
    await rt.run([use('Bash', { command: python(`open('docs/notes.ini', 'a').write('[core]\\n\\tfsmonitor = ${program('linked-fsmonitor')}\\n')\n`) })]);
    expect(asked).toEqual([]);
    expect(readFileSync(path.join(project, '.git', 'config'), 'utf8')).toBe(before);
  }, 120_000);
});

describe.skipIf(!availability.available)("invariant 6: toolgate's own state is unreadable from sandboxed commands", () => {
  it("HOLE (critical): a session whose environment (the Agent SDK's options.env, the runtime's env) puts the state directory elsewhere: other sessions' transcripts and the MCP OAuth tokens there are readable", async () => {
    // session-setup.ts puts sessions under stateDirectory(options.env) and McpClientManager its OAuth store under
    // stateDirectory(its env); sandbox-policy.ts hides stateDirectory(process.env), the default one, and this
    // session's own folder only.
    git(project, 'init', '-q', '-b', 'main');
    const custom = path.join(dir, 'tenant-state');
    const state = path.join(custom, 'toolgate');
    const secrets = [path.join(state, 'sessions', 'other-session', 'transcript.jsonl'), path.join(state, 'mcp-oauth', 'server.json')];
    for (const file of secrets) write(file, 'SECRET-TOKEN-5678\n');
    const env = { ...(process.env as Record<string, string>), XDG_STATE_HOME: custom };
    const rt = await runtime({ env, sessionDir: path.join(state, 'sessions', 'this-session') });
    const r = await rt.run([use('Bash', { command: python(`for p in ${JSON.stringify(secrets)}:\n    try:\n        print(open(p).read())\n    except OSError as e:\n        print('refused', e)\n`) })]);
    expect(asked).toEqual([]);
    expect(text(r)).not.toContain('SECRET-TOKEN');
  }, 120_000);
});

describe.skipIf(!availability.available)('invariant 3: the runner runs the git it should', () => {
  const savedPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = savedPath;
  });

  it('HOLE (critical): started through `npx` (PATH gets the project\'s absolute node_modules/.bin), the runner takes a `git` a sandboxed command put there, and EnterWorktree runs it on the host', async () => {
    // findExecutableOnPath refuses relative PATH entries only; npm exec / npm run put `<project>/node_modules/.bin`
    // first on PATH, an absolute folder the sandbox lets commands write (and the look skips node_modules).
    git(project, 'init', '-q', '-b', 'main');
    write(path.join(project, 'README.md'), 'hello\n');
    git(project, 'add', '.');
    git(project, 'commit', '-q', '-m', 'one');
    process.env.PATH = `${path.join(project, 'node_modules', '.bin')}${path.delimiter}${savedPath}`;
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { env: { PATH: savedPath ?? '' }, encoding: 'utf8' }).trim();
    const rt = await runtime();
    const fake = `#!/bin/sh\\ntouch ${path.join(markers, 'fake-git')}\\nexec ${realGit} "$@"\\n`;
    const r = await rt.run([use('Bash', { command: python(`import os\nos.makedirs('node_modules/.bin', exist_ok=True)\nopen('node_modules/.bin/git', 'w').write('${fake}')\nos.chmod('node_modules/.bin/git', 0o755)\nprint('placed')\n`) })]);
    expect(text(r)).toContain('placed');
    expect(asked).toEqual([]);
    expect(ran()).toEqual([]);
    const entered = await rt.run([use('EnterWorktree', { name: 'w' })]);
    expect(text(entered)).toContain('Created a worktree');
    expect(ran()).toEqual([]);
  }, 120_000);
});
