/**
 * Custom commands and skills in the interactive session (plain mode, no terminal): listed by /help and /skills, run
 * by typing `/name args` — the real loop against the scripted server, the command's text as the turn's prompt.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
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

function put(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe('custom commands in the session', () => {
  it('/help and /skills list them; /name args runs one as the turn\'s prompt; an unknown one is refused', { timeout: 60_000 }, async () => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-commands-')));
    const work = path.join(dir, 'work');
    put(path.join(work, '.claude', 'commands', 'greet.md'), '---\ndescription: Greet someone\nargument-hint: [name]\n---\nGreet $ARGUMENTS warmly.\n');
    put(path.join(work, '.claude', 'skills', 'poem', 'SKILL.md'), '---\ndescription: Write a poem\ndisable-model-invocation: true\n---\nRhyme.\n');
    server = await startScriptedServer([{ content: [{ type: 'text', text: 'Hello, Ada!' }] }]);
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += String(d)));
    const code = await startInteractiveSession({
      tty: false,
      stdin: Readable.from(['/help\n', '/skills\n', '/nope\n', '/greet Ada\n']) as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      session: {
        cwd: work,
        model: 'claude-sonnet-4-6',
        env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
        settingSources: ['project', 'user'],
        sessionsDir: path.join(dir, 'sessions'),
      },
    });
    expect(code).toBe(0);
    expect(out).toMatch(/\/skills +the skills and custom commands of this session/);
    expect(out).toContain('Custom commands:\n  /greet [name]  (project) — Greet someone');
    expect(out).toContain('Skills:\n  /poem  (project, user only) — Write a poem');
    expect(out).toContain('Unknown command /nope.');
    expect(out).toContain('Hello, Ada!');
    const prompt = JSON.stringify(server.messageRequests[0]!.body.messages[0].content);
    expect(prompt).toContain('<command-name>/greet</command-name>');
    expect(prompt).toContain('Greet Ada warmly.');
    expect(server.messageRequests).toHaveLength(1);
  });
});
