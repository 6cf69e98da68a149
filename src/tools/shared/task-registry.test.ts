/**
 * The registry knows no kind of task: these tasks are neither shells nor agents, only a kill, an output and an end —
 * and TaskOutput and TaskStop (through the real pipeline) serve them like any other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NotificationQueue } from '../../tool/notification-queue.js';
import { getEmptyToolPermissionContext } from '../../tool/permission-types.js';
import { createToolUseContext } from '../../tool/tool-use-context.js';
import { TaskOutputTool, type TaskOutputData } from '../task-output/index.js';
import { TaskStopTool, type TaskStopData } from '../task-stop/index.js';
import { callTool } from '../bash/test-helpers/project.js';
import { createTaskRegistry, type TaskEnd, type TaskSource, type TaskStopReason } from './task-registry.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tasks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A task that ends when told to, or when killed; its output is whatever was written to it. */
function fakeTask(id: string, over: Partial<TaskSource> = {}) {
  let end!: (e: TaskEnd) => void;
  const ended = new Promise<TaskEnd>((resolve) => (end = resolve));
  const kills: TaskStopReason[] = [];
  let output = '';
  const source: TaskSource = {
    id,
    type: 'test_task',
    label: `job ${id}`,
    outputFile: path.join(dir, `${id}.out`),
    startedAt: Date.now(),
    facts: { widgets: 3 },
    ended,
    kill: async (reason) => {
      kills.push(reason);
      end({ status: 'killed', killReason: reason, summary: 'stopped where it was' });
    },
    readOutput: () => ({ text: output, truncated: false, sizeBytes: output.length }),
    endNotification: (task) => ({ role: 'user', content: `ended: ${task.id} ${task.status}` }),
    ...over,
  };
  return { source, kills, write: (s: string) => (output += s), finish: (e: TaskEnd) => end(e) };
}

function setup() {
  const tasks = createTaskRegistry();
  const notifications = new NotificationQueue();
  const context = createToolUseContext({ tools: [], permissionContext: getEmptyToolPermissionContext(dir), sessionDir: dir, services: { tasks, notifications } });
  return { tasks, notifications, context };
}

describe('the task registry', () => {
  it('keeps a task of any kind: its state, facts, output and end; notifies an end no one asked for', async () => {
    const { tasks, notifications } = setup();
    const t = fakeTask('t1');
    tasks.register(t.source, { backgroundedBy: 'request', notifications });
    expect(tasks.get('t1')).toMatchObject({ status: 'running', type: 'test_task', label: 'job t1', facts: { widgets: 3 } });
    t.write('half way');
    expect(tasks.readOutput('t1')?.text).toBe('half way');
    t.finish({ status: 'completed', summary: 'all widgets made', facts: { widgets: 4 } });
    expect(await tasks.wait('t1')).toMatchObject({ status: 'completed', summary: 'all widgets made', facts: { widgets: 4 } });
    expect(notifications.drain().map((m) => m.content)).toEqual(['ended: t1 completed']);
    expect(() => tasks.register(fakeTask('t1').source, { backgroundedBy: 'request' })).toThrow(/registered already/);
  });

  it('stops a task through its own kill, sends no notification for it, and ends it at its lifetime', async () => {
    const { tasks, notifications } = setup();
    const a = fakeTask('a');
    tasks.register(a.source, { backgroundedBy: 'request', notifications });
    expect(await tasks.stop('a')).toMatchObject({ status: 'killed', killReason: 'stop' });
    expect(a.kills).toEqual(['stop']);
    expect(notifications.drain()).toEqual([]);
    const b = fakeTask('b');
    tasks.register(b.source, { backgroundedBy: 'request', notifications, lifetimeMs: 0 });
    expect(await tasks.wait('b', { timeoutMs: 5_000 })).toMatchObject({ status: 'killed', killReason: 'lifetime' });
    expect(notifications.drain()).toHaveLength(1);
  });

  it('shutdown ends what runs, runs each shutdown step once, and ends later registrations at once', async () => {
    const { tasks } = setup();
    const a = fakeTask('a');
    tasks.register(a.source, { backgroundedBy: 'user' });
    let steps = 0;
    tasks.onShutdown('count', async () => void steps++);
    tasks.onShutdown('count', async () => void (steps += 100));
    const report = await tasks.shutdown();
    expect(report.ended.map((t) => [t.id, t.killReason])).toEqual([['a', 'shutdown']]);
    expect(steps).toBe(1);
    const late = fakeTask('late');
    tasks.register(late.source, { backgroundedBy: 'request' });
    expect(await tasks.wait('late')).toMatchObject({ status: 'killed', killReason: 'shutdown' });
  });

  it('a source whose end rejects is recorded as failed; an output that cannot be read says so', async () => {
    const { tasks } = setup();
    const broken = fakeTask('x', {
      ended: Promise.reject(new Error('the loop blew up')),
      readOutput: () => {
        throw new Error('gone');
      },
    });
    tasks.register(broken.source, { backgroundedBy: 'request' });
    expect(await tasks.wait('x')).toMatchObject({ status: 'failed', facts: { error: 'the loop blew up' } });
    expect(tasks.readOutput('x')?.text).toMatch(/could not be read: gone/);
  });

  it('TaskOutput and TaskStop serve it through the pipeline, whatever its kind', async () => {
    const { tasks, context } = setup();
    const t = fakeTask('w1', { description: 'make widgets' });
    tasks.register(t.source, { backgroundedBy: 'request' });
    t.write('widget 1\nwidget 2\n');
    const read = await callTool<TaskOutputData>(TaskOutputTool, { task_id: 'w1', block: false }, context);
    expect(read.data.task).toMatchObject({ task_type: 'test_task', status: 'running', widgets: 3, output: 'widget 1\nwidget 2\n' });
    expect(read.text).toContain('<widgets>3</widgets>');
    expect(read.text).toContain('<description>make widgets</description>');
    const stopped = await callTool<TaskStopData>(TaskStopTool, { task_id: 'w1' }, context);
    expect(stopped.text).toBe('Successfully stopped task: w1 (job w1)');
    expect(stopped.data).toMatchObject({ task_type: 'test_task', status: 'killed', summary: 'stopped where it was' });
    expect(await TaskStopTool.validateInput!({ task_id: 'w1' }, context)).toEqual({
      result: false,
      message: 'Task w1 is not running (status: killed, stopped where it was).',
      errorCode: 3,
    });
  });
});
