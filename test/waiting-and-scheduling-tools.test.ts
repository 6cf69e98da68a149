/**
 * The tools of issue 36 (ScheduleWakeup, the Cron tools, Monitor, LSP) in the runtime's pool — what every face (the
 * CLI, the Agent SDK face, the MCP server, the interactive session) offers — deferred as Claude Code defers them, and
 * found by their seed names.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import type { ToolRuntime } from '../src/agent/types.js';
import { cronSchedulerFor } from '../src/tools/cron/scheduler.js';
import { ScheduleWakeupTool } from '../src/tools/schedule-wakeup/index.js';
import { allowAll, assistantMessage, makeProject } from '../src/tools/bash/test-helpers/project.js';
import { call, harness, text } from './helpers/agent-sdk-session.js';

let dir: string;
let rt: ToolRuntime | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-new-tools-'));
});
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('the waiting and scheduling tools', () => {
  it('are in the pool, deferred, and found by their aliases', async () => {
    rt = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), settings: { sources: [] } });
    const byName = new Map(rt.tools.map((t) => [t.name, t]));
    for (const name of ['ScheduleWakeup', 'CronCreate', 'CronList', 'CronDelete', 'Monitor', 'LSP']) {
      expect(byName.get(name), name).toBeDefined();
      expect(byName.get(name)!.shouldDefer, name).toBe(true);
    }
    expect(rt.findTool('Sleep')?.name).toBe('ScheduleWakeup');
  });

  it('a cron job firing ends a ScheduleWakeup wait, and its prompt is the news that follows', async () => {
    vi.useFakeTimers({ now: new Date(2026, 2, 10, 12, 0, 30), toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const project = makeProject({ dir });
    try {
      await cronSchedulerFor(project.context).create({ cron: '*/5 * * * *', prompt: 'look at the queue', recurring: true, durable: false });
      const waiting = ScheduleWakeupTool.call({ delaySeconds: 3600, reason: 'nothing to do until the job fires' }, project.context, allowAll, assistantMessage);
      await vi.advanceTimersByTimeAsync(5 * 60_000);
      const woke = await waiting;
      expect(woke.data).toMatchObject({ wokeBy: 'notification', clampedDelaySeconds: 3600 });
      expect(woke.data.waitedMs).toBe(270_000);
      expect(JSON.stringify(project.notifications.drain())).toContain('look at the queue');
    } finally {
      vi.useRealTimers();
      await project.cleanup();
    }
  });

  it("through the Agent SDK face, a Monitor's lines become the model's next turns while the watch runs, then the session ends", async () => {
    // The command prints a line, then waits for the model to have seen it (the scripted model drops a file when a
    // request carries the line): only a session that turns a running task's news into a turn gets there.
    let go = '';
    const noted = (request: { body: unknown }) => {
      if (JSON.stringify((request.body as { messages: unknown[] }).messages.at(-1)).includes('hello-from-monitor')) writeFileSync(go, '');
      return text('noted');
    };
    const h = await harness([
      call('ToolSearch', { query: 'select:Monitor' }),
      call('Monitor', { description: 'greeting', command: 'echo hello-from-monitor; until [ -e go ]; do sleep 0.05; done; echo second-line', timeout_ms: 15_000 }),
      text('watching'),
      ...Array.from({ length: 8 }, () => noted),
    ]);
    go = path.join(h.dir, 'go');
    try {
      const { messages, error } = await h.run('watch it', { allowedTools: ['Monitor', 'ToolSearch'] });
      expect(error).toBeUndefined();
      const lastMessages = h.server.messageRequests.map((r) => JSON.stringify((r.body as { messages: unknown[] }).messages.at(-1)));
      const first = lastMessages.findIndex((t) => t.includes('hello-from-monitor'));
      const ended = lastMessages.findIndex((t) => t.includes('The watch ended: the command exited'));
      expect(first).toBeGreaterThan(0);
      expect(ended).toBeGreaterThan(first);
      expect(lastMessages.slice(first, ended + 1).some((t) => t.includes('second-line'))).toBe(true);
      expect(messages.filter((m) => m.type === 'result').length).toBeGreaterThanOrEqual(3);
    } finally {
      await h.close();
    }
  });
});
