/**
 * The session's slash commands in a real terminal (pty + xterm), the model played by the scripted server: the `/` menu
 * (filtered as typed, custom commands in it, Tab completes), /cost, /context, /permissions add and remove (through the
 * grant writer), /agents, /compact (a PreCompact hook, a summary request, the session going on from the summary),
 * /clear (a new transcript), /resume (a picker of this folder's sessions), and `--continue` redrawing tool calls.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-slash-')));
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

const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });
const TAB = '\t';

function start(args: readonly string[]): PtyScreen {
  const t = spawnToolgate(['--cwd', work, ...args], {
    rows: 60,
    env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server!.url },
  });
  terms.push(t);
  return t;
}
const idle = (t: PtyScreen) => t.waitFor('Ask for something');
const sessionsDir = () => path.join(dir, 'state', 'toolgate', 'sessions');
const requestText = (i: number) => JSON.stringify(server!.messageRequests[i]!.body.messages);

describe('slash commands in the terminal', () => {
  it('the / menu, /cost, /context, /permissions add|remove, /agents, /compact with PreCompact, /clear, /resume', async () => {
    mkdirSync(path.join(work, '.claude', 'commands'), { recursive: true });
    writeFileSync(path.join(work, '.claude', 'commands', 'greet.md'), '---\ndescription: Greet someone warmly\n---\nGreet $ARGUMENTS.\n');
    writeFileSync(path.join(work, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreCompact: [{ matcher: 'manual', hooks: [{ type: 'command', command: 'cat > precompact.json' }] }] } }));
    writeFileSync(path.join(work, 'notes.txt'), 'alpha\n');
    server = await startScriptedServer([
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(work, 'notes.txt') } }], usage: { input_tokens: 1200, output_tokens: 30 } },
      { ...text('Read it.'), usage: { input_tokens: 1500, output_tokens: 10 } },
      text('SUMMARY: the user had notes.txt read.'),
      text('You had your notes read.'),
      text('Fresh start.'),
      text('Back again.'),
    ]);
    const t = start([]);
    await idle(t);

    // The menu: every command when / is typed; typing filters; custom commands are in it; Tab completes.
    t.write('/');
    const menu = await t.waitFor('/compact');
    for (const name of ['/help', '/clear', '/resume', '/cost', '/context']) expect(menu).toContain(name);
    expect(menu).toMatch(/… \d+ more/);
    t.write('gr');
    await t.waitFor((s) => s.includes('Greet someone warmly') && !s.includes('/compact'));
    t.write(TAB);
    await t.waitFor('› /greet ');
    t.write('\x03'); // clears the prompt
    await t.waitFor((s) => !s.includes('› /greet'));

    t.write('read my notes\r');
    await t.waitFor('Read it.');
    await idle(t);

    t.write('/cost\r');
    await t.waitFor(/Total cost: +\$0\.\d{4}/);
    t.write('/context\r');
    const context = await t.waitFor('The last request took');
    expect(context).toMatch(/System prompt +≈ [\d.]+k? tokens/);
    expect(context).toMatch(/tool results +≈/);

    // Rules added and removed through the grant writer, in effect at once.
    const local = path.join(work, '.claude', 'settings.local.json');
    t.write('/permissions add deny Bash(npm publish)\r');
    await t.waitFor('Added deny rule Bash(npm publish)');
    expect(JSON.parse(readFileSync(local, 'utf8')).permissions.deny).toEqual(['Bash(npm publish)']);
    t.write('/permissions\r');
    await t.waitFor(/Bash\(npm publish\) +\(localSettings/);
    t.write('/permissions remove Bash(npm publish)\r');
    await t.waitFor('Removed Bash(npm publish): deny from');
    expect(JSON.parse(readFileSync(local, 'utf8')).permissions.deny).toEqual([]);

    t.write('/agents\r');
    await t.waitFor('general-purpose');

    // /compact: the hook runs, the model summarises, the next turn starts from the summary.
    t.write('/compact keep the file name\r');
    await t.waitFor('Conversation compacted');
    expect(JSON.parse(readFileSync(path.join(work, 'precompact.json'), 'utf8'))).toMatchObject({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'keep the file name' });
    expect(requestText(2)).toContain('keep the file name');
    await idle(t);
    t.write('what did I do?\r');
    await t.waitFor('You had your notes read.');
    const afterCompact = server.messageRequests[3]!.body.messages;
    expect(JSON.stringify(afterCompact[0])).toContain('SUMMARY: the user had notes.txt read.');
    expect(JSON.stringify(afterCompact)).not.toContain('read my notes');
    await idle(t);

    // /clear: a new session, its own transcript; the model gets only the new message.
    const before = readdirSync(sessionsDir());
    t.write('/clear\r');
    const cleared = await t.waitFor('Conversation cleared');
    // The screen is cleared too: nothing of the old conversation is left on it.
    expect(cleared).not.toContain('You had your notes read.');
    t.write('fresh\r');
    await t.waitFor('Fresh start.');
    expect(server.messageRequests[4]!.body.messages).toHaveLength(1);
    const after = readdirSync(sessionsDir());
    expect(after.length).toBe(before.length + 1);
    await idle(t);

    // /resume: a picker of this folder's sessions; picking the first goes on with it (from its summary).
    t.write('/resume\r');
    await t.waitFor('Resume which session?');
    t.write('1');
    await t.waitFor('Resumed session');
    await idle(t);
    t.write('and now?\r');
    await t.waitFor('Back again.');
    expect(requestText(5)).toContain('SUMMARY: the user had notes.txt read.');
    expect(requestText(5)).toContain('what did I do?');
  }, 180_000);

  it('--continue redraws the tool calls of the conversation, with their results', async () => {
    writeFileSync(path.join(work, 'notes.txt'), 'alpha\nbeta\n');
    server = await startScriptedServer([
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo from-the-first-session' } }] },
      text('Ran it.'),
      text('Still here.'),
    ]);
    const first = spawnToolgate(['--cwd', work, '--allowedTools', 'Bash(echo:*)'], {
      env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
    });
    terms.push(first);
    await idle(first);
    first.write('run the echo\r');
    await first.waitFor('Ran it.');
    await idle(first);
    first.write('\x04');
    expect(await first.exited).toBe(0);

    const again = start(['--continue']);
    const screen = await again.waitFor('Continuing session');
    expect(screen).toContain('run the echo');
    // The call is drawn as a call (name and command), with its output — not only the words around it.
    expect(screen).toMatch(/Bash\(echo from-the-first-session\)/);
    expect(screen).toMatch(/⎿ +from-the-first-session/);
    expect(screen).toContain('Ran it.');
    expect(existsSync(path.join(work, 'notes.txt'))).toBe(true);
  }, 120_000);
});
