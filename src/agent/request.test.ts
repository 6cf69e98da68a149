/**
 * The loop's request options through `query()` (the real SDK against the scripted server): `tool_choice`, extended
 * thinking across a tool call, and betas — sent as the `anthropic-beta` header by the SDK's beta endpoint, and
 * deciding whether tools send their `input_examples`.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer, type ScriptedTurn } from '../testing/index.js';
import { INPUT_EXAMPLES_BETA } from '../tool/api-format.js';
import { buildTool } from '../tool/build-tool.js';
import { createToolRuntime } from './create-tool-runtime.js';
import { query } from './query.js';
import type { QueryResult, ToolRuntime, ToolRuntimeOptions } from './types.js';
import type { QueryOptions } from './query-options.js';

let dir: string;
let server: ScriptedServer | undefined;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-request-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function setup(turns: readonly ScriptedTurn[], options: ToolRuntimeOptions = {}) {
  server = await startScriptedServer(turns);
  const runtime = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, 'session'), settings: { sources: [] }, ...options });
  runtimes.push(runtime);
  return { runtime, client: new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 }) };
}

async function run(options: QueryOptions): Promise<QueryResult> {
  let result: QueryResult | undefined;
  for await (const event of query(options)) if (event.type === 'result') result = event.result;
  return result!;
}

const bodies = () => server!.messageRequests.map((r) => r.body);

const lookup = buildTool({
  name: 'lookup',
  inputSchema: z.object({ key: z.string().describe('What to look up') }),
  inputExamples: [{ key: 'colour' }],
  maxResultSizeChars: 10_000,
  prompt: async () => 'Looks a key up.',
  isReadOnly: () => true,
  call: async (input) => ({ data: `value of ${input.key}` }),
});

describe('tool_choice', () => {
  it('a named tool is forced on the first turn only; later turns are auto (with disable_parallel_tool_use kept)', async () => {
    const { runtime, client } = await setup(
      [{ content: [{ type: 'tool_use', name: 'lookup', input: { key: 'a' } }] }, { content: [{ type: 'text', text: 'done' }] }],
      { tools: [lookup] },
    );
    const result = await run({ runtime, client, prompt: 'go', toolChoice: { type: 'tool', name: 'lookup', disable_parallel_tool_use: true } });
    expect(result.stopReason).toBe('end_turn');
    const [first, second] = bodies();
    expect(first.tool_choice).toEqual({ type: 'tool', name: 'lookup', disable_parallel_tool_use: true });
    expect(second.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
  });

  it('auto and none hold for every turn; no choice sends none', async () => {
    const { runtime, client } = await setup(
      [
        { content: [{ type: 'tool_use', name: 'lookup', input: { key: 'a' } }] },
        { content: [{ type: 'text', text: 'one' }] },
        { content: [{ type: 'text', text: 'two' }] },
      ],
      { tools: [lookup] },
    );
    await run({ runtime, client, prompt: 'go', toolChoice: { type: 'none' } });
    await run({ runtime, client, prompt: 'again' });
    const [first, second, third] = bodies();
    expect(first.tool_choice).toEqual({ type: 'none' });
    expect(second.tool_choice).toEqual({ type: 'none' });
    expect('tool_choice' in third).toBe(false);
  });

  it('a forcing choice with thinking, or a tool that is not in the request, is an error before any request', async () => {
    const { runtime, client } = await setup([{ content: [{ type: 'text', text: 'never' }] }], { tools: [lookup] });
    const withThinking = await run({ runtime, client, prompt: 'go', toolChoice: { type: 'any' }, thinking: { type: 'enabled', budget_tokens: 2_000 } });
    expect(withThinking.stopReason).toBe('error');
    expect(withThinking.error).toMatch(/tool_choice "any" forces a tool call, which the API does not allow with extended thinking/);
    const unknown = await run({ runtime, client, prompt: 'go', toolChoice: { type: 'tool', name: 'nope' } });
    expect(unknown.error).toMatch(/tool_choice names the tool "nope", which is not among the tools of this request/);
    expect(server!.messageRequests).toHaveLength(0);
  });
});

describe('thinking', () => {
  it('is sent on every turn, and the thinking block (with its signature) goes back with the tool call it preceded', async () => {
    const { runtime, client } = await setup(
      [
        { content: [{ type: 'thinking', thinking: 'I should look it up.', signature: 'sig-1' }, { type: 'tool_use', name: 'lookup', input: { key: 'a' } }] },
        { content: [{ type: 'thinking', thinking: 'Got it.', signature: 'sig-2' }, { type: 'text', text: 'value found' }] },
      ],
      { tools: [lookup] },
    );
    const result = await run({ runtime, client, prompt: 'go', thinking: { type: 'enabled', budget_tokens: 4_000 }, maxTokens: 16_000, toolChoice: { type: 'auto' } });
    expect(result.text).toBe('value found');
    const [first, second] = bodies();
    expect(first.thinking).toEqual({ type: 'enabled', budget_tokens: 4_000 });
    expect(second.thinking).toEqual({ type: 'enabled', budget_tokens: 4_000 });
    expect(second.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'I should look it up.', signature: 'sig-1' });
    expect(second.messages[1].content[1]).toMatchObject({ type: 'tool_use', name: 'lookup' });
  });

  it('a budget the API would refuse is an error that says why, before any request', async () => {
    const { runtime, client } = await setup([{ content: [{ type: 'text', text: 'never' }] }]);
    const small = await run({ runtime, client, prompt: 'go', thinking: { type: 'enabled', budget_tokens: 500 } });
    expect(small.error).toMatch(/budget_tokens must be a whole number of at least 1024 \(got 500\)/);
    const large = await run({ runtime, client, prompt: 'go', thinking: { type: 'enabled', budget_tokens: 9_000 }, maxTokens: 8_000 });
    expect(large.error).toMatch(/budget_tokens \(9000\) must be less than maxTokens \(8000\)/);
    expect(server!.messageRequests).toHaveLength(0);
  });
});

describe('betas', () => {
  it('go out as anthropic-beta through the beta endpoint; with the input-examples beta, tools send their examples', async () => {
    const { runtime, client } = await setup(
      [{ content: [{ type: 'text', text: 'plain' }] }, { content: [{ type: 'text', text: 'beta' }] }],
      { tools: [lookup] },
    );
    await run({ runtime, client, prompt: 'go' });
    await run({ runtime, client, prompt: 'go', betas: [INPUT_EXAMPLES_BETA] });
    const [plain, beta] = server!.messageRequests;
    expect(plain!.headers['anthropic-beta']).toBeUndefined();
    expect(plain!.body.tools.find((t: { name: string }) => t.name === 'lookup').input_examples).toBeUndefined();
    expect(beta!.headers['anthropic-beta']).toBe(INPUT_EXAMPLES_BETA);
    expect(beta!.body.betas).toBeUndefined();
    expect(beta!.body.tools.find((t: { name: string }) => t.name === 'lookup').input_examples).toEqual([{ key: 'colour' }]);
    // The definitions differ only by the examples: the plain list stays memoised and byte-identical.
    expect((await runtime.definitions()).find((d) => d.name === 'lookup')!.input_examples).toBeUndefined();
  });
});

describe('messages', () => {
  it('go out as role and content only (the API refuses other fields), a resumed transcript that carries a response id included', async () => {
    const { runtime, client } = await setup(
      [
        { content: [{ type: 'tool_use', name: 'lookup', input: { key: 'a' } }] },
        { content: [{ type: 'text', text: 'done' }] },
        { content: [{ type: 'text', text: 'again' }] },
      ],
      { tools: [lookup] },
    );
    await run({ runtime, client, prompt: 'go' });
    // A transcript of an older toolgate: its assistant message was stored with the response id on it.
    const file = path.join(runtime.sessionDir, 'transcript.jsonl');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    const assistant = lines.find((l) => l.type === 'message' && l.message.role === 'assistant');
    expect(assistant.message.id).toBeUndefined();
    assistant.message.id = 'msg_old';
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    await run({ runtime, client, prompt: 'more', resume: runtime.sessionId });
    const sent = bodies().flatMap((b) => b.messages as Record<string, unknown>[]);
    expect(sent.length).toBeGreaterThan(4);
    for (const message of sent) expect(Object.keys(message).sort()).toEqual(['content', 'role']);
  });
});
