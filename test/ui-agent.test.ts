/**
 * The Agent tool's view in a real terminal (pty + xterm, the model and its sub-agent played by the scripted server):
 * while the sub-agent works, its latest calls and a tally are drawn live under the Agent call; once it is done, one
 * summary line. The sub-agent's Bash waits for a file the test writes, so the live view is read while it runs.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { spawnToolgate, type PtyScreen } from './helpers/pty-screen.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
let term: PtyScreen | undefined;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-agent-')));
  work = path.join(dir, 'work');
  mkdirSync(work);
  mkdirSync(path.join(dir, 'home'));
});
afterAll(async () => {
  // Gone before its folder is removed: a session still writing its transcript would make the removal fail.
  if (term) {
    term.kill();
    await term.exited;
  }
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function firstPrompt(request: RecordedRequest): string {
  const first = request.body.messages[0];
  return typeof first.content === 'string' ? first.content : first.content.map((b: { text?: string }) => b.text ?? '').join('\n');
}

describe('the Agent view in a terminal', () => {
  it('shows the sub-agent\'s calls live, then a summary line', async () => {
    writeFileSync(path.join(work, 'notes.txt'), 'one\ntwo\n');
    const waitCommand = 'until [ -f go ]; do sleep 0.1; done; echo released';
    const script: Record<string, ScriptedResponse[]> = {
      'survey the notes': [
        { content: [{ type: 'text', text: 'I will hand this to a sub-agent.' }, { type: 'tool_use', name: 'Agent', input: { description: 'Survey the notes', prompt: 'CHILD: read notes.txt, then wait for go' } }] },
        { content: [{ type: 'text', text: 'The sub-agent read **2 lines** and waited.' }] },
      ],
      CHILD: [
        { content: [{ type: 'text', text: 'Reading the notes.' }, { type: 'tool_use', name: 'Read', input: { file_path: 'notes.txt' } }] },
        { content: [{ type: 'tool_use', name: 'Bash', input: { command: waitCommand } }] },
        { content: [{ type: 'text', text: 'Two lines; released.' }] },
      ],
    };
    const turn = (request: RecordedRequest): ScriptedResponse => {
      const prompt = firstPrompt(request);
      const key = Object.keys(script).find((k) => prompt.includes(k));
      const index = request.body.messages.filter((m: { role: string }) => m.role === 'assistant').length;
      return (key ? script[key]![index] : undefined) ?? { content: [{ type: 'text', text: 'no script' }] };
    };
    server = await startScriptedServer(Array.from({ length: 8 }, () => turn));
    term = spawnToolgate(['run', '--cwd', work, '--permission-mode', 'bypassPermissions'], {
      env: {
        PATH: process.env.PATH,
        HOME: path.join(dir, 'home'),
        XDG_STATE_HOME: path.join(dir, 'state'),
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: server.url,
        // bypassPermissions as root needs Claude Code's opt-in (the tests may run as root).
        IS_SANDBOX: '1',
      },
    });
    const t = term;
    await t.waitFor('Ask for something', 60_000);
    t.write('survey the notes\r');

    // Live: the finished Read, the running Bash, the tally.
    const live = await t.waitFor((s) => s.includes('○ Bash(') && s.includes('✓ Read(notes.txt)'));
    expect(live).toContain('Agent(Survey the notes)');
    expect(live).toMatch(/Running… 1 tool use · [\d.]+k? tokens · \d+s/);
    if (process.env.TOOLGATE_UI_CAPTURE) writeFileSync(`${process.env.TOOLGATE_UI_CAPTURE}.live`, live);

    writeFileSync(path.join(work, 'go'), '');
    const done = await t.waitFor('and waited.');
    expect(done).toMatch(/Agent\(Survey the notes\)\n\s+⎿\s+Done \(2 tool uses · [\d.]+k? tokens · [\d.]+s\)/);
    t.write('\u0004');
    expect(await t.exited).toBe(0);
    if (process.env.TOOLGATE_UI_CAPTURE) writeFileSync(process.env.TOOLGATE_UI_CAPTURE, t.transcript());
  }, 120_000);
});
