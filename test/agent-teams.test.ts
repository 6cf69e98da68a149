/**
 * Agent teams (issue 36): TeamCreate, SendMessage and TeamDelete in the runtime's pool — what every face offers —
 * deferred as Claude Code defers them; and one team at work through the Agent SDK face, against the scripted model
 * with real tools and real files: the lead names the team, starts a teammate (an Agent call with a name) that writes a
 * file (claiming the lead's task on the shared task list) and reports with SendMessage, gives it more work by message — its next turn, with its conversation kept — and
 * ends the team. The requests show what each agent read; the SDK messages show the teammate as a task.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import type { ToolRuntime } from '../src/agent/types.js';
import type { RecordedRequest, ScriptedResponse } from '../src/testing/index.js';
import { call, harness, text } from './helpers/agent-sdk-session.js';

let rt: ToolRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const systemOf = (r: RecordedRequest) => JSON.stringify(r.body?.system ?? '');
const lastOf = (r: RecordedRequest) => JSON.stringify((r.body as { messages: unknown[] }).messages.at(-1));
const waitFor = (until: () => unknown, then: ScriptedResponse): ScriptedResponse => ({ ...then, content: [{ type: 'wait', until, timeoutMs: 20_000 }, ...(then.content ?? [])] });

describe('agent teams', () => {
  it('TeamCreate, SendMessage and TeamDelete are in the pool, deferred', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-teams-'));
    try {
      rt = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), settings: { sources: [] } });
      const byName = new Map(rt.tools.map((t) => [t.name, t]));
      for (const name of ['TeamCreate', 'TeamDelete', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskUpdate', 'TaskList']) {
        expect(byName.get(name), name).toBeDefined();
        expect(byName.get(name)!.shouldDefer, name).toBe(true);
      }
      // Teammates are background agents: SendMessage is theirs, the team's own tools are the lead's.
      for (const name of ['SendMessage', 'TaskCreate', 'TaskGet', 'TaskUpdate', 'TaskList']) expect(byName.get(name)!.asyncSafe, name).toBe(true);
      expect(byName.get('TeamCreate')!.asyncSafe).not.toBe(true);
      expect(byName.get('TeamDelete')!.asyncSafe).not.toBe(true);
    } finally {
      await rt?.dispose();
      rt = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('through the Agent SDK face: a teammate works beside the lead, messages go both ways between turns, TeamDelete ends it', async () => {
    const seen = { lead: [] as RecordedRequest[], mate: [] as RecordedRequest[] };
    let dir = '';
    const lead: ScriptedResponse[] = [
      call('ToolSearch', { query: 'select:TeamCreate,SendMessage,TeamDelete,TaskCreate,TaskList' }),
      call('TeamCreate', { team_name: 'builders', description: 'write two files' }),
      call('TaskCreate', { subject: 'Write hello.txt', description: 'one line' }),
      call('Agent', { description: 'write the files', prompt: 'Write hello.txt, then report.', name: 'writer' }),
      // The teammate has reported (its SendMessage ran): the next tool result carries the message.
      waitFor(() => seen.mate.length >= 5, call('Glob', { pattern: '*.txt' })),
      call('SendMessage', { to: 'writer', message: 'Now write bye.txt.', summary: 'second file' }),
      waitFor(() => existsSync(path.join(dir, 'bye.txt')) && seen.mate.length >= 7, call('TeamDelete', {})),
      call('TaskList', {}),
      text('all done'),
    ];
    const mate = (): ScriptedResponse[] => [
      call('ToolSearch', { query: 'select:SendMessage,TaskUpdate' }),
      call('TaskUpdate', { taskId: '1', status: 'in_progress' }),
      call('Write', { file_path: path.join(dir, 'hello.txt'), content: 'hello\n' }),
      call('SendMessage', { to: 'team-lead', message: 'wrote hello.txt', summary: 'first file done' }),
      text('first part done'),
      call('Write', { file_path: path.join(dir, 'bye.txt'), content: 'bye\n' }),
      text('second part done'),
    ];
    let mateTurns: ScriptedResponse[] = [];
    const router = (r: RecordedRequest): ScriptedResponse => {
      if (systemOf(r).includes('You are \\"writer\\", a teammate')) {
        seen.mate.push(r);
        return mateTurns[seen.mate.length - 1] ?? text('nothing more');
      }
      seen.lead.push(r);
      return lead[seen.lead.length - 1] ?? text('nothing more');
    };
    const h = await harness(Array.from({ length: 20 }, () => router));
    dir = h.dir;
    mateTurns = mate();
    try {
      const { messages, error } = await h.run('build it with a team', { permissionMode: 'acceptEdits' });
      expect(error).toBeUndefined();
      // Real files, written by the teammate's Write calls under the lead's mode.
      expect(readFileSync(path.join(dir, 'hello.txt'), 'utf8')).toBe('hello\n');
      expect(readFileSync(path.join(dir, 'bye.txt'), 'utf8')).toBe('bye\n');

      // The lead heard the teammate between its turns: with the Glob result, marked as a teammate's message.
      const afterGlob = lastOf(seen.lead[5]!);
      expect(afterGlob).toContain('<teammate-message from=\\"writer\\" summary=\\"first file done\\">\\nwrote hello.txt\\n</teammate-message>');
      expect(afterGlob).toMatch(/not the user's words/);

      // The teammate's next turn is the lead's message, after its whole conversation so far.
      const secondTurn = seen.mate[5]!;
      expect(lastOf(secondTurn)).toContain('<teammate-message from=\\"team-lead\\" summary=\\"second file\\">\\nNow write bye.txt.\\n</teammate-message>');
      const history = JSON.stringify((secondTurn.body as { messages: unknown[] }).messages);
      expect(history).toContain('Write hello.txt, then report.');
      expect(history).toContain('first part done');

      // The teammate's end of turn reached the lead as its report.
      expect(JSON.stringify(seen.lead.at(-1)?.body)).toContain('first part done');
      // The task list is the team's: the teammate claimed the lead's task.
      expect(lastOf(seen.lead.at(-1)!)).toContain('#1 [in_progress] Write hello.txt (owner: writer)');

      // On the Agent SDK face the teammate is a task: started, progressing, and notified when TeamDelete stopped it.
      const tasks = messages.filter((m) => m.type === 'system' && /^task_/.test((m as { subtype: string }).subtype)) as { subtype: string; task_type?: string; task_id: string }[];
      const started = tasks.find((m) => m.subtype === 'task_started' && m.task_type === 'local_agent');
      expect(started).toBeDefined();
      expect(tasks.some((m) => m.subtype === 'task_progress' && m.task_id === started!.task_id)).toBe(true);
      expect(tasks.some((m) => m.subtype === 'task_notification' && m.task_id === started!.task_id)).toBe(true);
      const deleted = messages.find((m) => m.type === 'user' && JSON.stringify(m).includes('Team \\"builders\\" deleted'));
      expect(JSON.stringify(deleted)).toContain('stopped \\"writer\\"');
      expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'all done' });
    } finally {
      await h.close();
    }
  });

  it("a single-prompt session waits for a teammate at work: its report is the lead's next turn, then the session ends", async () => {
    const seen = { lead: [] as RecordedRequest[], mate: [] as RecordedRequest[] };
    let dir = '';
    const router = (r: RecordedRequest): ScriptedResponse => {
      if (systemOf(r).includes('You are \\"writer\\", a teammate')) {
        seen.mate.push(r);
        return [call('Write', { file_path: path.join(dir, 'notes.txt'), content: 'notes\n' }), text('notes.txt written')][seen.mate.length - 1] ?? text('nothing more');
      }
      seen.lead.push(r);
      // The lead's turn ends while the teammate still works.
      return [call('Agent', { description: 'write notes', prompt: 'Write notes.txt.', name: 'writer' }), text('started a teammate'), text('thanks, writer')][seen.lead.length - 1] ?? text('nothing more');
    };
    const h = await harness(Array.from({ length: 10 }, () => router));
    dir = h.dir;
    try {
      const { messages, error } = await h.run('get notes written', { permissionMode: 'acceptEdits' });
      expect(error).toBeUndefined();
      expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('notes\n');
      expect(seen.lead).toHaveLength(3);
      expect(lastOf(seen.lead[2]!)).toContain('<teammate-message from=\\"writer\\" summary=\\"turn ended; waiting for messages\\">\\nnotes.txt written');
      expect(messages.filter((m) => m.type === 'result').map((m) => (m as { result?: string }).result)).toEqual(['started a teammate', 'thanks, writer']);
    } finally {
      await h.close();
    }
  });
});
