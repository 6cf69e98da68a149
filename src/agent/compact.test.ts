import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer, type ScriptedTurn } from '../testing/index.js';
import { compactConversation, CompactError, SUMMARY_PREFIX } from './compact.js';
import { createToolRuntime } from './create-tool-runtime.js';
import { query } from './query.js';
import { readTranscript, transcriptPath } from './transcript.js';
import type { QueryResult, ToolRuntime } from './types.js';

let dir: string;
let server: ScriptedServer | undefined;
const runtimes: ToolRuntime[] = [];
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-compact-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function session(turns: readonly ScriptedTurn[], hookCommand: string) {
  server = await startScriptedServer(turns);
  const runtime = await createToolRuntime({
    cwd: dir,
    sessionId: 's1',
    sessionDir: path.join(dir, 'sessions', 's1'),
    settings: { sources: [], object: { hooks: { PreCompact: [{ matcher: 'manual', hooks: [{ type: 'command', command: hookCommand }] }] } } },
    rules: { allow: ['Bash(echo:*)'] },
  });
  runtimes.push(runtime);
  const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 });
  let result: QueryResult | undefined;
  for await (const e of query({ runtime, client, prompt: 'say hi with echo', model: 'claude-sonnet-5-5' })) if (e.type === 'result') result = e.result;
  return { runtime, client, messages: result!.messages };
}

describe('compactConversation', () => {
  it('fires PreCompact, asks the model for a summary with tools off, and the session (and its transcript) goes on from it', async () => {
    const { runtime, client, messages } = await session(
      [
        { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo hi' } }] },
        { content: [{ type: 'text', text: 'Said hi.' }] },
        { content: [{ type: 'text', text: 'The user asked to say hi; echo hi ran and printed hi.' }], usage: { input_tokens: 1000, output_tokens: 50 } },
      ],
      'cat > precompact.json',
    );
    const result = await compactConversation({ runtime, client, messages, instructions: 'keep the command', model: 'sonnet' });
    expect(result.summary).toBe('The user asked to say hi; echo hi ran and printed hi.');
    expect(result.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: `${SUMMARY_PREFIX}\n\nThe user asked to say hi; echo hi ran and printed hi.` }] }]);
    expect(result.costUsd).toBeGreaterThan(0);

    const hookInput = JSON.parse(readFileSync(path.join(dir, 'precompact.json'), 'utf8'));
    expect(hookInput).toMatchObject({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'keep the command', session_id: 's1' });

    const request = server!.messageRequests.at(-1)!.body;
    expect(request.model).toBe('claude-sonnet-5-5');
    expect(request.tool_choice).toEqual({ type: 'none' });
    // The whole conversation went with the request, the summary instructions last.
    const sent = JSON.stringify(request.messages);
    expect(sent).toContain('echo hi');
    expect(sent).toContain('keep the command');

    const transcript = readTranscript(transcriptPath(runtime.sessionDir));
    expect(transcript.messages).toEqual(result.messages);
  });

  it('a PreCompact hook that exits 2 refuses: no request, the conversation stays', async () => {
    const { runtime, client, messages } = await session(
      [{ content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo hi' } }] }, { content: [{ type: 'text', text: 'Said hi.' }] }],
      'echo "not now" >&2; exit 2',
    );
    const before = server!.messageRequests.length;
    await expect(compactConversation({ runtime, client, messages })).rejects.toThrow(CompactError);
    await expect(compactConversation({ runtime, client, messages })).rejects.toThrow(/not now/);
    expect(server!.messageRequests.length).toBe(before);
    expect(readTranscript(transcriptPath(runtime.sessionDir)).messages.length).toBe(messages.length);
  });
});
