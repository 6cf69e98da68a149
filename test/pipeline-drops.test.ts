/**
 * What the pipeline used to drop or get wrong (issue 21, "What the pipeline still drops"), each checked through the
 * public API: the real Anthropic SDK against the scripted server, the real runtime, real files.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import { readTranscript, transcriptPath } from '../src/agent/transcript.js';
import type { QueryEvent, ToolRuntime } from '../src/agent/types.js';
import { startScriptedServer, type ScriptedServer, type ScriptedTurn } from '../src/testing/index.js';
import { buildTool } from '../src/tool/build-tool.js';
import type { MessageParam, ToolResultBlockParam } from '../src/tool/tool.js';
import { contextOf } from '../src/agent/runtime-context.js';

// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let dir: string;
let server: ScriptedServer | undefined;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-drops-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function setup(turns: readonly ScriptedTurn[], options: Parameters<typeof createToolRuntime>[0] = {}) {
  server = await startScriptedServer(turns);
  const runtime = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.sessions', 's1'), sessionId: 's1', ...options, settings: { sources: [], ...options.settings } });
  runtimes.push(runtime);
  return { runtime, client: new Anthropic({ apiKey: 'sk-test', baseURL: server.url }) };
}

async function run(runtime: ToolRuntime, client: Anthropic, prompt: string): Promise<QueryEvent[]> {
  const events: QueryEvent[] = [];
  for await (const e of query({ runtime, client, prompt, model: 'claude-sonnet-4-6' })) events.push(e);
  return events;
}

const text = (r: ToolResultBlockParam): string => (typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join(''));

describe('what the pipeline used to drop', () => {
  it("a tool's newMessages reach the model with their images and roles, as messages after the tool_result", async () => {
    const Looker = buildTool({
      name: 'Looker',
      inputSchema: z.object({}),
      maxResultSizeChars: 10_000,
      prompt: async () => 'looks',
      isReadOnly: () => true,
      call: async () => ({
        data: 'looked',
        newMessages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'text', text: 'the screenshot' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'the helper agent found 3 files' }] },
        ] as MessageParam[],
      }),
    });
    const { runtime, client } = await setup(
      [{ content: [{ type: 'tool_use', name: 'Looker', input: {} }] }, { content: [{ type: 'text', text: 'done' }] }],
      { tools: [Looker], rules: { allow: ['Looker'] } },
    );
    await run(runtime, client, 'look');
    const second = server!.messageRequests[1]!.body as { messages: { role: string; content: { type: string; text?: string }[] }[] };
    // The API gets one user message after the assistant turn: the tool_result first, then everything the tool added.
    const last = second.messages.at(-1)!;
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(last.content.map((b) => b.type)).toEqual(['tool_result', 'image', 'text', 'text']);
    expect(last.content[2]!.text).toBe('the screenshot');
    expect(last.content[3]!.text).toMatch(/role: assistant[\s\S]*the helper agent found 3 files/);
    // The conversation keeps them as their own messages (the transcript reads them back the same way).
    const stored = readTranscript(transcriptPath(runtime.sessionDir)).messages;
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user', 'user', 'assistant']);
  });

  it("context.messages is the conversation so far: the prompt and the assistant message with the call", async () => {
    const seen: MessageParam[][] = [];
    const Probe = buildTool({
      name: 'Probe',
      inputSchema: z.object({}),
      maxResultSizeChars: 1_000,
      prompt: async () => 'probe',
      isReadOnly: () => true,
      call: async (_input, context) => {
        seen.push([...context.messages]);
        return { data: 'ok' };
      },
    });
    const { runtime, client } = await setup(
      [
        { content: [{ type: 'text', text: 'probing' }, { type: 'tool_use', name: 'Probe', input: {} }] },
        { content: [{ type: 'tool_use', name: 'Probe', input: {} }] },
        { content: [{ type: 'text', text: 'done' }] },
      ],
      { tools: [Probe], rules: { allow: ['Probe'] } },
    );
    await run(runtime, client, 'probe twice');
    expect(seen).toHaveLength(2);
    expect(seen[0]!.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(seen[0]![0])).toContain('probe twice');
    expect(JSON.stringify(seen[0]![1])).toContain('Probe');
    // The second call sees the first turn's result too.
    expect(seen[1]!.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // Between runs the runtime's own context holds no history.
    expect(contextOf(runtime).messages).toEqual([]);
  });

  it("a result's mcpMeta (structuredContent, _meta) reaches the outcome, redacted like the result", async () => {
    process.env.DROPS_TEST_TOKEN = 'tok-9f8e7d6c5b4a';
    try {
      const Meta = buildTool({
        name: 'Meta',
        inputSchema: z.object({}),
        maxResultSizeChars: 1_000,
        prompt: async () => 'meta',
        isReadOnly: () => true,
        call: async () => ({ data: 'ok', mcpMeta: { structuredContent: { rows: 2, token: 'tok-9f8e7d6c5b4a' }, _meta: { trace: 'x' } } }),
      });
      const rt = await createToolRuntime({ cwd: dir, settings: { sources: [] }, tools: [Meta], rules: { allow: ['Meta'] } });
      runtimes.push(rt);
      const { outcomes } = await rt.run([{ type: 'tool_use', id: 'toolu_meta', name: 'Meta', input: {} } as never]);
      expect(outcomes[0]!.mcpMeta).toEqual({ structuredContent: { rows: 2, token: '[REDACTED:DROPS_TEST_TOKEN]' }, _meta: { trace: 'x' } });
    } finally {
      delete process.env.DROPS_TEST_TOKEN;
    }
  });

  it('a person who changes the input before approving: Edit writes their version and tells the model; an input the tool refuses is an error', async () => {
    const file = path.join(dir, 'notes.txt');
    writeFileSync(file, 'alpha\nbeta\n');
    let answer: 'changed' | 'invalid' = 'changed';
    const rt = await createToolRuntime({
      cwd: dir,
      settings: { sources: [] },
      onPermissionRequest: async (request) =>
        answer === 'changed'
          ? { behavior: 'allow', scope: 'once', updatedInput: { ...request.input, new_string: 'BETA (as the person wrote it)' } }
          : { behavior: 'allow', scope: 'once', updatedInput: { file_path: 5 } },
    });
    runtimes.push(rt);
    await rt.run([{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: file } } as never]);
    const edited = await rt.run([{ type: 'tool_use', id: 'toolu_edit', name: 'Edit', input: { file_path: file, old_string: 'beta', new_string: 'BETA' } } as never]);
    expect(edited.results[0]!.is_error).not.toBe(true);
    expect(text(edited.results[0]!)).toContain('The user modified your proposed changes before accepting them');
    expect(readFileSync(file, 'utf8')).toBe('alpha\nBETA (as the person wrote it)\n');

    answer = 'invalid';
    const refused = await rt.run([{ type: 'tool_use', id: 'toolu_edit2', name: 'Edit', input: { file_path: file, old_string: 'alpha', new_string: 'ALPHA' } } as never]);
    expect(refused.results[0]!.is_error).toBe(true);
    expect(text(refused.results[0]!)).toMatch(/not one Edit accepts/);
    expect(readFileSync(file, 'utf8')).toBe('alpha\nBETA (as the person wrote it)\n');
  });

  it('Write says the same when the person changed the content', async () => {
    const file = path.join(dir, 'new.txt');
    const rt = await createToolRuntime({
      cwd: dir,
      settings: { sources: [] },
      onPermissionRequest: async (request) => ({ behavior: 'allow', scope: 'once', updatedInput: { ...request.input, content: 'their text\n' } }),
    });
    runtimes.push(rt);
    const written = await rt.run([{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: file, content: 'my text\n' } } as never]);
    expect(text(written.results[0]!)).toMatch(/user modified your proposed content/);
    expect(readFileSync(file, 'utf8')).toBe('their text\n');
  });
});
