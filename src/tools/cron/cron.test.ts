import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolvePermission } from '../../permissions/resolve.js';
import { toolResultText } from '../../tool/tool-result.js';
import { createSubagentContext } from '../../tool/tool-use-context.js';
import type { MessageParam } from '../../tool/tool.js';
import { callTool, makeProject, type TestProject } from '../bash/test-helpers/project.js';
import { CronCreateTool, CronDeleteTool, CronListTool, type CronCreateOutput, type CronListOutput } from './index.js';
import { restoreScheduledTasks } from './restore.js';
import { CronScheduler } from './scheduler.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  vi.useRealTimers();
  await project.cleanup();
});

const file = () => path.join(project.dir, '.claude', 'scheduled_tasks.json');
const stored = () => JSON.parse(readFileSync(file(), 'utf8')) as { tasks: { id: string; cron: string; prompt: string; createdAt: number; recurring?: boolean; lastFiredAt?: number }[] };
const create = (input: Record<string, unknown>, context = project.context) => callTool<CronCreateOutput>(CronCreateTool, input, context);
const list = (context = project.context) => callTool<CronListOutput>(CronListTool, {}, context);
const texts = (messages: MessageParam[]) => messages.map((m) => toolResultText({ type: 'tool_result', tool_use_id: 'x', content: m.content as never }));

describe('CronCreate, CronList, CronDelete', () => {
  it('schedule an in-memory recurring prompt, list it and delete it', async () => {
    const before = Date.now();
    const made = await create({ cron: '*/5 * * * *', prompt: 'check the build' });
    expect(made.data).toMatchObject({ humanSchedule: 'every 5 minutes', recurring: true });
    expect(made.data.durable).toBeUndefined();
    expect(new Date(made.data.nextFireAt!).getMinutes() % 5).toBe(0);
    expect(made.data.nextFireAt!).toBeGreaterThan(before);
    expect(made.text).toContain(`Scheduled task ${made.data.id}: every 5 minutes, recurring (expires after 7 days), this session only.`);
    expect(existsSync(file())).toBe(false);
    const listed = await list();
    expect(listed.data.jobs).toEqual([expect.objectContaining({ id: made.data.id, cron: '*/5 * * * *', prompt: 'check the build', recurring: true, durable: false })]);
    expect(listed.text).toContain('check the build');
    const deleted = await callTool(CronDeleteTool, { id: made.data.id }, project.context);
    expect(deleted.text).toBe(`Deleted scheduled task ${made.data.id}.`);
    expect((await list()).data.jobs).toEqual([]);
    expect((await list()).text).toBe('No scheduled tasks.');
  });

  it('refuse a bad expression, one that never fires, an unknown id and calls from a sub-agent', async () => {
    await expect(create({ cron: '* * *', prompt: 'x' })).rejects.toThrow(/Invalid cron expression: .*5 fields/);
    await expect(create({ cron: '0 0 30 2 *', prompt: 'x' })).rejects.toThrow(/never matches/);
    await expect(callTool(CronDeleteTool, { id: 'nope' }, project.context)).rejects.toThrow(/No scheduled task with ID nope/);
    await expect(create({ cron: '* * * * *', prompt: 'x' }, createSubagentContext(project.context))).rejects.toThrow(/main session/);
  });

  it("keep a durable task in the project's file, in Claude Code's shape, and a new session restores it", async () => {
    const made = await create({ cron: '0 9 * * 1-5', prompt: 'standup notes', durable: true });
    expect(made.data.durable).toBe(true);
    expect(stored().tasks).toEqual([{ id: made.data.id, cron: '0 9 * * 1-5', prompt: 'standup notes', createdAt: expect.any(Number), recurring: true }]);
    // A later session of the same project (a new services object: a new runtime).
    const next = makeProject({ dir: project.dir });
    expect(await restoreScheduledTasks(next.context)).toBe(1);
    expect((await list(next.context)).data.jobs).toEqual([expect.objectContaining({ id: made.data.id, durable: true, humanSchedule: 'every mon, tue, wed, thu, fri at 09:00' })]);
    await callTool(CronDeleteTool, { id: made.data.id }, next.context);
    expect(stored().tasks).toEqual([]);
    await next.tasks.shutdown();
  });

  it('a durable task needs permission (it writes the project); an in-memory one and a delete do not', async () => {
    const ctx = project.context.getAppState().toolPermissionContext;
    expect((await resolvePermission(CronCreateTool, { cron: '* * * * *', prompt: 'x' }, ctx)).behavior).toBe('allow');
    expect((await resolvePermission(CronCreateTool, { cron: '* * * * *', prompt: 'x', durable: true }, ctx)).behavior).toBe('ask');
    expect((await resolvePermission(CronDeleteTool, { id: 'x' }, ctx)).behavior).toBe('allow');
    expect((await resolvePermission(CronListTool, {}, ctx)).behavior).toBe('allow');
  });

  it('never write over a scheduled-tasks file it cannot read, and say so at restore', async () => {
    mkdirSync(path.dirname(file()), { recursive: true });
    writeFileSync(file(), '{"tasks": "not a list"}');
    await expect(create({ cron: '* * * * *', prompt: 'x', durable: true })).rejects.toThrow(/could not be read as a list of tasks/);
    expect(readFileSync(file(), 'utf8')).toBe('{"tasks": "not a list"}');
    const next = makeProject({ dir: project.dir });
    expect(await restoreScheduledTasks(next.context)).toBe(0);
    expect(JSON.stringify(next.notifications.drain())).toContain('were not restored');
    await next.tasks.shutdown();
  });

  it('skip malformed entries of the file and keep well-formed ones', async () => {
    mkdirSync(path.dirname(file()), { recursive: true });
    const good = { id: 'aa11', cron: '0 9 * * *', prompt: 'p', createdAt: Date.now(), recurring: true };
    writeFileSync(file(), JSON.stringify({ tasks: [good, { id: 'bad', cron: 'nope', prompt: 'p', createdAt: 1 }, { id: 3 }] }));
    expect(await restoreScheduledTasks(project.context)).toBe(1);
    expect((await list()).data.jobs.map((j) => j.id)).toEqual(['aa11']);
  });
});

