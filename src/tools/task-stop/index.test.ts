import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BashTool } from '../bash/index.js';
import type { BashOutput } from '../bash/bash-output.js';
import { callTool, makeProject, processesWithMarker, waitFor, type TestProject } from '../bash/test-helpers/project.js';
import { TaskStopTool, type TaskStopData } from './index.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

async function background(command: string): Promise<string> {
  const r = await callTool<BashOutput>(BashTool, { command, run_in_background: true }, project.context);
  return r.data.backgroundTaskId!;
}

describe('TaskStop', () => {
  it('kills the whole process group of a running task and records it as killed', async () => {
    const marker = `${process.pid % 1000}${Date.now() % 100000}`;
    const id = await background(`sleep 96${marker}.1 & sleep 96${marker}.2 | cat; wait`);
    const sleeps = () => processesWithMarker(`96${marker}.`).filter((p) => p.cmdline.startsWith('sleep ')).length;
    await waitFor(() => sleeps() === 2, 5_000, 'two sleeps');
    const r = await callTool<TaskStopData>(TaskStopTool, { task_id: id }, project.context);
    expect(r.text).toBe(`Successfully stopped task: ${id} (sleep 96${marker}.1 & sleep 96${marker}.2 | cat; wait)`);
    expect(r.data.status).toBe('killed');
    expect(project.tasks.get(id)).toMatchObject({ status: 'killed', killReason: 'stop' });
    await waitFor(() => processesWithMarker(`96${marker}.`).length === 0, 1_000, 'no survivors');
    // The caller already has its answer: no end-of-task notification for a stop.
    expect(project.notifications.drain()).toEqual([]);
  });

  it('accepts the deprecated shell_id and answers to the KillShell and KillBash names', async () => {
    expect(TaskStopTool.aliases).toEqual(['KillShell', 'KillBash']);
    const id = await background('sleep 30');
    const r = await callTool<TaskStopData>(TaskStopTool, { shell_id: id }, project.context);
    expect(r.data.task_id).toBe(id);
    expect(project.tasks.get(id)?.status).toBe('killed');
  });

  it('rejects a missing id, an unknown id and a task that already ended', async () => {
    const v = (input: Record<string, unknown>) => TaskStopTool.validateInput!(TaskStopTool.inputSchema.parse(input), project.context);
    expect(await v({})).toMatchObject({ result: false });
    expect(await v({ task_id: 'b00000000' })).toEqual({ result: false, message: 'No task found with ID: b00000000', errorCode: 2 });
    const id = await background('exit 0');
    await project.tasks.wait(id, { timeoutMs: 5_000 });
    expect(await v({ task_id: id })).toEqual({
      result: false,
      message: `Task ${id} is not running (status: completed, exit code 0).`,
      errorCode: 3,
    });
  });
});
