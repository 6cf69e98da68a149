/**
 * Namespaced custom commands as Claude Code expands them (commands.json, recorded by record.ts from the real
 * `claude -p "/ns:hello world"` …): the same prompt through a toolgate session gives the model the same blocks —
 * the command's `<command-message>`/`<command-name>`/`<command-args>` tags and its expanded text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { query } from '../../../src/agent-sdk/index.js';
import { startScriptedServer } from '../../../src/testing/index.js';
import { COMMAND_PROMPTS, COMMANDS_RECORDING, commandBlocks, makeCommandProject } from './commands.scenarios.js';

const recording = JSON.parse(fs.readFileSync(COMMANDS_RECORDING, 'utf8')) as { claudeCode: string; prompts: Record<string, string[]> };

async function toolgateBlocks(prompt: string): Promise<string[]> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
  const [dir, home] = ['proj', 'home'].map((d) => path.join(tmp, d)) as [string, string];
  fs.mkdirSync(home);
  makeCommandProject(dir);
  const server = await startScriptedServer([{ content: [{ type: 'text', text: 'done' }] }]);
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key' };
    for await (const _ of query({ prompt, options: { cwd: dir, env, model: 'claude-sonnet-4-5', settingSources: ['project'] } })) void _;
    return commandBlocks(server.requests[0]!.body as Parameters<typeof commandBlocks>[0], dir);
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

describe(`namespaced commands as Claude Code ${recording.claudeCode} expands them`, () => {
  it.each(COMMAND_PROMPTS.map((p) => [p]))('%s', async (prompt) => {
    const theirs = recording.prompts[prompt];
    expect(theirs, `${prompt} is recorded (npx tsx test/parity/cli/record.ts commands)`).toBeDefined();
    expect(await toolgateBlocks(prompt)).toEqual(theirs);
  }, 60_000);
});
