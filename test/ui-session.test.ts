/**
 * The interactive session in a real terminal: `toolgate run` under a pty, the screen read through xterm, the model
 * played by the scripted Messages API server. One session reads a file, asks to run a command and gets "allow and
 * don't ask again" by keystroke (the rule lands in .claude/settings.local.json; the same call later does not ask),
 * shows an edit's diff, is interrupted mid-Bash with Ctrl+C (one result per tool_use, no process left), and exits.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { processesWithMarker, waitFor } from '../src/tools/bash/test-helpers/project.js';
import { spawnToolgate, type PtyScreen } from './helpers/pty-screen.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
let term: PtyScreen | undefined;
const MARKER = 'sleep 47.25';

beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-pty-')));
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

const tool = (name: string, input: Record<string, unknown>) => ({ content: [{ type: 'tool_use' as const, name, input }] });

describe('toolgate run on a terminal', () => {
  it('reads, asks, remembers the grant, shows a diff, is interrupted mid-Bash and exits', async () => {
    const notes = path.join(work, 'notes.txt');
    writeFileSync(notes, 'alpha\nbeta\ngamma\n');
    server = await startScriptedServer([
      // prompt 1
      { content: [{ type: 'text', text: 'Let me **look** at the notes.' }, { type: 'tool_use', name: 'Read', input: { file_path: notes } }] },
      tool('Bash', { command: 'touch made.txt' }),
      tool('Bash', { command: 'touch made.txt' }),
      tool('Edit', { file_path: notes, old_string: 'beta', new_string: 'BETA' }),
      { content: [{ type: 'text', text: 'Done: `beta` is now upper case.' }] },
      // prompt 2
      tool('Bash', { command: `echo started; ${MARKER}; echo never` }),
      // prompt 3
      { content: [{ type: 'text', text: 'Stopped as you asked.' }] },
    ]);
    term = spawnToolgate(['run', '--cwd', work, '--allowedTools', `Bash(${MARKER.split(' ')[0]}:*)`], {
      env: {
        PATH: process.env.PATH,
        HOME: path.join(dir, 'home'),
        XDG_STATE_HOME: path.join(dir, 'state'),
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: server.url,
      },
    });
    const t = term;
    await t.waitFor('Ask for something', 60_000);
    t.write('tidy the notes\r');

    // Read: one line with the count.
    await t.waitFor('Read 4 lines');
    // The command asks; "don't ask again" names the rule and its file.
    const dialog = await t.waitFor('Allow Bash?');
    const rule = /don't ask again for (Bash\([^)]*\))/.exec(dialog)?.[1];
    expect(rule).toBeDefined();
    expect(dialog).toContain('.claude/settings.local.json');
    t.write('2');
    // The second identical call runs without asking — had it asked, nobody would answer and the Edit's dialog
    // below would never come. The Edit asks (default mode) and shows its diff.
    // The Edit dialog names its file (the diff alone does not say which).
    const editDialog = await t.waitFor('Allow Update(notes.txt)?');
    expect(editDialog).toContain('-beta');
    expect(editDialog).toContain('+BETA');
    const settings = JSON.parse(readFileSync(path.join(work, '.claude', 'settings.local.json'), 'utf8'));
    expect(settings.permissions.allow).toContain(rule);
    t.write('1');
    await t.waitFor('is now upper case');
    const afterFirst = t.transcript();
    expect(afterFirst).toMatch(/2 -beta\n\s+2 \+BETA/);
    expect(readFileSync(notes, 'utf8')).toBe('alpha\nBETA\ngamma\n');

    // A long command, interrupted with Ctrl+C while it runs. (A line sent while a turn still ends is refused: wait for
    // the idle prompt first.)
    await t.waitFor('Ask for something');
    t.write('now wait\r');
    await t.waitFor('started');
    await waitFor(() => processesWithMarker(MARKER).length > 0, 20_000, 'the sleep to start');
    t.write('\x03');
    await t.waitFor('Interrupted');
    await waitFor(() => processesWithMarker(MARKER).length === 0, 10_000, 'the process group to end');

    // The next turn's request carries exactly one tool_result for the interrupted call.
    await t.waitFor('Ask for something');
    t.write('ok, stop\r');
    await t.waitFor('Stopped as you asked.');
    const last = server.messageRequests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    const uses = last.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === 'tool_use');
    const results = last.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === 'tool_result');
    expect(uses.length).toBe(5);
    for (const use of uses as { id: string }[]) expect(results.filter((r: any) => r.tool_use_id === use.id)).toHaveLength(1);

    // Ctrl+D on the empty prompt leaves.
    t.write('\x04');
    expect(await t.exited).toBe(0);
    if (process.env.TOOLGATE_UI_CAPTURE) writeFileSync(process.env.TOOLGATE_UI_CAPTURE, t.transcript());
  }, 180_000);
});
