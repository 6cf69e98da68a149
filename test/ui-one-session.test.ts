/**
 * The terminal session is one session (src/session/) made from the same flags as `-p`, in a real terminal (pty +
 * xterm), the model played by the scripted server: --max-turns, --allowedTools, --append-system-prompt, --mcp-config
 * and --agents hold there as they hold with -p; and SessionStart/SessionEnd fire once for a conversation of three
 * prompts, not once per prompt. Screens are polled; nothing is timed.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER } from '../src/mcp/test-helpers/servers.js';
import { startScriptedServer, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { spawnToolgate, type PtyScreen } from './helpers/pty-screen.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
const terms: PtyScreen[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-one-')));
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

const tool = (name: string, input: Record<string, unknown>): ScriptedResponse => ({ content: [{ type: 'tool_use', name, input }] });
const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });

function start(args: readonly string[]): PtyScreen {
  const t = spawnToolgate(['--cwd', work, ...args], {
    env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server!.url },
  });
  terms.push(t);
  return t;
}

/** The turn is over: the prompt's idle placeholder is back. */
const idle = (t: PtyScreen) => t.waitFor('Ask for something');

function systemText(i: number): string {
  const system = server!.messageRequests[i]!.body.system;
  return typeof system === 'string' ? system : (system as { text: string }[]).map((b) => b.text).join('\n');
}

describe('the terminal session takes the flags -p takes', () => {
  it('--max-turns, --allowedTools, --append-system-prompt, --mcp-config and --agents hold in the terminal', async () => {
    server = await startScriptedServer([tool('Bash', { command: 'echo one' }), tool('Bash', { command: 'echo two' }), text('never asked')]);
    const mcp = JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } });
    const agents = JSON.stringify({ reviewer: { description: 'Reviews the diff', prompt: 'You review.' } });
    const t = start(['--max-turns', '2', '--allowedTools', 'Bash(echo:*)', '--append-system-prompt', 'Speak like a lighthouse keeper.', '--mcp-config', mcp, '--agents', agents]);
    await idle(t);
    t.write('echo twice\r');
    // The second model turn is the last one: the turn stops there, and the third answer is never asked for.
    await t.waitFor(/Stopped: max_turns/);
    await idle(t);
    expect(server.messageRequests).toHaveLength(2);
    // --allowedTools: both commands ran without a prompt.
    expect(t.transcript()).not.toContain('Allow Bash?');
    expect(t.transcript()).toContain('one');
    expect(systemText(0)).toMatch(/Speak like a lighthouse keeper\.$/);
    const tools = server.messageRequests[0]!.body.tools as { name: string; description?: string }[];
    // --mcp-config: the fixture server's always-loaded tool is offered; --agents: the Agent tool offers the agent.
    expect(tools.map((d) => d.name)).toContain('mcp__fx__plain');
    expect(JSON.stringify(tools.find((d) => d.name === 'Agent'))).toContain('reviewer: Reviews the diff');
  }, 180_000);

  it('SessionStart and SessionEnd fire once for a conversation of three prompts', async () => {
    server = await startScriptedServer([text('first answer'), text('second answer'), text('third answer')]);
    const log = path.join(dir, 'hooks.log');
    appendFileSync(log, '');
    const hook = (word: string) => [{ hooks: [{ type: 'command', command: `echo ${word} >> '${log}'` }] }];
    const settings = JSON.stringify({ hooks: { SessionStart: hook('start'), UserPromptSubmit: hook('prompt'), SessionEnd: hook('end') } });
    const t = start(['--settings', settings]);
    await idle(t);
    for (const [i, answer] of ['first answer', 'second answer', 'third answer'].entries()) {
      t.write(`prompt ${i + 1}\r`);
      await t.waitFor(answer);
      await idle(t);
    }
    t.write('\x04'); // Ctrl+D on an empty prompt: leave
    expect(await t.exited).toBe(0);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['start', 'prompt', 'prompt', 'prompt', 'end']);
    // One conversation: each request carries the ones before it.
    expect(server.messageRequests.map((r) => (r.body.messages as unknown[]).length)).toEqual([1, 3, 5]);
  }, 180_000);
});
