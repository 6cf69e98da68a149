/**
 * The class: a sandboxed command must not be able to write anything the host runs later. First, every file a git
 * process reads for configuration or hooks, in every repository of the working directories (the project's own, a
 * linked worktree, a submodule, a nested clone, a bare repository, one in an additional working directory, the one a
 * working directory sits inside of) and what their configuration names in the working tree (`core.hooksPath`,
 * `include.path`, a `core.fsmonitor` script); then the files the sandbox runtime protects (`.bashrc`, `.gitconfig`,
 * `.vscode`, …), resolved against the session's working directories rather than the process's. Each is written from
 * inside the sandbox by an opaque program (python, `sh -c` with printf) — refused, the host file unchanged. With
 * bubblewrap really running.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BashOutput } from './bash-output.js';
import { BashTool } from './index.js';
import { detectSandbox } from './sandbox.js';
import { WORKING_DIR_PROTECTED } from './sandbox-protected-paths.js';
import { shutdownSandboxRuntime } from './sandbox-runtime.js';
import { callTool, makeProject, type TestProject } from './test-helpers/project.js';

const availability = await detectSandbox();
// Written reason for skipping: these tests write from inside a real sandbox, which needs bubblewrap and socat (apt
// packages bubblewrap, socat; .ci/run installs them) and a kernel that lets bwrap create namespaces.
const canSandbox = availability.available;
if (!canSandbox) console.warn(`sandbox repository tests skipped: ${availability.reason}`);

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, stdio: 'pipe' }).toString();

let project: TestProject;
let extra: string;
let outer: string;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

beforeAll(() => {
  extra = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-extra-')));
  project = makeProject({ settings: { sandbox: { enabled: true } }, additionalDirs: [extra] });
  const p = project.dir;
  // The project's own repository, with a commit, a linked worktree inside it, and a submodule-like gitfile.
  git(p, 'init', '-q');
  write(path.join(p, 'README.md'), 'hello\n');
  write(path.join(p, 'tools', 'fsmon.sh'), '#!/bin/sh\n');
  write(path.join(p, '.githooks', 'pre-commit'), '#!/bin/sh\n');
  write(path.join(p, 'project.gitconfig'), '[user]\n');
  git(p, 'add', 'README.md');
  git(p, 'commit', '-q', '-m', 'one');
  git(p, 'worktree', 'add', '-q', path.join(p, 'wt'));
  git(p, 'config', 'core.hooksPath', '.githooks');
  git(p, 'config', 'core.fsmonitor', './tools/fsmon.sh');
  git(p, 'config', 'include.path', '../project.gitconfig');
  write(path.join(p, '.git', 'config.worktree'), '[core]\n');
  write(path.join(p, '.git', 'info', 'attributes'), '');
  write(path.join(p, '.git', 'modules', 'm', 'config'), '[core]\n');
  write(path.join(p, '.git', 'modules', 'm', 'HEAD'), 'ref: refs/heads/main\n');
  write(path.join(p, 'm', '.git'), `gitdir: ${path.join(p, '.git', 'modules', 'm')}\n`);
  // A nested clone and a bare repository (no `.git` needed) in the working tree.
  git(p, 'init', '-q', path.join(p, 'vendor', 'lib'));
  git(p, 'init', '-q', '--bare', path.join(p, 'vendor', 'pkg'));
  // A repository in the additional working directory.
  git(extra, 'init', '-q');
  // A working directory inside a repository (a monorepo package): no `.git` of its own.
  outer = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-outer-')));
  git(outer, 'init', '-q');
  write(path.join(outer, 'pkg', 'index.js'), '');
  git(outer, 'add', '.');
  git(outer, 'commit', '-q', '-m', 'pkg');
  git(outer, 'config', 'core.hooksPath', 'pkg/hooks');
});

afterAll(async () => {
  await project.cleanup();
  rmSync(extra, { recursive: true, force: true });
  rmSync(outer, { recursive: true, force: true });
  await shutdownSandboxRuntime();
});

const run = (command: string, p: TestProject = project, extraInput: Record<string, unknown> = {}) =>
  callTool<BashOutput>(BashTool, { command, ...extraInput }, p.context);

/** Writes each target from inside the sandbox three ways, in one sandboxed command; each must fail, the host file unchanged. */
async function expectRefused(targets: string | readonly string[], p: TestProject = project): Promise<void> {
  const list = typeof targets === 'string' ? [targets] : targets;
  const before = list.map((t) => (existsSync(t) ? readFileSync(t, 'utf8') : undefined));
  // An opaque program (one python for every target), then sh with printf, appending and replacing by rename.
  const python =
    `python3 - ${list.map((t) => JSON.stringify(t)).join(' ')} <<'EOF'\nimport os, sys\nfor i, p in enumerate(sys.argv[1:]):\n` +
    `    try:\n        d = os.path.dirname(p)\n        os.path.isdir(d) or os.makedirs(d, exist_ok=True)\n        open(p, 'a').write('planted')\n        print(f'::py{i}=written')\n` +
    `    except OSError as e:\n        print(f'::py{i}=refused {e}')\nEOF`;
  const attempts = list.flatMap((target) => {
    const q = JSON.stringify(target);
    return [`sh -c 'printf "%s" planted >> "$1"' sh ${q}`, `sh -c 'printf planted > "$1.new" && mv -f "$1.new" "$1"' sh ${q}`];
  });
  const r = await run([python, ...attempts.map((a, i) => `{ ${a}; } 2>&1; echo "::rc${i}=$?"`)].join('\n'), p);
  expect(r.data.sandboxed).toBe(true);
  list.forEach((t, i) => expect(r.text, `python writing ${t}`).toContain(`::py${i}=refused`));
  for (const [i, attempt] of attempts.entries()) {
    const code = new RegExp(`::rc${i}=(\\d+)`).exec(r.text)?.[1];
    expect(code, `${attempt}\n${r.text}`).toBeDefined();
    expect(code, `${attempt}\n${r.text}`).not.toBe('0');
  }
  // EROFS/EACCES where the file or folder exists; where it does not, the runtime's placeholder refuses creating it
  // (a read-only empty folder: EISDIR for a file of its name; /dev/null where a folder would have to be: EEXIST, ENOTDIR).
  expect(r.text).toMatch(/Read-only file system|Permission denied|Device or resource busy|File exists|Not a directory|Is a directory|Directory nonexistent|Errno (30|13|16|17|20|21)/);
  list.forEach((t, i) => expect(existsSync(t) ? readFileSync(t, 'utf8') : undefined, t).toBe(before[i]));
}

