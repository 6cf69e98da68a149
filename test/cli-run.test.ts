/**
 * `toolgate run` end to end: the real CLI process, the real SDK inside it, the scripted server playing the model,
 * real tools on a temp folder. HOME and XDG_STATE_HOME point into the temp folder so no real file is read or written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { toolgate } from './helpers/cli.js';

let dir: string;
let server: ScriptedServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-run-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state') };
  return { ...base, ...extra };
}

describe('toolgate run', { timeout: 120_000 }, () => {
  it('without a key: one line saying what to set, exit 1, no request', async () => {
    const { code, stderr, stdout } = await toolgate(['run', '-p', 'hello'], { env: env() });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/set ANTHROPIC_API_KEY/);
  });

  it('stream-json: init line, each assistant and user message, a result line; real Bash; then --continue picks the session up', async () => {
    const work = path.join(dir, 'work');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(work);
    writeFileSync(path.join(work, 'notes.txt'), 'remember the milk\n');
    server = await startScriptedServer([
      { content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', name: 'Bash', input: { command: 'cat notes.txt' } }, { type: 'tool_use', name: 'Bash', input: { command: 'rm notes.txt' } }], usage: { input_tokens: 100, output_tokens: 20 } },
      { content: [{ type: 'text', text: 'It says to remember the milk.' }], usage: { input_tokens: 200, output_tokens: 10 } },
      (request) => ({ content: [{ type: 'text', text: `I still have ${request.body.messages.length} messages.` }] }),
    ]);
    const keyEnv = env({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url });
    const first = await toolgate(
      ['run', '-p', 'what do my notes say?', '--output-format', 'stream-json', '--cwd', work, '--allowedTools', 'Bash(cat:*)', '--model', 'claude-haiku-4-5'],
      { env: keyEnv },
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // claude's stream-json (the Agent SDK's messages): one assistant line per content block, one user line per result.
    const lines = first.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type !== 'tool_progress');
    const kinds = lines.map((l) => `${l.type}${l.subtype ? `/${l.subtype}` : ''}`);
    expect(kinds.slice(0, 4)).toEqual(['system/init', 'assistant', 'assistant', 'assistant']);
    expect(kinds.slice(4, 7).sort()).toEqual(['system/permission_denied', 'user', 'user']);
    expect(kinds.slice(7)).toEqual(['assistant', 'result/success']);
    expect(lines[0]).toMatchObject({ subtype: 'init', cwd: work, model: 'claude-haiku-4-5' });
    expect(lines[0].tools).toEqual(expect.arrayContaining(['Bash', 'Read', 'Edit']));
    const results = lines.filter((l) => l.type === 'user').map((l) => l.message.content[0]);
    expect(results.map((r) => r.type)).toEqual(['tool_result', 'tool_result']);
    const cat = results.find((r) => !r.is_error);
    const rm = results.find((r) => r.is_error === true);
    expect(cat.content).toContain('remember the milk');
    // Headless: the rm would need a person; it is denied with the rule that would allow it, and nothing was removed.
    expect(JSON.stringify(rm.content)).toContain('Bash(rm');
    expect(readFileSync(path.join(work, 'notes.txt'), 'utf8')).toContain('milk');
    const result = lines.at(-1);
    // num_turns as claude counts it: the prompt and each tool result.
    expect(result).toMatchObject({ subtype: 'success', is_error: false, num_turns: 3, stop_reason: 'end_turn', result: 'It says to remember the milk.', usage: { input_tokens: 300, output_tokens: 30 } });
    expect(result.permission_denials).toEqual([expect.objectContaining({ tool_name: 'Bash', tool_input: expect.objectContaining({ command: 'rm notes.txt' }) })]);
    expect(result.total_cost_usd).toBeCloseTo((300 * 1 + 30 * 5) / 1e6, 12);
    expect(typeof result.duration_ms).toBe('number');
    for (const line of lines) expect(line.session_id).toBe(lines[0].session_id);
    const sessionId = lines[0].session_id;

    const again = await toolgate(['run', '-p', '--continue', '--output-format', 'json', '--cwd', work], { env: keyEnv, input: 'and now?' });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ type: 'result', session_id: sessionId, result: 'I still have 5 messages.' });
    const sent = server.messageRequests[2]!.body.messages;
    expect(sent.at(-1).content.at(-1).text).toBe('and now?');
    // The first prompt of the continued session leads the conversation (it may carry the deferred-tools reminder beside it).
    const opening = sent[0].content as string | { text?: string }[];
    const firstText = typeof opening === 'string' ? opening : opening.map((b) => b.text ?? '').join('\n');
    expect(firstText).toContain('what do my notes say?');
  });
});
