/**
 * Agent teams: each teammate has its own notification queue (its inbox). A background command a teammate starts ends
 * with a task notification that is that teammate's next turn — never in the lead's turns, never in another
 * teammate's. Through the Agent SDK face against the scripted model, with real bash.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptedResponse } from '../src/testing/index.js';
import { call, harness, text } from './helpers/agent-sdk-session.js';

const systemOf = (r: RecordedRequest) => JSON.stringify(r.body?.system ?? '');
const bodyOf = (r: RecordedRequest) => JSON.stringify(r.body);
const waitFor = (until: () => unknown, then: ScriptedResponse): ScriptedResponse => ({ ...then, content: [{ type: 'wait', until, timeoutMs: 30_000 }, ...(then.content ?? [])] });

const MARK = 'alpha-bg-6d2e91';

describe('agent teams: one notification queue per teammate', () => {
  it("a teammate's background task reports to that teammate only", { timeout: 120_000 }, async () => {
    const seen = { lead: [] as RecordedRequest[], alpha: [] as RecordedRequest[], beta: [] as RecordedRequest[] };
    const alphaNotified = () => seen.alpha.some((r) => JSON.stringify((r.body as { messages: unknown[] }).messages.at(-1)).includes(MARK));
    const router = (r: RecordedRequest): ScriptedResponse => {
      if (systemOf(r).includes('You are \\"alpha\\", a teammate')) {
        seen.alpha.push(r);
        return [call('Bash', { command: `echo ${MARK}-output`, description: MARK, run_in_background: true }), text('alpha waits for its command'), text('alpha saw its command end')][seen.alpha.length - 1] ?? text('alpha: nothing more');
      }
      if (systemOf(r).includes('You are \\"beta\\", a teammate')) {
        seen.beta.push(r);
        return text('beta is idle');
      }
      seen.lead.push(r);
      return (
        [
          call('Agent', { description: 'run a command', prompt: 'Run the command in the background.', name: 'alpha' }),
          call('Agent', { description: 'stand by', prompt: 'Stand by.', name: 'beta' }),
          // The lead goes on working while alpha's command ends: its tool results drain the lead's queue.
          waitFor(alphaNotified, call('Glob', { pattern: '*' })),
          call('Glob', { pattern: '*' }),
          text('lead done'),
        ][seen.lead.length - 1] ?? text('lead: nothing more')
      );
    };
    const h = await harness(Array.from({ length: 30 }, () => router));
    try {
      const { error } = await h.run('use the team', { permissionMode: 'acceptEdits' });
      expect(error).toBeUndefined();
      expect(alphaNotified()).toBe(true);
      const notice = seen.alpha.map(bodyOf).find((b) => b.includes(MARK) && b.includes('task-notification'));
      expect(notice).toBeDefined();
      for (const r of seen.lead) expect(bodyOf(r)).not.toContain(MARK);
      expect(seen.beta.length).toBeGreaterThan(0);
      for (const r of seen.beta) expect(bodyOf(r)).not.toContain(MARK);
    } finally {
      await h.close();
    }
  });
});
