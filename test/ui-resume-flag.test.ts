/**
 * `toolgate --resume` without an id on a terminal opens the session on its picker of this folder's sessions, as
 * `claude --resume` does (headless, `-p --resume` takes the newest: test/cli-flags.test.ts). A real terminal (pty).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { toolgate } from './helpers/cli.js';
import { spawnToolgate, type PtyScreen } from './helpers/pty-screen.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
const terms: PtyScreen[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-resume-flag-')));
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

describe('--resume without an id on a terminal', () => {
  it('opens the picker; the picked session goes on', async () => {
    server = await startScriptedServer([text('Noted the number.'), text('It was 7.')]);
    const env = { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url };
    expect((await toolgate(['-p', 'remember the number 7', '--cwd', work], { env })).code).toBe(0);
    const t = spawnToolgate(['--cwd', work, '--resume'], { rows: 40, env });
    terms.push(t);
    await t.waitFor('Resume which session?');
    t.write('1');
    await t.waitFor('Resumed session');
    await t.waitFor('Ask for something');
    t.write('which number?\r');
    await t.waitFor('It was 7.');
    expect(JSON.stringify(server.messageRequests[1]!.body.messages)).toContain('remember the number 7');
  }, 120_000);
});
