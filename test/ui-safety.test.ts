/**
 * Where the interactive session was unsafe or surprising, each in a real terminal (pty + xterm), the model played by
 * the scripted server: Esc on a permission prompt ends the turn (nothing later runs); Shift+Tab never reaches
 * bypassPermissions without the opt-in; one Ctrl+C on an empty prompt only warns; a message typed during a turn waits
 * for it, and Esc takes it back; a call waiting for approval says so; `toolgate "PROMPT"` sends the prompt at once.
 * Screens are polled; nothing is timed.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { spawnToolgate, type PtyOptions, type PtyScreen } from './helpers/pty-screen.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
const terms: PtyScreen[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-safety-')));
  work = path.join(dir, 'work');
  mkdirSync(work);
  mkdirSync(path.join(dir, 'home'));
});

afterEach(async () => {
  // Gone before its folder is removed: a session still writing its transcript would make the removal fail.
  await Promise.all(terms.splice(0).map((t) => (t.kill(), t.exited)));
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const tool = (name: string, input: Record<string, unknown>): ScriptedResponse => ({ content: [{ type: 'tool_use', name, input }] });
const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });
const SHIFT_TAB = '\u001b[Z';
const ESC = '\u001b';

function start(args: readonly string[], extraEnv: Record<string, string> = {}, options: PtyOptions = {}): PtyScreen {
  const t = spawnToolgate(['--cwd', work, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: path.join(dir, 'home'),
      XDG_STATE_HOME: path.join(dir, 'state'),
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: server!.url,
      ...extraEnv,
    },
    ...options,
  });
  terms.push(t);
  return t;
}

/** The text of the last user message of request `i`. */
function lastUserText(i: number): string {
  const last = server!.messageRequests[i]!.body.messages.at(-1);
  return typeof last.content === 'string' ? last.content : last.content.map((b: { text?: string; content?: unknown }) => b.text ?? JSON.stringify(b.content ?? '')).join('\n');
}

/** Waits until the turn is over: the prompt's idle placeholder is back. */
const idle = (t: PtyScreen) => t.waitFor('Ask for something');

