/**
 * Plugins in the terminal session (pty + xterm, the scripted server as the model): `--plugin-dir` loads the plugin,
 * `/plugin` lists it with what it added (command, skill, agent, MCP server), and its command runs as typed.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { spawnToolgate, type PtyScreen } from './helpers/pty-screen.js';

const KIT = realpathSync(path.join(import.meta.dirname, 'fixtures', 'plugins', 'toolgate-kit'));

let dir: string;
let server: ScriptedServer | undefined;
let term: PtyScreen | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-plugins-')));
  mkdirSync(path.join(dir, 'work'));
  mkdirSync(path.join(dir, 'home'));
});
afterEach(async () => {
  if (term) {
    term.kill();
    await term.exited;
  }
  term = undefined;
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('plugins in the terminal session', () => {
  it('/plugin lists the plugin and its parts; /toolgate-kit:greet runs', async () => {
    server = await startScriptedServer([{ content: [{ type: 'text', text: 'Hello there, Ada.' }] }]);
    term = spawnToolgate(['--cwd', path.join(dir, 'work'), '--plugin-dir', KIT], {
      rows: 60,
      env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
    });
    await term.waitFor('Ask for something');
    term.write('/plugin\r');
    const screen = await term.waitFor('MCP server plugin:toolgate-kit:echo');
    expect(screen).toContain(`toolgate-kit  (${KIT})`);
    expect(screen).toContain('command /toolgate-kit:greet');
    expect(screen).toContain('skill /toolgate-kit:tidy-notes');
    expect(screen).toContain('agent toolgate-kit:reviewer');
    term.write('/toolgate-kit:greet Ada\r');
    await term.waitFor('Hello there, Ada.');
    expect(JSON.stringify(server.messageRequests[0]!.body.messages)).toContain('Greet Ada warmly.');
  }, 120_000);
});
