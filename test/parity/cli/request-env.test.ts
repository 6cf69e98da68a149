/**
 * Claude Code's request-shaping environment variables (request-env.json, recorded by record.ts from the real
 * `claude -p` with each case's variables set): a session with the same variables in its environment sends the same
 * `max_tokens`, thinking and number of prompt-cache breakpoints, for the values each case compares.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { query } from '../../../src/agent-sdk/index.js';
import { startScriptedServer, type RecordedRequest } from '../../../src/testing/index.js';
import { REQUEST_ENV_CASES, REQUEST_ENV_RECORDING, requestShape, type RequestEnvCase, type RequestShape } from './request-env.scenarios.js';
import { STREAM_JSON_CALLS } from './stream-json.shape.js';

const recording = JSON.parse(fs.readFileSync(REQUEST_ENV_RECORDING, 'utf8')) as { claudeCode: string; cases: Record<string, RequestShape> };

async function toolgateRequest(c: RequestEnvCase): Promise<RequestShape> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
  const [dir, home] = ['proj', 'home'].map((d) => path.join(tmp, d)) as [string, string];
  for (const d of [dir, home]) fs.mkdirSync(d);
  const turn = (request: RecordedRequest) => {
    const done = (request.body as { messages: { role: string }[] }).messages.some((m) => m.role === 'assistant');
    return done ? { content: [{ type: 'text' as const, text: 'done' }] } : { content: [{ type: 'tool_use' as const, id: 'toolu_call_0', ...STREAM_JSON_CALLS[0]! }] };
  };
  const server = await startScriptedServer([turn, turn]);
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key', ...c.env };
    for await (const _ of query({ prompt: 'run the calls', options: { cwd: dir, env, model: c.model, settingSources: [], allowedTools: ['Bash'] } })) void _;
    return requestShape(server.requests[0]!.body as Parameters<typeof requestShape>[0]);
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

describe(`request-shaping environment variables as Claude Code ${recording.claudeCode} honours them`, () => {
  it.each(REQUEST_ENV_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const theirs = recording.cases[c.name];
    expect(theirs, `${c.name} is recorded (npx tsx test/parity/cli/record.ts request-env)`).toBeDefined();
    const ours = await toolgateRequest(c);
    const pick = (s: RequestShape) => Object.fromEntries(c.compare.map((k) => [k, s[k]]));
    expect(pick(ours)).toEqual(pick(theirs!));
  }, 60_000);
});
