/**
 * `/rewind N both` in the interactive session (plain mode, no terminal; the pickers are the same command without its
 * arguments): the real loop against the scripted server, real Bash changing real files; the rewind puts the files back
 * as they were before that message and cuts the conversation back, the message's text back in the prompt.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../testing/index.js';
import { startInteractiveSession } from './start-session.js';

let dir: string | undefined;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const bash = (command: string) => ({ content: [{ type: 'tool_use' as const, id: `toolu_${Math.random().toString(36).slice(2)}`, name: 'Bash', input: { command, description: 'change' } }] });
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

describe('/rewind in the session', () => {
  it('puts the files back and cuts the conversation to before message 2; its text comes back', { timeout: 120_000 }, async () => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-rewind-')));
    const work = path.join(dir, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(path.join(work, 'notes.md'), 'original\n');
    server = await startScriptedServer([bash('echo first > notes.md'), text('one done'), bash('echo second > notes.md && echo x > made.txt'), text('two done'), text('after rewind')]);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    const waitFor = async (needle: string) => {
      for (let i = 0; i < 600 && !out.includes(needle); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(needle);
    };
    stdout.on('data', (d) => (out += String(d)));
    const done = startInteractiveSession({
      tty: false,
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      session: {
        cwd: work,
        model: 'claude-sonnet-4-6',
        env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
        settingSources: [],
        sessionsDir: path.join(dir, 'sessions'),
        checkpoints: true,
        allowedTools: ['Bash'],
        mode: 'acceptEdits',
      },
    });
    stdin.write('make it first\n');
    await waitFor('one done');
    stdin.write('now make it second\n');
    await waitFor('two done');
    expect(readFileSync(path.join(work, 'notes.md'), 'utf8')).toBe('second\n');
    stdin.write('/rewind 2 both\n');
    await waitFor('your message is back in the prompt');
    stdin.write('instead this\n');
    await waitFor('after rewind');
    stdin.end();
    expect(await done).toBe(0);
    expect(readFileSync(path.join(work, 'notes.md'), 'utf8')).toBe('first\n');
    expect(() => readFileSync(path.join(work, 'made.txt'))).toThrow();
    expect(out).toMatch(/Files: 1 added since \(removed\), 1 changed \(written back\), 0 deleted/);
    expect(out).toContain('your message is back in the prompt: now make it second');
    // The next request goes on from before message 2: turn 1 and the new message, nothing of turn 2.
    const last = JSON.stringify(server.messageRequests.at(-1)!.body.messages);
    expect(last).toContain('make it first');
    expect(last).toContain('instead this');
    expect(last).not.toContain('now make it second');
  });
});