describe.skipIf(!canSandbox)("every repository's metadata stays read-only in the sandbox", () => {
  const metadata: Record<string, readonly string[]> = {
    "the project's .git": ['.git/config', '.git/config.worktree', '.git/commondir', '.git/HEAD', '.git/hooks/pre-commit', '.git/hooks/fsmonitor-watchman', '.git/info/attributes', '.git/info/exclude', '.git/objects/info/alternates'],
    'a linked worktree': ['.git/worktrees/wt/gitdir', '.git/worktrees/wt/commondir', '.git/worktrees/wt/config.worktree', 'wt/.git'],
    'a submodule': ['.git/modules/m/config', '.git/modules/m/hooks/post-checkout', 'm/.git'],
    'a nested clone': ['vendor/lib/.git/config', 'vendor/lib/.git/hooks/pre-commit', 'vendor/lib/.git/HEAD'],
    'a bare repository (no .git)': ['vendor/pkg/config', 'vendor/pkg/hooks/pre-receive', 'vendor/pkg/HEAD'],
    "what the project's configuration names in the working tree": ['.githooks/pre-commit', '.githooks/post-checkout', 'tools/fsmon.sh', 'project.gitconfig'],
  };
  for (const [what, rels] of Object.entries(metadata)) {
    it(`refuses to write ${what}: ${rels.join(', ')}`, async () => {
      await expectRefused(rels.map((rel) => path.join(project.dir, rel)));
    }, 120_000);
  }

  it("refuses to write the additional working directory's repository", async () => {
    await expectRefused([path.join(extra, '.git', 'config'), path.join(extra, '.git', 'hooks', 'pre-commit')]);
  }, 60_000);

  it('a working directory without .git: no repository can be planted there', async () => {
    const p = makeProject({ settings: { sandbox: { enabled: true } } });
    try {
      await expectRefused([path.join(p.dir, '.git', 'config'), path.join(p.dir, '.git', 'commondir')]);
      expect(existsSync(path.join(p.dir, '.git', 'config'))).toBe(false);
    } finally {
      await p.cleanup();
    }
  }, 60_000);

  it('a working directory inside a repository: its enclosing configuration names hooks inside it, which stay read-only', async () => {
    const pkg = path.join(outer, 'pkg');
    const inPkg = makeProject({ settings: { sandbox: { enabled: true } }, dir: pkg });
    await expectRefused([path.join(pkg, 'hooks', 'pre-commit'), path.join(pkg, '.git', 'config')], inPkg);
    const top = await run('git rev-parse --show-toplevel', inPkg);
    expect(top.data.sandboxed).toBe(true);
    expect(top.text).toBe(outer);
    await inPkg.tasks.shutdown();
  }, 60_000);

  it('cannot move or remove .git out of the way', async () => {
    for (const command of ['mv .git .git-old', 'rm -rf .git', 'mv vendor/pkg vendor/pkg2', 'rm -rf vendor/lib/.git']) {
      const r = await run(command);
      expect(r.block.is_error, command).toBe(true);
    }
    expect(existsSync(path.join(project.dir, '.git', 'HEAD'))).toBe(true);
    expect(existsSync(path.join(project.dir, 'vendor', 'pkg', 'HEAD'))).toBe(true);
    expect(existsSync(path.join(project.dir, 'vendor', 'lib', '.git', 'HEAD'))).toBe(true);
  }, 60_000);

  it('read-only git still works inside; git that writes the repository runs outside, alone only; the rest of the project stays writable', async () => {
    const status = await run('git status --short && git log --oneline | wc -l');
    expect(status.data.sandboxed).toBe(true);
    expect(status.block.is_error).toBeUndefined();
    const commit = await run('git commit -q --allow-empty -m two && git log --oneline | wc -l');
    expect(commit.data.sandboxed).toBe(false);
    expect(commit.text).toContain('writes the repository, whose metadata the sandbox keeps read-only');
    expect(git(project.dir, 'log', '--oneline').trim().split('\n')).toHaveLength(2);
    const edit = await run('printf ok > notes.txt && cat notes.txt');
    expect(edit.text).toBe('ok');
    // git and another program in one command: the other program is not taken out of the sandbox with it.
    const mixed = await run(`git add notes.txt && python3 -c 'print("after")'`);
    expect(mixed.data.sandboxed).toBe(true);
    expect(mixed.block.is_error).toBe(true);
    expect(mixed.text).toContain('run that git command in a call of its own');
    expect(git(project.dir, 'status', '--porcelain')).toContain('?? notes.txt');
  }, 60_000);
});

