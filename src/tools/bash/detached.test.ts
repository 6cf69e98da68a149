/**
 * Processes that leave their command's process group (`setsid`, `nohup` in a subshell, a double fork) are found by
 * their environment marker (Linux /proc) and ended with the command: on abort, timeout, TaskStop and shutdown. A
 * foreground command that ends on its own leaves them running until its registry shuts down (the session ends).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BashOutput } from './bash-output.js';
import { BashTool } from './index.js';
import { markedProcesses, PGROUP_ENV, PROCESS_MARKER } from '../../hooks/process-marker.js';
import { callTool, makeProject, processesWithMarker, waitFor, type TestProject } from './test-helpers/project.js';

let project: TestProject;
let controller: AbortController;
let marker: string;
const started: ChildProcess[] = [];
beforeEach(() => {
  controller = new AbortController();
  project = makeProject({ abortController: controller });
  // A sleep duration nobody else uses: `sleep 93<n>.<i>` names this test's processes.
  marker = `93${process.pid % 1000}${Math.floor(Math.random() * 1e6)}`;
});
afterEach(async () => {
  await project.cleanup();
  for (const p of processesWithMarker(marker)) process.kill(p.pid, 'SIGKILL');
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

const sleeps = () => processesWithMarker(marker).filter((p) => p.cmdline.startsWith('sleep ')).length;
const run = (command: string, extra: Record<string, unknown> = {}) => callTool<BashOutput>(BashTool, { command, ...extra }, project.context);

describe.runIf(process.platform === 'linux')('processes that left the group', () => {
  it('every command carries its own marker, and a scan finds exactly its processes', async () => {
    const r = await run(`echo "$${PGROUP_ENV}"`);
    const seen = r.data.stdout.trim();
    expect(seen.startsWith(`${PROCESS_MARKER}.${project.tasks.scope}.b`)).toBe(true);
    // Exact match: a marker that is a prefix of another one does not match it.
    const a = spawn('sleep', [`${marker}.1`], { env: { ...process.env, [PGROUP_ENV]: `${PROCESS_MARKER}.t.b1` } });
    const b = spawn('sleep', [`${marker}.2`], { env: { ...process.env, [PGROUP_ENV]: `${PROCESS_MARKER}.t.b12` } });
    started.push(a, b);
    await waitFor(() => sleeps() === 2, 10_000, 'two sleeps');
    expect(markedProcesses(`${PROCESS_MARKER}.t.b1`)).toEqual([a.pid]);
    expect(markedProcesses(`${PROCESS_MARKER}.t.b1`, { prefix: true }).sort()).toEqual([a.pid, b.pid].sort());
    expect(markedProcesses(`${PROCESS_MARKER}.other.`, { prefix: true })).toEqual([]);
  });

  it('abort ends a setsid child and a nohup double fork', async () => {
    const call = run(`setsid sleep ${marker}.1 & (nohup sleep ${marker}.2 >/dev/null 2>&1 &); sleep ${marker}.3`);
    await waitFor(() => sleeps() === 3, 20_000, 'three sleeps');
    controller.abort();
    const r = await call;
    expect(r.data.interrupted).toBe(true);
    await waitFor(() => sleeps() === 0, 20_000, 'every sleep to end');
  }, 40_000);

  it('a timeout that kills the command ends its setsid child', async () => {
    // Starts with `sleep`: killed at the timeout rather than moved to the background.
    const r = await run(`sleep ${marker}.1 & setsid sleep ${marker}.2 & echo started; wait`, { timeout: 1_500 });
    expect(r.data.timeoutOutcome).toBe('killed');
    await waitFor(() => sleeps() === 0, 20_000, 'every sleep to end');
  }, 40_000);

  it('TaskStop ends a background task and what it detached', async () => {
    const r = await run(`setsid sleep ${marker}.1 & sleep ${marker}.2`, { run_in_background: true });
    const id = r.data.backgroundTaskId!;
    await waitFor(() => sleeps() === 2, 20_000, 'two sleeps');
    await project.tasks.stop(id); // what TaskStop calls
    await waitFor(() => sleeps() === 0, 20_000, 'every sleep to end');
  }, 40_000);

  it('a finished command leaves its setsid daemon running until the registry shuts down', async () => {
    // Waits until the child has left the group: the leader's exit ends whatever is still in it.
    const r = await run(
      `setsid sleep ${marker}.1 > /dev/null 2>&1 & p=$!; ` +
        'while [ "$(ps -o pgid= -p $p | tr -d " ")" = "$(ps -o pgid= -p $$ | tr -d " ")" ]; do sleep 0.01; done; echo done',
    );
    expect(r.data.exitCode).toBe(0);
    await waitFor(() => sleeps() === 1, 20_000, 'the daemon');
    // Another registry's shutdown is not this one's.
    const other = makeProject();
    await other.cleanup();
    expect(sleeps()).toBe(1);
    await project.tasks.shutdown();
    await waitFor(() => sleeps() === 0, 20_000, 'the daemon to end');
  }, 40_000);
});
