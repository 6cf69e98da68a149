/**
 * Issue 21, "git runs programs that repository configuration names": the class is every way a git command inside the
 * project can pick up a configuration that is not the project's own — a bare repository (no `.git` needed), a `.git`
 * file whose `gitdir:` points elsewhere, a `.git` whose `commondir` points at another configuration — reached by
 * `git -C`, by `cd`, from a subdirectory, or named with `--git-dir`. Each planted repository runs a program
 * (`core.fsmonitor`, a clean filter) that touches a marker file; a control run of plain git proves it does. Then,
 * through the real runtime (engine + Bash tool):
 *  - every such command asks, even under `Bash(git:*)`, and a refusal runs nothing;
 *  - when it runs anyway (bypassPermissions, or a person's yes), the Bash tool's git settings keep the programs off;
 *  - the project's own repository: `git status` is auto-allowed and its fsmonitor stays off; a program its
 *    configuration names (a clean filter) makes `git status` ask instead of being auto-allowed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import type { PermissionAnswer, RuntimePermissionRequest, ToolRuntime } from '../src/agent/types.js';
import type { ToolUseBlock } from '../src/tool/tool.js';

const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-programs-')));
const proj = path.join(root, 'proj');
const marks = path.join(root, 'marks');
const home = path.join(root, 'home');
// Git as a user would run it, with no toolgate settings and no user or system configuration of this machine.
const plainEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: plainEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const tryGit = (cwd: string, ...args: string[]): void => {
  try {
    git(cwd, ...args);
  } catch {
    // the planted program fails on purpose; only its marker matters
  }
};
const marker = (name: string): string => path.join(marks, name);
/** A program git runs from configuration: touches its marker, then fails (so fsmonitor falls back to a full scan). */
const program = (name: string): string => `touch ${marker(name)}; false; :`;

/** A bare repository that also has a work tree (itself): `git status` in it runs its fsmonitor. */
function plantBare(dir: string, mark: string): void {
  git(proj, 'init', '-q', '--bare', dir);
  git(dir, 'config', 'core.bare', 'false');
  git(dir, 'config', 'core.worktree', dir);
  git(dir, 'config', 'core.fsmonitor', program(mark));
}

interface Planted {
  readonly name: string;
  /** Where git finds the planted configuration from. */
  readonly dir: string;
  readonly mark: string;
}

const planted: Planted[] = [];

beforeAll(() => {
  for (const d of [marks, home]) mkdirSync(d, { recursive: true });
  mkdirSync(proj);
  git(proj, 'init', '-q');
  git(proj, 'config', 'user.email', 't@example.com');
  git(proj, 'config', 'user.name', 't');
  writeFileSync(path.join(proj, 'a.txt'), 'a\n');
  git(proj, 'add', 'a.txt');
  git(proj, 'commit', '-q', '-m', 'a');

  // 1. A bare repository inside the project (a vendored folder): no `.git` at all.
  const bare = path.join(proj, 'vendor', 'bare');
  mkdirSync(path.dirname(bare), { recursive: true });
  plantBare(bare, 'bare');
  mkdirSync(path.join(bare, 'sub'));
  planted.push({ name: 'bare repository', dir: bare, mark: 'bare' });

  // 2. A folder whose `.git` is a file pointing at a git directory elsewhere in the project.
  const evilDir = path.join(proj, 'vendor', 'evil-gitdir');
  git(proj, 'init', '-q', '--bare', evilDir);
  git(evilDir, 'config', 'core.bare', 'false');
  git(evilDir, 'config', 'core.fsmonitor', program('gitfile'));
  const pointed = path.join(proj, 'vendor', 'pointed');
  mkdirSync(pointed);
  writeFileSync(path.join(pointed, '.git'), 'gitdir: ../evil-gitdir\n');
  planted.push({ name: '.git file with gitdir:', dir: pointed, mark: 'gitfile' });

  // 3. A `.git` folder whose `commondir` points at another configuration.
  const common = path.join(proj, 'vendor', 'evil-common');
  git(proj, 'init', '-q', '--bare', common);
  git(common, 'config', 'core.bare', 'false');
  git(common, 'config', 'core.fsmonitor', program('commondir'));
  const linked = path.join(proj, 'vendor', 'linked');
  mkdirSync(path.join(linked, '.git'), { recursive: true });
  writeFileSync(path.join(linked, '.git', 'HEAD'), 'ref: refs/heads/master\n');
  writeFileSync(path.join(linked, '.git', 'commondir'), '../../evil-common\n');
  planted.push({ name: '.git with commondir', dir: linked, mark: 'commondir' });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const runtimes: ToolRuntime[] = [];
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.dispose()));
});

let ids = 0;
const bash = (command: string): ToolUseBlock => ({ type: 'tool_use', id: `toolu_gp${++ids}`, name: 'Bash', input: { command } }) as ToolUseBlock;

