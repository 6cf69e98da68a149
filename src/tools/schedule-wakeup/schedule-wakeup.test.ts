import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PromptInbox } from '../../agent/loop-session.js';
import type { MessageParam } from '../../tool/tool.js';
import { createSubagentContext } from '../../tool/tool-use-context.js';
import { BashTool } from '../bash/index.js';
import type { BashOutput } from '../bash/bash-output.js';
import { callTool, makeProject, type TestProject } from '../bash/test-helpers/project.js';
import { ScheduleWakeupTool, type ScheduleWakeupOutput } from './index.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject({ settings: { scheduleWakeup: { minDelaySeconds: 0 } } });
});
afterEach(async () => {
  await project.cleanup();
});

const wake = (input: Record<string, unknown>, context = project.context) => callTool<ScheduleWakeupOutput>(ScheduleWakeupTool, input, context);

describe('ScheduleWakeup', () => {
  it('waits its time without a shell and says so, with the prompt to go on with', async () => {
    const r = await wake({ delaySeconds: 0.2, reason: 'let the cache expire', prompt: 'check the cache again', noop: true });
    expect(r.data).toMatchObject({ clampedDelaySeconds: 0.2, wasClamped: false, wokeBy: 'time', reason: 'let the cache expire', noop: true });
    expect(r.data.waitedMs).toBeGreaterThanOrEqual(150);
    expect(r.text).toBe('Woke up after 0.2s, as scheduled.\nGo on with: check the cache again');
  });

  it("keeps the delay within Claude Code's bounds by default, and a background task's end wakes it early", async () => {
    const defaults = makeProject();
    try {
      const started = Date.now();
      const pendingWait = wake({ delaySeconds: 5, reason: 'wait for the job' }, defaults.context);
      const bg = await callTool<BashOutput>(BashTool, { command: 'sleep 0.3; echo done', run_in_background: true }, defaults.context);
      const r = await pendingWait;
      expect(r.data).toMatchObject({ clampedDelaySeconds: 60, wasClamped: true, wokeBy: 'notification' });
      expect(r.data.scheduledFor).toBeGreaterThanOrEqual(started + 60_000);
      expect(r.text).toContain('news arrived');
      // The news itself is in the queue the executor drains into this result's messages.
      const news = JSON.stringify(defaults.notifications.drain());
      expect(news).toContain(bg.data.backgroundTaskId!);
    } finally {
      await defaults.cleanup();
    }
  });

  it('wakes at once when news is already waiting', async () => {
    project.notifications.push({ role: 'user', content: 'a task ended' });
    const r = await wake({ delaySeconds: 600, reason: 'idle' });
    expect(r.data.wokeBy).toBe('notification');
  });

  it("wakes when a person's message arrives in the loop's inbox", async () => {
    let release!: () => void;
    const later = new Promise<void>((resolve) => (release = resolve));
    async function* messages(): AsyncGenerator<MessageParam> {
      await later;
      yield { role: 'user', content: 'stop waiting, look at this' };
    }
    const inbox = new PromptInbox(messages(), () => project.notifications.poke('user-message'));
    const pendingWait = wake({ delaySeconds: 600, reason: 'idle' });
    setTimeout(release, 100);
    const r = await pendingWait;
    expect(r.data.wokeBy).toBe('user-message');
    expect(r.text).toContain('the user sent a message');
    expect(inbox.takeQueued()).toHaveLength(1);
    inbox.close();
  });

  it('stop: true ends the pending waits of the session and counts them', async () => {
    const pendingWait = wake({ delaySeconds: 600, reason: 'idle' });
    await new Promise((r) => setTimeout(r, 50));
    const stop = await wake({ stop: true });
    expect(stop.data).toMatchObject({ stopped: true, cancelledWakeups: 1 });
    expect(stop.text).toBe('Stopped: 1 pending wait ended.');
    expect((await pendingWait).data.wokeBy).toBe('stop');
    expect((await wake({ stop: true })).data.cancelledWakeups).toBe(0);
  });

  it('an interrupt ends the wait with an error result', async () => {
    const controller = new AbortController();
    const aborted = makeProject({ abortController: controller, settings: { scheduleWakeup: { minDelaySeconds: 0 } } });
    try {
      const pendingWait = wake({ delaySeconds: 600, reason: 'idle' }, aborted.context);
      setTimeout(() => controller.abort(), 50);
      await expect(pendingWait).rejects.toThrow(/interrupted/i);
    } finally {
      await aborted.cleanup();
    }
  });

  it('refuses a call without delay or reason, and any call from a sub-agent', async () => {
    await expect(wake({ reason: 'x' })).rejects.toThrow(/delaySeconds is required/);
    await expect(wake({ delaySeconds: 1 })).rejects.toThrow(/reason is required/);
    await expect(wake({ delaySeconds: 1, reason: 'x' }, createSubagentContext(project.context))).rejects.toThrow(/main session only/);
  });

  it('answers to its seed name Sleep, and is a deferred, read-only tool', () => {
    expect(ScheduleWakeupTool.aliases).toEqual(['Sleep']);
    expect(ScheduleWakeupTool.shouldDefer).toBe(true);
    expect(ScheduleWakeupTool.isReadOnly({})).toBe(true);
    expect(ScheduleWakeupTool.asyncSafe).toBeUndefined();
  });
});