describe('the interactive session, where it was unsafe', () => {
  it('Esc on a permission prompt ("deny and stop") ends the turn: the model is not asked again, nothing later runs', async () => {
    server = await startScriptedServer([
      tool('Bash', { command: 'touch refused.txt' }),
      // Were the loop to go on after the refusal, this would run (it is allowed) — as the 30 s Bash once did.
      tool('Bash', { command: 'touch later.txt' }),
      text('unreachable'),
    ]);
    const t = start(['--allowedTools', 'Bash(touch later.txt)']);
    await idle(t);
    t.write('make the files\r');
    const dialog = await t.waitFor('Allow Bash?');
    expect(dialog).toContain('Esc deny and stop');
    // The call's line says it waits for the person, not that it runs. (It may be drawn a moment after the dialog: a
    // plain command is judged without waiting for the parser, so the prompt can open before the line is drawn.)
    const waiting = await t.waitFor('Waiting for your approval');
    expect(waiting).toContain('Allow Bash?');
    expect(waiting).not.toMatch(/Running… \d+s/);
    t.write(ESC);
    await t.waitFor('Interrupted');
    await idle(t);
    expect(server.messageRequests).toHaveLength(1);
    expect(existsSync(path.join(work, 'refused.txt'))).toBe(false);
    expect(existsSync(path.join(work, 'later.txt'))).toBe(false);

    // The next message carries the refusal as the call's one result.
    t.write('never mind\r');
    await t.waitFor(() => server!.messageRequests.length === 2);
    const results = server.messageRequests[1]!.body.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type: string }) => b.type === 'tool_result');
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0].content)).toContain('stopped the turn');
  }, 120_000);

  it('Shift+Tab does not reach bypassPermissions without the opt-in; with --allow-dangerously-skip-permissions it does', async () => {
    server = await startScriptedServer([text('hi')]);
    const plain = start([]);
    await idle(plain);
    // default → acceptEdits → plan → auto (a classifier is configured) → default: the cycle comes back round without
    // landing on bypass.
    for (const mode of ['accepts edits', 'plan mode', 'auto', 'asks before changes', 'accepts edits']) {
      plain.write(SHIFT_TAB);
      await plain.waitFor(`⏵ ${mode}`);
      expect(plain.screen()).not.toContain('bypasses permissions');
    }
    plain.kill();

    // As root the opt-in needs IS_SANDBOX=1 (Claude Code's rule); without it the session does not start.
    if (process.getuid?.() === 0) {
      const refused = start(['--allow-dangerously-skip-permissions']);
      // The screen is drawn as the terminal's data is parsed, which can end after the process: wait for the line.
      await refused.waitFor('cannot be used with root/sudo privileges');
      expect(await refused.exited).toBe(1);
    }
    const opted = start(['--allow-dangerously-skip-permissions'], { IS_SANDBOX: '1' });
    await idle(opted);
    for (let i = 0; i < 3; i++) opted.write(SHIFT_TAB);
    await opted.waitFor('⏵ bypasses permissions');
  }, 120_000);

  it('Ctrl+C: text in the prompt is cleared; on an empty prompt one press warns, a second leaves', async () => {
    server = await startScriptedServer([text('hi')]);
    const t = start([]);
    await idle(t);
    t.write('half a thought');
    await t.waitFor('half a thought');
    t.write('\x03');
    await t.waitFor((s) => !s.includes('half a thought'));
    t.write('\x03');
    await t.waitFor('Press Ctrl+C again to exit');
    // Still there: another key disarms it, and the session goes on.
    t.write('x');
    await t.waitFor((s) => !s.includes('Press Ctrl+C again'));
    t.write('\x03'); // clears the x
    await t.waitFor((s) => !/› x/.test(s));
    t.write('\x03');
    await t.waitFor('Press Ctrl+C again to exit');
    t.write('\x03');
    expect(await t.exited).toBe(0);
  }, 120_000);

  it('a message typed while a turn runs is queued and sent when it ends; Esc takes a queued message back to the prompt', async () => {
    const go1 = path.join(dir, 'go1');
    server = await startScriptedServer([
      { content: [{ type: 'text', text: 'Working on it' }, { type: 'wait', until: () => existsSync(go1), timeoutMs: 60_000 }, { type: 'text', text: ' — done.' }] },
      (request) => ({ content: [{ type: 'text', text: `Got: ${JSON.stringify(request.body.messages.at(-1).content).includes('and also this') ? 'the queued one' : '?'}` }] }),
      // A turn that never ends by itself: interrupted below.
      { content: [{ type: 'text', text: 'Thinking hard' }, { type: 'wait', until: () => false, timeoutMs: 60_000 }] },
      text('unreachable'),
    ]);
    const t = start([]);
    await idle(t);
    t.write('first\r');
    await t.waitFor('Working on it');
    t.write('and also this\r');
    await t.waitFor('queued: and also this');
    expect(server.messageRequests).toHaveLength(1);
    writeFileSync(go1, '');
    await t.waitFor('Got: the queued one');
    expect(lastUserText(1)).toContain('and also this');

    await idle(t);
    t.write('next\r');
    await t.waitFor('Thinking hard');
    t.write('change of plan\r');
    await t.waitFor('queued: change of plan');
    t.write(ESC);
    await t.waitFor('Interrupted');
    // Back in the prompt, not sent.
    await t.waitFor((s) => /› change of plan/.test(s) && !s.includes('queued:'));
    expect(server.messageRequests).toHaveLength(3);
  }, 120_000);

  it('`toolgate "PROMPT"` on a terminal opens the session with the prompt sent', async () => {
    server = await startScriptedServer([text('Hello from the first turn.')]);
    const t = start(['say hello']);
    await t.waitFor('Hello from the first turn.');
    expect(lastUserText(0)).toContain('say hello');
    await idle(t);
  }, 120_000);
});