async function runtime(options: { mode?: 'default' | 'bypassPermissions'; allow?: string[]; answer?: PermissionAnswer } = {}): Promise<{ rt: ToolRuntime; asked: RuntimePermissionRequest[] }> {
  const asked: RuntimePermissionRequest[] = [];
  const rt = await createToolRuntime({
    cwd: proj,
    sessionDir: path.join(root, `.session-${++ids}`),
    settings: { sources: [], homeDir: home },
    mode: options.mode ?? 'default',
    rules: { allow: options.allow ?? [] },
    onPermissionRequest: async (r) => (asked.push(r), options.answer ?? { behavior: 'deny', message: 'no' }),
  });
  runtimes.push(rt);
  return { rt, asked };
}

/** The ways to reach a planted repository from the project root. */
const forms = (p: Planted): string[] => {
  const rel = path.relative(proj, p.dir);
  return [`git -C ${rel} status`, `cd ${rel} && git status`, `git -C ${rel} status --short`, `cd ${rel} && git log --oneline -1; git status`, ...(p.mark === 'bare' ? [`git -C ${rel}/sub status`, `git --git-dir=${rel} status`] : [])];
};

describe('a repository that is not the project’s own', () => {
  it('each planted repository really runs its program under plain git (the control)', () => {
    for (const p of planted) {
      rmSync(marker(p.mark), { force: true });
      tryGit(p.dir, 'status');
      expect(existsSync(marker(p.mark)), p.name).toBe(true);
      rmSync(marker(p.mark), { force: true });
    }
  });

  it('asks for every way to reach one (also under Bash(git:*)), and a refusal runs nothing', async () => {
    for (const allow of [[], ['Bash(git:*)']]) {
      const { rt, asked } = await runtime({ allow });
      for (const p of planted) {
        for (const command of forms(p)) {
          const before = asked.length;
          const { results } = await rt.run([bash(command)]);
          expect(asked.length, `${command} (${allow.join()})`).toBe(before + 1);
          expect(asked[asked.length - 1]!.ask.message, command).toMatch(/not the project's own/);
          expect(results[0]!.is_error, command).toBe(true);
          expect(existsSync(marker(p.mark)), command).toBe(false);
        }
      }
    }
  });

  it('run anyway (bypassPermissions, or a person says yes), the Bash tool keeps the programs off', async () => {
    for (const options of [{ mode: 'bypassPermissions' as const }, { answer: { behavior: 'allow' } as const }]) {
      const { rt } = await runtime(options);
      for (const p of planted) {
        for (const command of forms(p)) {
          await rt.run([bash(command)]);
          expect(existsSync(marker(p.mark)), `${command} (${JSON.stringify(options)})`).toBe(false);
        }
      }
    }
  });
});

describe('the project’s own repository', () => {
  it('git status is auto-allowed and runs with the repository’s fsmonitor off', async () => {
    git(proj, 'config', 'core.fsmonitor', program('own'));
    try {
      tryGit(proj, 'status');
      expect(existsSync(marker('own')), 'control').toBe(true);
      rmSync(marker('own'));
      const { rt, asked } = await runtime();
      for (const command of ['git status', 'git status --short', 'git diff --stat', 'git log --oneline -1 && git status']) {
        const { results } = await rt.run([bash(command)]);
        expect(results[0]!.is_error, command).toBeFalsy();
        expect(existsSync(marker('own')), command).toBe(false);
      }
      expect(asked).toHaveLength(0);
    } finally {
      git(proj, 'config', '--unset', 'core.fsmonitor');
    }
  });

  it('a program its configuration names (a clean filter, a diff driver) makes git ask instead of being auto-allowed', async () => {
    writeFileSync(path.join(proj, '.gitattributes'), '*.txt filter=x diff=y\n');
    writeFileSync(path.join(proj, 'a.txt'), 'changed\n');
    for (const [key, mark] of [['filter.x.clean', 'clean'], ['diff.y.textconv', 'textconv']] as const) {
      git(proj, 'config', key, `sh -c 'touch ${marker(mark)}; cat'`);
      try {
        const { rt, asked } = await runtime();
        for (const command of ['git status', 'git diff', 'git log -p -1']) {
          rmSync(marker(mark), { force: true });
          await rt.run([bash(command)]);
          expect(asked.length, `${command} with ${key}`).toBeGreaterThan(0);
          expect(asked[asked.length - 1]!.ask.message, command).toMatch(new RegExp(key.replace(/\./g, '\\.')));
          expect(existsSync(marker(mark)), command).toBe(false);
        }
      } finally {
        git(proj, 'config', '--unset', key);
      }
    }
    rmSync(path.join(proj, '.gitattributes'));
    git(proj, 'checkout', '-q', 'a.txt');
  });
});
