/**
 * Background work people can steer, through the real runtime and real bash: a running foreground command moved to the
 * background by the embedder (the session's Ctrl+B calls the same method), and commands that must not be cut halfway
 * (`git commit` with a slow hook) letting a user interrupt wait for them while a plain `sleep` is cancelled.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import type { ToolRuntime } from '../src/agent/types.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../src/tool/tool.js';
import { USER_INTERRUPT } from '../src/execution/abort-reasons.js';
import { isBashParserLoaded, loadBashParser } from '../src/permissions/bash/index.js';
import { processesWithMarker, waitFor } from '../src/tools/bash/test-helpers/project.js';
import { contextOf } from '../src/agent/runtime-context.js';

let dir: string;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-steer-')));
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function runtime(settings: Record<string, unknown> = {}): Promise<ToolRuntime> {
  const r = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), mode: 'bypassPermissions', settings: { sources: [], object: settings } });
  runtimes.push(r);
  return r;
}

let ids = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: 'tool_use', id: `toolu_steer_${++ids}`, name, input }) as ToolUseBlock;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

describe('commands that must not be cut halfway', () => {
  /** A repository whose pre-commit hook waits for a `release` file (its process is named `marker`). */
  function repoWithSlowHook(marker: string): string {
    const repo = path.join(dir, 'repo');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    execFileSync('git', ['init', '-q', repo]);
    git('config', 'user.name', 'Test');
    git('config', 'user.email', 'test@example.com');
    git('config', 'commit.gpgsign', 'false');
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    git('add', 'a.txt');
    const hook = path.join(repo, '.git', 'hooks', 'pre-commit');
    // The wait never forks (a `read` that times out on a FIFO nobody writes): a forked `sleep` carries the marker
    // until it execs, and a count taken at that moment would see two processes.
    const fifo = path.join(dir, `wait-${marker}`);
    execFileSync('mkfifo', [fifo]);
    writeFileSync(
      hook,
      `#!/bin/bash\nexec -a ${marker} bash -c 'exec 9<>"$0"; while [ ! -e release ]; do read -t 0.05 -u 9 || :; done' ${fifo}\n`,
      { mode: 0o755 },
    );
    return repo;
  }
  const commits = (repo: string) => {
    try {
      return execFileSync('git', ['log', '--oneline'], { cwd: repo, encoding: 'utf8' }).trim().split('\n').length;
    } catch {
      return 0; // no commit yet
    }
  };
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('a user interrupt lets `git commit` finish (its slow hook included); the same interrupt cancels `sleep`', async () => {
    const marker = `hook${process.pid}x${ids}`;
    const repo = repoWithSlowHook(marker);
    const rt = await runtime();
    const commit = use('Bash', { command: `cd ${repo} && git commit -q -m 'kept whole'` });
    // The first test of the file: the bash parser is not loaded yet, so the executor must ask the tool again once it
    // is (a shell call waits for it anyway) — answered now, `git commit` would look like any command and be cancelled.
    expect(isBashParserLoaded()).toBe(false);
    const interrupt = new AbortController();
    const running = rt.run([commit], { signal: interrupt.signal });
    running.catch(() => undefined); // awaited below; a failed assertion before that must not leave it unhandled
    await waitFor(() => processesWithMarker(marker).length === 1, 20_000, 'the pre-commit hook to run');
    interrupt.abort(USER_INTERRUPT);
    // Had the interrupt cancelled the call, its process group would have had SIGTERM by now.
    for (let i = 0; i < 5; i++) await tick();
    expect(processesWithMarker(marker).length).toBe(1);
    writeFileSync(path.join(repo, 'release'), '');
    const { results } = await running;
    expect(results[0]!.is_error, text(results[0]!)).toBeUndefined();
    expect(commits(repo)).toBe(1);
    await loadBashParser();
    expect(rt.findTool('Bash')!.interruptBehavior!(commit.input as never)).toBe('block');

    const sleepMarker = `30.${process.pid % 1000}${ids}`;
    const sleeping = use('Bash', { command: `echo waiting; sleep ${sleepMarker}` });
    expect(rt.findTool('Bash')!.interruptBehavior!(sleeping.input as never)).toBe('cancel');
    const second = new AbortController();
    const pending = rt.run([sleeping], { signal: second.signal });
    await waitFor(() => processesWithMarker(`sleep ${sleepMarker}`).length > 0, 20_000, 'the sleep to start');
    second.abort(USER_INTERRUPT);
    const cancelled = await pending;
    expect(cancelled.results[0]!.is_error).toBe(true);
    expect(text(cancelled.results[0]!)).toMatch(/aborted before completion/i);
    await waitFor(() => processesWithMarker(`sleep ${sleepMarker}`).length === 0, 10_000, 'the sleep to end');
  });

  it('after an interrupt let it run on, shutting the runtime down still ends it (and answers it)', async () => {
    const marker = `hook${process.pid}z${ids}`;
    const repo = repoWithSlowHook(marker);
    const rt = await runtime();
    const interrupt = new AbortController();
    const running = rt.run([use('Bash', { command: `cd ${repo} && git commit -q -m never` })], { signal: interrupt.signal });
    running.catch(() => undefined); // awaited below
    await waitFor(() => processesWithMarker(marker).length === 1, 20_000, 'the pre-commit hook to run');
    interrupt.abort(USER_INTERRUPT);
    for (let i = 0; i < 5; i++) await tick();
    expect(processesWithMarker(marker).length).toBe(1);
    await rt.dispose();
    // Answered on the abort path, not dropped after the dispose grace (the interrupt had spent the run's signal).
    const { results } = await running;
    expect(results[0]!.is_error).toBe(true);
    await waitFor(() => processesWithMarker(marker).length === 0, 10_000, 'the hook to be ended');
    expect(commits(repo)).toBe(0);
  });

  it('shutting the runtime down still ends a command that blocks interrupts', async () => {
    const marker = `hook${process.pid}y${ids}`;
    const repo = repoWithSlowHook(marker);
    const rt = await runtime();
    const running = rt.run([use('Bash', { command: `cd ${repo} && git commit -q -m never` })]);
    await waitFor(() => processesWithMarker(marker).length === 1, 20_000, 'the pre-commit hook to run');
    await rt.dispose();
    const { results } = await running;
    expect(results[0]!.is_error).toBe(true);
    await waitFor(() => processesWithMarker(marker).length === 0, 10_000, 'the hook to be ended');
    expect(commits(repo)).toBe(0);
  });
});