describe('the scheduler (its clock faked; the project file real)', () => {
  const T0 = new Date(2026, 2, 10, 12, 0, 30).getTime();
  const scheduler = (fired: MessageParam[]) => new CronScheduler({ projectDir: project.dir, notify: (m) => fired.push(m) });

  it('fires a recurring job at each match with its prompt, marked as a scheduled task', async () => {
    vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const fired: MessageParam[] = [];
    const s = scheduler(fired);
    const job = await s.create({ cron: '*/5 * * * *', prompt: 'look at CI', recurring: true, durable: false });
    expect(job.nextFireAt).toBe(new Date(2026, 2, 10, 12, 5).getTime());
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(texts(fired)).toEqual([expect.stringContaining(`<scheduled-task id="${job.id}" schedule="every 5 minutes">\nlook at CI\n</scheduled-task>`)]);
    expect(texts(fired)[0]).toContain('Carry out its prompt above.');
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(fired).toHaveLength(3);
    expect(s.get(job.id)?.lastFiredAt).toBe(new Date(2026, 2, 10, 12, 15).getTime());
    s.dispose();
  });

  it('a one-shot job fires once and is gone (from the file too when durable)', async () => {
    vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const fired: MessageParam[] = [];
    const s = scheduler(fired);
    const job = await s.create({ cron: '0 13 * * *', prompt: 'remind me', recurring: false, durable: true });
    expect(stored().tasks.map((t) => t.id)).toEqual([job.id]);
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(texts(fired)).toEqual([expect.stringContaining('one-shot task and is now deleted')]);
    expect(s.list()).toEqual([]);
    await vi.waitFor(() => expect(stored().tasks).toEqual([]));
    await vi.advanceTimersByTimeAsync(48 * 3600_000);
    expect(fired).toHaveLength(1);
  });

  it('recurring jobs expire 7 days after they were made, and the model is told', async () => {
    vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const fired: MessageParam[] = [];
    const s = scheduler(fired);
    const job = await s.create({ cron: '0 12 * * *', prompt: 'daily', recurring: true, durable: true });
    await vi.advanceTimersByTimeAsync(7 * 24 * 3600_000);
    expect(texts(fired).filter((t) => t.includes('<scheduled-task'))).toHaveLength(7); // noon of the 11th to the 17th (made at 12:00:30 on the 10th, it expires at 12:00:30 on the 17th)
    expect(texts(fired).at(-1)).toContain(`Scheduled task ${job.id} (every day at 12:00) expired 7 days after it was made`);
    expect(s.list()).toEqual([]);
    // Eight file updates one after the other (each fire, then the expiry): a loaded machine needs more than waitFor's 1 s.
    await vi.waitFor(() => expect(stored().tasks).toEqual([]), { timeout: 15_000 });
  });

  it('a durable one-shot whose time passed while no session ran fires at restore; expired recurring ones are dropped', async () => {
    mkdirSync(path.dirname(file()), { recursive: true });
    const now = Date.now();
    writeFileSync(
      file(),
      JSON.stringify({
        tasks: [
          { id: 'late1', cron: '* * * * *', prompt: 'missed reminder', createdAt: now - 3600_000 },
          { id: 'old1', cron: '* * * * *', prompt: 'stale', createdAt: now - 8 * 24 * 3600_000, recurring: true },
          { id: 'keep1', cron: '0 0 1 1 *', prompt: 'new year', createdAt: now, recurring: true },
        ],
      }),
    );
    const fired: MessageParam[] = [];
    const s = scheduler(fired);
    expect(await s.restore()).toBe(2);
    await vi.waitFor(() => expect(fired).toHaveLength(1));
    expect(texts(fired)[0]).toContain('its time passed while no session ran');
    // Restored from a file a repository may carry: the model is told not to take it as the user's own request.
    expect(texts(fired)[0]).toContain('may have been written by the repository');
    await vi.waitFor(() => expect(stored().tasks.map((t) => t.id)).toEqual(['keep1']));
    expect(s.list().map((j) => j.id)).toEqual(['keep1']);
    s.dispose();
  });
});
