import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScript, startScriptedServer, type ScriptedServer, type WireEvent } from './index.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function clientFor(s: ScriptedServer, maxRetries = 0): Anthropic {
  return new Anthropic({ apiKey: 'sk-test', baseURL: s.url, maxRetries });
}

const ask = { model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };

describe('scripted server', () => {
  it('keeps no request when told not to (a benchmark measuring its client), and still counts them', async () => {
    const seen: unknown[] = [];
    server = await startScriptedServer(
      [
        (request) => (seen.push(request.body), { content: [{ type: 'text', text: 'one' }] }),
        { content: [{ type: 'text', text: 'two' }] },
      ],
      { keepRequests: false },
    );
    const client = clientFor(server);
    await client.messages.create(ask);
    await client.messages.create(ask);
    await server.waitForRequests(2);
    expect(server.requests).toHaveLength(0);
    expect(server.messageRequests).toHaveLength(0);
    expect(server.turnsServed).toBe(2);
    expect(seen).toEqual([expect.objectContaining({ model: 'claude-sonnet-4-6' })]);
  });

  it('streams text, thinking and tool_use the way the SDK accumulates them, and records the request', async () => {
    const events: WireEvent[] = [];
    server = await startScriptedServer(
      [
        {
          content: [
            { type: 'thinking', thinking: 'Let me look.', signature: 'sig' },
            { type: 'text', text: 'Reading the file now.', chunks: 4 },
            { type: 'tool_use', name: 'Read', input: { file_path: '/tmp/x' }, chunks: 5 },
          ],
          usage: { input_tokens: 42, output_tokens: 7 },
        },
      ],
      { onEvent: (e) => events.push(e) },
    );
    const message = await clientFor(server).messages.stream({ ...ask, stream: true }).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.input_tokens).toBe(42);
    expect(message.usage.output_tokens).toBe(7);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Let me look.', signature: 'sig' },
      { type: 'text', text: 'Reading the file now.', citations: null },
      { type: 'tool_use', id: 'toolu_0_0_0', name: 'Read', input: { file_path: '/tmp/x' }, caller: undefined },
    ].map((b) => expect.objectContaining(Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined && v !== null)))));
    const deltas = events.filter((e) => e.type === 'content_block_delta').map((e) => (e.data.delta as { type: string }).type);
    expect(deltas.filter((t) => t === 'text_delta')).toHaveLength(4);
    expect(deltas.filter((t) => t === 'input_json_delta')).toHaveLength(5);
    expect(events.map((e) => e.type).at(0)).toBe('message_start');
    expect(events.map((e) => e.type).slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(server.messageRequests).toHaveLength(1);
    expect(server.messageRequests[0]!.body.messages).toEqual(ask.messages);
    expect(JSON.stringify(server.messageRequests[0]!.headers)).toContain('sk-test');
  });

  it('answers non-streaming requests with the whole message and any stop reason', async () => {
    server = await startScriptedServer([{ content: [{ type: 'text', text: 'cut' }], stopReason: 'max_tokens' }]);
    const message = await clientFor(server).messages.create(ask);
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.content).toEqual([{ type: 'text', text: 'cut' }]);
  });

  it('fails the first attempts with 529 and 429 (retry-after), then serves the turn', async () => {
    server = await startScriptedServer([
      { errors: [{ status: 529 }, { status: 429, retryAfter: 0 }], content: [{ type: 'text', text: 'ok' }] },
    ]);
    const client = clientFor(server);
    const first = await client.messages.create(ask).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Anthropic.APIError);
    expect((first as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect(JSON.stringify((first as InstanceType<typeof Anthropic.APIError>).error)).toContain('overloaded_error');
    const second = await client.messages.create(ask).catch((e: unknown) => e);
    expect((second as InstanceType<typeof Anthropic.APIError>).status).toBe(429);
    expect((second as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after')).toBe('0');
    const third = await client.messages.create(ask);
    expect(third.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(server.messageRequests.map((r) => [r.turn, r.attempt])).toEqual([[0, 0], [0, 1], [0, 2]]);
    // The SDK's own retries see the same script.
    await server.close();
    server = await startScriptedServer([{ errors: [{ status: 500 }], content: [{ type: 'text', text: 'again' }] }]);
    expect((await clientFor(server, 2).messages.create(ask)).content).toEqual([{ type: 'text', text: 'again' }]);
  });

  it('cuts the connection mid-stream, sends error events, and delivers invalid tool JSON verbatim', async () => {
    server = await startScriptedServer([
      {
        errors: [{ drop: true, afterBlocks: 1 }, { streamError: 'overloaded_error', afterBlocks: 1 }],
        content: [
          { type: 'text', text: 'first' },
          { type: 'tool_use', name: 'Bash', rawInput: '{"command": "ls', id: 'toolu_bad' },
        ],
      },
    ]);
    const client = clientFor(server);
    const texts: string[] = [];
    const dropped = await (async () => {
      const stream = await client.messages.create({ ...ask, stream: true });
      for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') texts.push(event.delta.text);
    })().catch((e: unknown) => e);
    expect(dropped).toBeInstanceOf(Error);
    expect(texts.join('')).toBe('first');
    const errored = await client.messages.stream({ ...ask, stream: true }).finalMessage().catch((e: unknown) => e);
    expect(String(errored)).toContain('overloaded_error');
    const partial: string[] = [];
    const stream = await client.messages.create({ ...ask, stream: true });
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') partial.push(event.delta.partial_json);
    expect(partial.join('')).toBe('{"command": "ls');
  });

  it('computes a turn from the request, holds a stream until a condition holds, and says when the script is over', async () => {
    let released = false;
    server = await startScriptedServer([
      (request) => ({ content: [{ type: 'text', text: `you said ${request.body.messages[0].content}` }] }),
      { content: [{ type: 'text', text: 'a' }, { type: 'wait', until: () => released }, { type: 'text', text: 'b' }] },
    ]);
    const client = clientFor(server);
    expect((await client.messages.create(ask)).content).toEqual([{ type: 'text', text: 'you said hi' }]);
    const seen: string[] = [];
    const stream = await client.messages.create({ ...ask, stream: true });
    for await (const event of stream) {
      if (event.type === 'content_block_stop') {
        seen.push(`stop ${event.index}`);
        if (event.index === 0) released = true; // the server may go on only after the client saw block 0 end
      }
    }
    expect(seen).toEqual(['stop 0', 'stop 1']);
    const over = await client.messages.create(ask).catch((e: unknown) => e);
    expect(String(over)).toContain('no turn left');
  });

  it('loads a script from a JSON file and rejects malformed ones with the place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-script-'));
    writeFileSync(join(dir, 'ok.json'), JSON.stringify({ turns: [{ content: [{ type: 'text', text: 'from file' }] }] }));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ content: [{ type: 'video' }] }]));
    server = await startScriptedServer(loadScript(join(dir, 'ok.json')));
    expect((await clientFor(server).messages.create(ask)).content).toEqual([{ type: 'text', text: 'from file' }]);
    expect(() => loadScript(join(dir, 'bad.json'))).toThrow(/turns\[0\]\.content\[0\] has unknown type "video"/);
    expect(() => loadScript(join(dir, 'missing.json'))).toThrow(/cannot read script/);
  });
});
