/**
 * The Agent call's progress through the real loop: `query()` against the scripted Messages API server, the real SDK,
 * a real sub-agent reading real files. The parent's stream carries the child's calls as they start and end, its
 * words and its tokens, as `agent_progress` snapshots of the Agent call; the UI needs nothing else to draw them.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import type { QueryEvent, ToolRuntime } from '../src/agent/types.js';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import type { AgentProgress } from '../src/tools/agent/index.js';

let dir: string;
let server: ScriptedServer | undefined;
let runtime: ToolRuntime | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-agent-progress-'));
});
afterEach(async () => {
  await server?.close();
  await runtime?.dispose();
  server = undefined;
  runtime = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function firstPrompt(request: RecordedRequest): string {
  const first = request.body.messages[0];
  return typeof first.content === 'string' ? first.content : first.content.map((b: { text?: string }) => b.text ?? '').join('\n');
}

describe('Agent progress through the loop', () => {
  it('streams the sub-agent\'s calls, words and tokens as progress of the Agent call, in order', async () => {
    writeFileSync(path.join(dir, 'a.txt'), 'one\n');
    const script: Record<string, ScriptedResponse[]> = {
      'look around': [{ content: [{ type: 'tool_use', name: 'Agent', input: { description: 'survey files', prompt: 'CHILD: read a.txt, list txt files' } }] }, { content: [{ type: 'text', text: 'Surveyed.' }] }],
      CHILD: [
        { content: [{ type: 'text', text: 'Reading first.' }, { type: 'tool_use', name: 'Read', input: { file_path: path.join(dir, 'a.txt') } }] },
        { content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*.txt' } }] },
        { content: [{ type: 'text', text: 'One file, one line.' }] },
      ],
    };
    const turn = (request: RecordedRequest): ScriptedResponse => {
      const prompt = firstPrompt(request);
      const key = Object.keys(script).find((k) => prompt.includes(k))!;
      return script[key]![request.body.messages.filter((m: { role: string }) => m.role === 'assistant').length]!;
    };
    server = await startScriptedServer(Array.from({ length: 6 }, () => turn));
    const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 });
    runtime = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.sessions', 's1'), sessionId: 's1', client, mode: 'bypassPermissions', settings: { sources: [] } });

    const events: QueryEvent[] = [];
    for await (const event of query({ runtime, client, prompt: 'look around' })) events.push(event);
    const agentUse = events.find((e) => e.type === 'tool_use' && e.block.name === 'Agent');
    expect(agentUse).toBeDefined();
    const agentId = agentUse!.type === 'tool_use' ? agentUse!.block.id : '';
    const progress = events.flatMap((e) => (e.type === 'tool_progress' && e.progress.toolUseID === agentId ? [e.progress.data as AgentProgress] : []));
    expect(progress.every((p) => p.type === 'agent_progress' && p.description === 'survey files')).toBe(true);

    // The words and calls as the child made them: its first words, then Read starts, ends, then Glob ("Search").
    expect(progress[0]).toMatchObject({ recent: [], lastActivity: 'Reading first.' });
    const steps = progress.map((p) => p.recent.map((c) => `${c.name}:${c.status}`).join(','));
    const distinct = steps.filter((s, i) => s !== steps[i - 1]);
    expect(distinct).toEqual(['', 'Read:running', 'Read:done', 'Read:done,Search:running', 'Read:done,Search:done']);
    const last = progress.at(-1)!;
    expect(last.toolUseCount).toBe(2);
    expect(last.recent[0]!.summary).toContain('a.txt');
    expect(last.totalTokens).toBeGreaterThan(0);
    expect(last.lastActivity).toBe('One file, one line.');
    expect(progress.some((p) => p.lastActivity === 'Reading first.')).toBe(true);

    // And the finished call says so in one line.
    const result = events.find((e) => e.type === 'tool_result' && e.outcome.toolUseId === agentId);
    expect(result?.type === 'tool_result' && result.outcome.tool?.renderToolResultMessage?.(result.outcome.output)).toMatch(/^Done \(2 tool uses · \d+ tokens · [\d.]+s\)$/);
  }, 60_000);
});
