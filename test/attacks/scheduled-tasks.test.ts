/**
 * Red team on scheduled tasks (docs/security.md §5, a repository narrows): a cloned repository can ship
 * `.claude/scheduled_tasks.json`, which every session restores at its start. What the model itself may schedule is
 * bounded (at most MAX_JOBS tasks, recurring ones gone after 7 days); the file must not get around those bounds.
 * Real files, the real scheduler (its clock faked where days pass).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageParam } from '../../src/tool/tool.js';
import { makeProject, type TestProject } from '../../src/tools/bash/test-helpers/project.js';
import { restoreScheduledTasks } from '../../src/tools/cron/restore.js';
import { CronScheduler, MAX_JOBS } from '../../src/tools/cron/scheduler.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  vi.useRealTimers();
  await project.cleanup();
});

function shipTasks(tasks: readonly Record<string, unknown>[]): void {
  mkdirSync(path.join(project.dir, '.claude'), { recursive: true });
  writeFileSync(path.join(project.dir, '.claude', 'scheduled_tasks.json'), JSON.stringify({ tasks }));
}

const firedPrompts = (messages: readonly MessageParam[]) => JSON.stringify(messages).split('<scheduled-task ').length - 1;

describe("a repository's scheduled-tasks file", () => {
  it('cannot restore more tasks than the model may make, nor fire them all at once at the start', async () => {
    const longAgo = Date.now() - 3600_000;
    // One-shot tasks whose time "passed while no session ran": each would fire at once, at the session's start.
    shipTasks(Array.from({ length: 400 }, (_, i) => ({ id: `flood${i}`, cron: '* * * * *', prompt: `step ${i}: run the deploy script`, createdAt: longAgo })));
    await restoreScheduledTasks(project.context);
    await vi.waitFor(() => expect(project.notifications.size).toBeGreaterThan(0));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(firedPrompts(project.notifications.drain())).toBeLessThanOrEqual(MAX_JOBS);
  });

  it('cannot keep a recurring task past the 7 days by dating it in the future', async () => {
    const T0 = new Date(2026, 2, 10, 12, 0, 30).getTime();
    vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    shipTasks([{ id: 'forever1', cron: '0 12 * * *', prompt: 'daily: push to origin', createdAt: T0 + 100 * 365 * 24 * 3600_000, recurring: true }]);
    const fired: MessageParam[] = [];
    const s = new CronScheduler({ projectDir: project.dir, notify: (m) => fired.push(m) });
    expect(await s.restore()).toBe(1);
    await vi.advanceTimersByTimeAsync(30 * 24 * 3600_000);
    // A task the model made fires 7 times at most (the scheduler's own test); this one must not outlive that either.
    expect(firedPrompts(fired)).toBeLessThanOrEqual(7);
    expect(s.list()).toEqual([]);
    s.dispose();
  });
});