describe.skipIf(!canSandbox)("the runtime's protected files, resolved against the session's working directories", () => {
  it('the project runs elsewhere than the process (this test runs from the repository checkout)', () => {
    expect(project.dir).not.toBe(process.cwd());
    expect(project.dir.startsWith(process.cwd())).toBe(false);
  });

  const files = ['.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.profile', '.gitconfig', '.gitmodules', '.ripgreprc', '.mcp.json', '.vscode/settings.json', '.idea/workspace.xml', '.claude/settings.json', '.toolgate/settings.json'];
  for (const rel of files) {
    it(`refuses to write ${rel} in the working directory, an additional one and a subfolder where it exists`, async () => {
      const nested = path.join(project.dir, 'sub', rel);
      write(nested, 'original\n');
      await expectRefused([path.join(project.dir, rel), path.join(extra, rel), nested]);
    }, 60_000);
  }

  it("keeps toolgate's list in step with the runtime's", async () => {
    const utils = (await import('@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js')) as unknown as {
      DANGEROUS_FILES: readonly string[];
      getDangerousDirectories: () => readonly string[];
    };
    const covered = (name: string) => WORKING_DIR_PROTECTED.some((p) => name === p || name.startsWith(`${p}/`));
    expect([...utils.DANGEROUS_FILES, ...utils.getDangerousDirectories()].filter((n) => !covered(n))).toEqual([]);
  });
});
