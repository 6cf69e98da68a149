/**
 * EnterWorktree / ExitWorktree with a real git repository, through the runtime (the real pipeline and permission
 * engine): the worktree is made where toolgate keeps them, the context modifier moves the calls after it (in the same
 * message and in later runs), the worktree is the working directory while entered, and leaving keeps or removes it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../agent/create-tool-runtime.js';
import type { RunResult, ToolRuntime, ToolRuntimeOptions } from '../../agent/types.js';
import type { ToolUseBlock } from '../../tool/tool.js';
import { contextOf } from '../../agent/runtime-context.js';

let dir: string;
let repo: string;
const runtimes: ToolRuntime[] = [];

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { env: gitEnv, encoding: 'utf8' });

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-worktree-')));
  repo = path.join(dir, 'project');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'app.txt'), 'v1\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'first');
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function runtime(options: ToolRuntimeOptions = {}): Promise<ToolRuntime> {
  const rt = await createToolRuntime({
    cwd: repo,
    sessionDir: path.join(dir, 'session'),
    settings: { sources: [] },
    ...options,
    rules: { allow: ['EnterWorktree', 'ExitWorktree', ...(options.rules?.allow ?? [])] },
  });
  runtimes.push(rt);
  return rt;
}

let n = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_wt${++n}`, name, input }) as ToolUseBlock;
const text = (r: RunResult, i = 0): string => {
  const c = r.results[i]!.content;
  return typeof c === 'string' ? c : JSON.stringify(c);
};

describe('EnterWorktree / ExitWorktree', () => {
  it('enter: a worktree under .toolgate/worktrees on a new branch; the calls after it run there, in this message and later ones', async () => {
    const rt = await runtime();
    const r = await rt.run([use('EnterWorktree', { name: 'try-it' }), use('Bash', { command: 'pwd' })]);
    const wt = path.join(repo, '.toolgate', 'worktrees', 'try-it');
    expect(r.results.map((x) => x.is_error ?? false)).toEqual([false, false]);
    expect(text(r)).toContain(`Created a worktree at ${wt} on the new branch worktree-try-it`);
    // The modifier applied before the next call: Bash started in the worktree.
    expect(text(r, 1)).toContain(wt);
    expect(readFileSync(path.join(wt, 'app.txt'), 'utf8')).toBe('v1\n');
    expect(git(wt, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('worktree-try-it');
    // The main checkout does not list the worktree as untracked files.
    expect(git(repo, 'status', '--porcelain')).toBe('');
    // The next run starts there too; the worktree is the working directory now.
    expect(rt.permissionContext.cwd).toBe(wt);
    expect(contextOf(rt).getAppState().cwd).toBe(wt);
    expect(text(await rt.run([use('Bash', { command: 'pwd' })]))).toContain(wt);
  });

  it('while entered, the worktree is the working directory and the main checkout is outside it', async () => {
    const rt = await runtime({ mode: 'acceptEdits' });
    await rt.run([use('EnterWorktree', { name: 'edits' })]);
    const wt = path.join(repo, '.toolgate', 'worktrees', 'edits');
    const inside = await rt.run([use('Write', { file_path: path.join(wt, 'new.txt'), content: 'in the worktree\n' })]);
    expect(inside.results[0]!.is_error).toBeFalsy();
    expect(readFileSync(path.join(wt, 'new.txt'), 'utf8')).toBe('in the worktree\n');
    const outside = await rt.run([use('Write', { file_path: path.join(repo, 'main.txt'), content: 'x' })]);
    expect(outside.results[0]!.is_error).toBe(true);
    expect(text(outside)).toMatch(/permissions to write to .*main\.txt, but you haven't granted it yet/);
    expect(existsSync(path.join(repo, 'main.txt'))).toBe(false);

    // Leaving (keep) restores the project as the working directory; the worktree and its branch stay.
    const left = await rt.run([use('ExitWorktree', { action: 'keep' }), use('Write', { file_path: path.join(repo, 'main.txt'), content: 'x' })]);
    expect(left.results.map((x) => x.is_error ?? false)).toEqual([false, false]);
    expect(text(left)).toContain(`Left the worktree; it stays at ${wt} on the branch worktree-edits. Back in ${repo}.`);
    expect(rt.permissionContext.cwd).toBe(repo);
    expect(existsSync(path.join(wt, 'new.txt'))).toBe(true);
    expect(git(repo, 'branch', '--list', '--format=%(refname:short)', 'worktree-edits').trim()).toBe('worktree-edits');
  });

  it('remove refuses to lose work unless discard_changes says so; then the worktree and its branch are gone', async () => {
    const rt = await runtime();
    await rt.run([use('EnterWorktree', { name: 'risky' })]);
    const wt = path.join(repo, '.toolgate', 'worktrees', 'risky');
    writeFileSync(path.join(wt, 'app.txt'), 'v2\n');
    git(wt, 'commit', '-q', '-am', 'change');
    writeFileSync(path.join(wt, 'scratch.txt'), 'draft\n');

    const refused = await rt.run([use('ExitWorktree', { action: 'remove' })]);
    expect(refused.results[0]!.is_error).toBe(true);
    expect(text(refused)).toMatch(/has 1 uncommitted file\(s\) and 1 commit\(s\) on worktree-risky[\s\S]*discard_changes: true/);
    expect(existsSync(wt)).toBe(true);
    expect(rt.permissionContext.cwd).toBe(wt);

    const removed = await rt.run([use('ExitWorktree', { action: 'remove', discard_changes: true })]);
    expect(removed.results[0]!.is_error).toBeFalsy();
    expect(text(removed)).toContain(`Removed the worktree ${wt} and its branch worktree-risky (discarded 1 uncommitted file(s) and 1 commit(s)). Back in ${repo}.`);
    expect(existsSync(wt)).toBe(false);
    expect(git(repo, 'branch', '--list', 'worktree-risky')).toBe('');
    expect(readFileSync(path.join(repo, 'app.txt'), 'utf8')).toBe('v1\n');
    expect(rt.permissionContext.cwd).toBe(repo);
    // Nothing is active any more: leaving again changes nothing.
    expect(text(await rt.run([use('ExitWorktree', { action: 'keep' })]))).toBe('No worktree session is active: nothing was changed.');
  });

  it('a clean worktree is removed without discard_changes; a worktree entered by path asks, and is only ever kept', async () => {
    const asked: string[] = [];
    const rt = await runtime({
      onPermissionRequest: async (request) => {
        asked.push(request.tool.name);
        return { behavior: 'allow' };
      },
    });
    await rt.run([use('EnterWorktree', {})]);
    const made = rt.permissionContext.cwd;
    expect(path.basename(made)).toMatch(/^wt-[0-9a-f]{8}$/);
    expect((await rt.run([use('ExitWorktree', { action: 'remove' })])).results[0]!.is_error).toBeFalsy();
    expect(existsSync(made)).toBe(false);

    const outside = path.join(dir, 'manual');
    git(repo, 'worktree', 'add', '-q', '-b', 'manual', outside);
    const entered = await rt.run([use('EnterWorktree', { path: outside })]);
    expect(text(entered)).toContain(`Moved the session into the worktree ${outside}.`);
    // The allow rule for EnterWorktree covers making worktrees; entering an existing folder asked the person.
    expect(asked).toEqual(['EnterWorktree']);
    const kept = await rt.run([use('ExitWorktree', { action: 'remove', discard_changes: true })]);
    expect(text(kept)).toMatch(/was not made by EnterWorktree in this session, so it is not removed/);
    expect(existsSync(outside)).toBe(true);
    expect(text(await rt.run([use('ExitWorktree', { action: 'keep' })]))).toContain(`Left the worktree; it stays at ${outside}. Back in ${repo}.`);
  });

  it('refuses: two at once, a bad name, name with path, a folder that is no repository, and sub-agents', async () => {
    const rt = await runtime();
    expect(text(await rt.run([use('EnterWorktree', { name: '../escape' })]))).toMatch(/Invalid worktree name/);
    expect(text(await rt.run([use('EnterWorktree', { name: 'a'.repeat(65) })]))).toMatch(/Invalid worktree name/);
    expect(text(await rt.run([use('EnterWorktree', { name: 'a', path: repo })]))).toMatch(/either name .* or path/);
    // Entering a path asks first (headless: denied), whatever it names.
    expect(text(await rt.run([use('EnterWorktree', { path: repo })]))).toMatch(/Permission denied[\s\S]*would make .* the working directory/);
    const answered = await runtime({ onPermissionRequest: async () => ({ behavior: 'allow' }) });
    expect(text(await answered.run([use('EnterWorktree', { path: repo })]))).toMatch(/is not another worktree of the repository/);
    await rt.run([use('EnterWorktree', { name: 'one' })]);
    expect(text(await rt.run([use('EnterWorktree', { name: 'two' })]))).toMatch(/Already in the worktree .*one; leave it with ExitWorktree first/);
    const child = await rt.child({ tools: ['EnterWorktree', 'ExitWorktree'] });
    expect(text(await child.run([use('ExitWorktree', { action: 'keep' })]))).toMatch(/Sub-agents cannot switch worktrees/);

    const plain = path.join(dir, 'plain');
    mkdirSync(plain);
    const other = await runtime({ cwd: plain });
    expect(text(await other.run([use('EnterWorktree', { name: 'x' })]))).toMatch(/is not inside a git repository/);
  });

  it('asks like any change: headless without a rule, EnterWorktree is denied and nothing is made', async () => {
    const rt = await createToolRuntime({ cwd: repo, sessionDir: path.join(dir, 'session2'), settings: { sources: [] } });
    runtimes.push(rt);
    const r = await rt.run([use('EnterWorktree', { name: 'nope' })]);
    expect(r.results[0]!.is_error).toBe(true);
    expect(text(r)).toMatch(/permissions to use EnterWorktree, but you haven't granted it yet/);
    expect(existsSync(path.join(repo, '.toolgate'))).toBe(false);
    // Leaving and keeping moves nothing on disk: it never needs a rule.
    expect(text(await rt.run([use('ExitWorktree', { action: 'keep' })]))).toBe('No worktree session is active: nothing was changed.');
  });
});
