/**
 * /rewind's pickers and Esc Esc in a real terminal (pty + xterm), the model played by the scripted server (issue 35):
 * a turn changes files through Bash (`sed -i`, a new file), Esc Esc on the idle session opens the picker of user
 * turns, the second screen shows what a rewind would change before it acts, and restoring code and conversation puts
 * the files back byte for byte and the message back in the prompt. Esc Esc is a key, not something typed: `/rewind`
 * must not land in the prompt history.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { spawnToolgate, type PtyScreen } from './helpers/pty-screen.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
const terms: PtyScreen[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-rewind-')));
  work = path.join(dir, 'work');
  mkdirSync(work);
  mkdirSync(path.join(dir, 'home'));
});
afterEach(async () => {
  await Promise.all(terms.splice(0).map((t) => (t.kill(), t.exited)));
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UP = '\x1b[A';
/** The prompt's line: the last `› ` line on the screen (the conversation's user lines are above it). */
const promptLine = (screen: string) => screen.split('\n').filter((l) => /^\s*› /.test(l)).at(-1)?.trim() ?? '';

/** Esc twice on the idle session; the two presses are sent apart (one chunk `\x1b\x1b` reads as Alt+Esc), and again
 * if a loaded machine let more than the second between them pass. */
async function escEsc(t: PtyScreen, until: string | ((screen: string) => boolean)): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    t.write('\x1b');
    await sleep(120);
    t.write('\x1b');
    try {
      return await t.waitFor(until, 10_000);
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
}

describe('/rewind in the terminal', () => {
  it('Esc Esc opens the picker; the dry run is shown; code and conversation come back; the history keeps what was typed', async () => {
    writeFileSync(path.join(work, 'notes.txt'), 'alpha\nkeep\n');
    server = await startScriptedServer([
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sed -i s/alpha/beta/ notes.txt && echo made > made.txt', description: 'edit' } }] },
      text('Changed them.'),
      text('Second answer.'),
    ]);
    const t = spawnToolgate(['--cwd', work], {
      rows: 60,
      env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
    });
    terms.push(t);
    await t.waitFor('Ask for something');

    t.write('change the notes\r');
    // A write through Bash is asked about even with Bash allowed; the person says yes once.
    await t.waitFor('Allow Bash?');
    t.write('\r');
    await t.waitFor('Changed them.');
    await t.waitFor('Ask for something');
    expect(readFileSync(path.join(work, 'notes.txt'), 'utf8')).toBe('beta\nkeep\n');
    expect(existsSync(path.join(work, 'made.txt'))).toBe(true);
    t.write('a second message\r');
    await t.waitFor('Second answer.');
    await t.waitFor('Ask for something');

    // The picker: newest turn first.
    const picker = await escEsc(t, 'Rewind to before which message?');
    expect(picker).toContain('2. a second message');
    expect(picker).toContain('1. change the notes');
    t.write('2');
    // The second screen says what would change, before anything is done.
    const what = await t.waitFor('Rewind to before "change the notes"?');
    expect(what).toMatch(/1 added since \(removed\), 1 changed \(written back\), 0 deleted/);
    expect(readFileSync(path.join(work, 'notes.txt'), 'utf8')).toBe('beta\nkeep\n');
    t.write('1');
    await t.waitFor('Conversation rewound');
    expect(readFileSync(path.join(work, 'notes.txt'), 'utf8')).toBe('alpha\nkeep\n');
    expect(existsSync(path.join(work, 'made.txt'))).toBe(false);
    await t.waitFor((s) => promptLine(s) === '› change the notes');

    // Esc Esc with text in the prompt clears it and keeps it in the history; ↑ walks back through what was typed
    // (newest first), and `/rewind`, a key's doing, is not in it.
    await escEsc(t, (s) => !s.includes('› change the notes'));
    expect(t.screen()).not.toContain('Rewind to before which message?');
    for (const expected of ['› change the notes', '› a second message', '› change the notes']) {
      t.write(UP);
      await t.waitFor((s) => promptLine(s) === expected);
    }
    t.write(UP);
    await sleep(300);
    expect(promptLine(t.screen())).toBe('› change the notes');
    expect(t.screen()).not.toContain('/rewind');
  }, 180_000);
});