describe('moving a running foreground command to the background', () => {
  it('the call returns at once with the seeds\' line; the task runs on; TaskOutput reads its later output', async () => {
    const rt = await runtime();
    const block = use('Bash', { command: 'echo first; while [ ! -e go ]; do sleep 0.05; done; echo second' });
    const running = rt.run([block]);
    const tasks = contextOf(rt).services.tasks!;
    await waitFor(() => tasks.foreground().includes(block.id), 20_000, 'the command to run in the foreground');
    expect(rt.backgroundToolUse('toolu_no_such_call')).toEqual([]);
    expect(rt.backgroundToolUse(block.id)).toEqual([block.id]);
    const { results } = await running;
    const out = text(results[0]!);
    const line = /^Command was manually backgrounded by user with ID: (\S+)\. Output is being written to: (\S+)$/m.exec(out);
    expect(line, out).not.toBeNull();
    const [, taskId, file] = line!;
    expect(results[0]!.is_error).toBeUndefined();
    expect(tasks.get(taskId!)).toMatchObject({ status: 'running', backgroundedBy: 'user' });
    expect(tasks.foreground()).toEqual([]);

    writeFileSync(path.join(dir, 'go'), '');
    const read = await rt.run([use('TaskOutput', { task_id: taskId, block: true, timeout: 20_000 })]);
    expect(text(read.results[0]!)).toContain('second');
    expect(readFileSync(file!, 'utf8')).toBe('first\nsecond\n');
    expect(tasks.get(taskId!)?.status).toBe('completed');
  });

  it('without an id every running foreground command goes; TaskStop ends one; nothing moves when background tasks are off', async () => {
    const rt = await runtime();
    const a = use('Bash', { command: 'echo waiting; sleep 30' });
    const b = use('Bash', { command: 'echo waiting; sleep 31' });
    // Two runs at once (as two sub-agents would have).
    const runs = [rt.run([a]), rt.run([b])];
    const tasks = contextOf(rt).services.tasks!;
    await waitFor(() => tasks.foreground().length === 2, 20_000, 'both commands to run');
    expect(rt.backgroundToolUse().sort()).toEqual([a.id, b.id].sort());
    const taskIds = (await Promise.all(runs)).map((r) => /with ID: (\S+)\./.exec(text(r.results[0]!))![1]!);
    const stop = await rt.run([use('TaskStop', { task_id: taskIds[0] })]);
    expect(stop.results[0]!.is_error).toBeUndefined();
    expect(tasks.get(taskIds[0]!)?.status).toBe('killed');
    expect(tasks.get(taskIds[1]!)?.status).toBe('running');

    const off = await runtime({ toolgate: { bash: { disableBackgroundTasks: true } } });
    const c = use('Bash', { command: 'touch started; sleep 30' });
    const controller = new AbortController();
    const pending = off.run([c], { signal: controller.signal });
    await waitFor(() => existsSync(path.join(dir, 'started')), 20_000, 'the command to start');
    expect(off.backgroundToolUse(c.id)).toEqual([]);
    expect(off.backgroundToolUse()).toEqual([]);
    controller.abort();
    expect((await pending).results[0]!.is_error).toBe(true);
  });
});
