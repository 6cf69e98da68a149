import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BashOutput } from './bash-output.js';
import { BashTool } from './index.js';
import { callTool, makeProject, processesWithMarker, waitFor, type TestProject } from './test-helpers/project.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

const run = (command: string, extra: Record<string, unknown> = {}, p: TestProject = project) =>
  callTool<BashOutput>(BashTool, { command, ...extra }, p.context);

const unique = () => `${process.pid % 1000}${Math.floor(Math.random() * 1e6)}`;

describe('run_in_background', () => {
  it('returns at once with the task id and output file, then notifies when the task ends', async () => {
    const r = await run('echo begin; sleep 0.2; echo done', { run_in_background: true, description: 'Print two words' });
    const id = r.data.backgroundTaskId!;
    expect(r.text).toBe(`Command running in background with ID: ${id}. Output is being written to: ${r.data.outputFile}`);
    expect(project.tasks.get(id)?.status).toBe('running');
    const ended = await project.tasks.wait(id, { timeoutMs: 5_000 });
    expect(ended).toMatchObject({ status: 'completed', summary: 'exit code 0', facts: { exit_code: 0, signal: null }, backgroundedBy: 'request' });
    expect(readFileSync(r.data.outputFile!, 'utf8')).toBe('begin\ndone\n');
    const [message] = project.notifications.drain();
    const text = String(message?.content);
    expect(text).toContain(`<task-id>${id}</task-id>`);
    expect(text).toContain('<status>completed</status>');
    expect(text).toContain('"Print two words" completed (exit code 0)');
    expect(text).toContain('done');
  });

  it('records a failing task with its exit code, and a signal from outside as failed with the signal', async () => {
    const fail = await run('echo oops; exit 3', { run_in_background: true });
    expect(await project.tasks.wait(fail.data.backgroundTaskId!, { timeoutMs: 5_000 })).toMatchObject({ status: 'failed', facts: { exit_code: 3 } });
    expect(String(project.notifications.drain()[0]?.content)).toContain('failed with exit code 3');

    const victim = await run('sleep 30', { run_in_background: true });
    const task = project.tasks.get(victim.data.backgroundTaskId!)!;
    process.kill(task.facts.pid as number, 'SIGKILL');
    const ended = await project.tasks.wait(task.id, { timeoutMs: 5_000 });
    expect(ended).toMatchObject({ status: 'failed', summary: 'signal SIGKILL', facts: { exit_code: null, signal: 'SIGKILL' } });
    expect(ended?.killReason).toBeUndefined();
  });

  it('kills a background task that outlives its timeout (lifetime) and says so', async () => {
    const marker = `${unique()}.5`;
    const r = await run(`sleep ${marker}`, { run_in_background: true, timeout: 300 });
    const ended = await project.tasks.wait(r.data.backgroundTaskId!, { timeoutMs: 5_000 });
    expect(ended).toMatchObject({ status: 'killed', killReason: 'lifetime' });
    expect(String(project.notifications.drain()[0]?.content)).toContain('ran past its time limit');
    await waitFor(() => processesWithMarker(`sleep ${marker}`).length === 0, 2_000, 'no survivors');
  });

  it('shutdown() ends every running task with its children and reports each one', async () => {
    const marker = `${unique()}.7`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await run(`sleep ${marker} & sleep ${marker} | cat; wait`, { run_in_background: true });
      ids.push(r.data.backgroundTaskId!);
    }
    const done = await run('true', { run_in_background: true });
    await project.tasks.wait(done.data.backgroundTaskId!, { timeoutMs: 5_000 });
    const sleeps = () => processesWithMarker(`sleep ${marker}`).filter((p) => p.cmdline.startsWith('sleep ')).length;
    await waitFor(() => sleeps() === 6, 3_000, 'six sleeps');
    const report = await project.tasks.shutdown();
    expect(report.ended.map((t) => t.id).sort()).toEqual([...ids].sort());
    expect(report.ended.every((t) => t.status === 'killed' && t.killReason === 'shutdown')).toBe(true);
    expect(report.alreadyEnded.map((t) => t.id)).toEqual([done.data.backgroundTaskId]);
    await waitFor(() => processesWithMarker(`sleep ${marker}`).length === 0, 1_000, 'no orphans');
    // A task adopted after shutdown is ended at once.
    const late = await run('sleep 30', { run_in_background: true });
    expect(await project.tasks.wait(late.data.backgroundTaskId!, { timeoutMs: 5_000 })).toMatchObject({ status: 'killed' });
  });
});

describe('timeout', () => {
  it('kills a command starting with sleep, and says why', async () => {
    const marker = `${unique()}.3`;
    const started = Date.now();
    const r = await run(`sleep ${marker}`, { timeout: 300 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(r.block.is_error).toBe(true);
    expect(r.data.timeoutOutcome).toBe('killed');
    expect(r.text).toContain('timed out after 0.3s and was killed');
    expect(r.text).toContain('`sleep`');
    await waitFor(() => processesWithMarker(`sleep ${marker}`).length === 0, 1_000, 'the sleep to be gone');
  });

  it('kills instead of backgrounding when background tasks are disabled', async () => {
    const off = makeProject({ settings: { bash: { disableBackgroundTasks: true, killGraceMs: 100 } } });
    try {
      const r = await run('echo partial; sleep 10', { timeout: 300 }, off);
      expect(r.data.timeoutOutcome).toBe('killed');
      expect(r.text).toContain('partial');
      expect(r.text).toContain('background tasks are disabled');
      expect(off.tasks.list()).toEqual([]);
    } finally {
      await off.cleanup();
    }
  });

  it('kills a command that trapped SIGTERM, after the grace period', async () => {
    const off = makeProject({ settings: { bash: { disableBackgroundTasks: true, killGraceMs: 150 } } });
    const marker = `${unique()}.9`;
    try {
      const r = await run(`trap '' TERM; echo stubborn; sleep ${marker}`, { timeout: 200 }, off);
      expect(r.data.timeoutOutcome).toBe('killed');
      expect(r.text).toContain('stubborn');
      await waitFor(() => processesWithMarker(marker).length === 0, 1_000, 'the stubborn shell to be gone');
    } finally {
      await off.cleanup();
    }
  });

  it('moves a parseable command to the background and keeps its output flowing', async () => {
    const r = await run('echo early; sleep 0.6; echo late', { timeout: 300 });
    expect(r.block.is_error).toBeUndefined();
    expect(r.data.timeoutOutcome).toBe('moved_to_background');
    const id = r.data.backgroundTaskId!;
    expect(r.text).toContain('early');
    expect(r.text).toContain(`did not complete within its 0.3s timeout and was moved to the background`);
    expect(r.text).toContain(`Command running in background with ID: ${id}. Output is being written to: ${r.data.outputFile}`);
    const ended = await project.tasks.wait(id, { timeoutMs: 5_000 });
    expect(ended).toMatchObject({ status: 'completed', facts: { exit_code: 0 }, backgroundedBy: 'timeout' });
    expect(readFileSync(r.data.outputFile!, 'utf8')).toBe('early\nlate\n');
    expect(String(project.notifications.drain()[0]?.content)).toContain('<status>completed</status>');
  });
});

describe('output file of a background task', () => {
  it('is kept, and stays readable after the task ended', async () => {
    const r = await run('seq 1 3', { run_in_background: true });
    await project.tasks.wait(r.data.backgroundTaskId!, { timeoutMs: 5_000 });
    expect(existsSync(r.data.outputFile!)).toBe(true);
    expect(readFileSync(r.data.outputFile!, 'utf8')).toBe('1\n2\n3\n');
  });
});
