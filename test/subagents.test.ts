/**
 * Sub-agents, ToolSearch and plan mode through the real loop: `query()` against the scripted Messages API server,
 * the real Anthropic SDK, real files. The scripted model answers each conversation by its first prompt (parallel
 * sub-agents interleave their requests) and by how many turns that conversation has had.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import type { QueryResult, RuntimePermissionRequest, ToolRuntime, ToolRuntimeOptions } from '../src/agent/types.js';
import type { QueryOptions } from '../src/agent/query-options.js';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';

let dir: string;
let server: ScriptedServer | undefined;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-subagents-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

function firstPrompt(request: RecordedRequest): string {
  const first = request.body.messages[0];
  if (typeof first.content === 'string') return first.content;
  return first.content.map((b: { type: string; text?: string }) => b.text ?? '').join('\n');
}

/** Conversations keyed by a word of their first prompt; each gets its responses in order, one per request. */
function conversations(script: Record<string, readonly ScriptedResponse[]>, total = 40) {
  const turn = (request: RecordedRequest): ScriptedResponse => {
    const prompt = firstPrompt(request);
    const key = Object.keys(script).find((k) => prompt.includes(k));
    if (!key) return { content: [{ type: 'text', text: `no script for: ${prompt.slice(0, 80)}` }] };
    const index = request.body.messages.filter((m: { role: string }) => m.role === 'assistant').length;
    return script[key]![index] ?? { content: [{ type: 'text', text: `script of ${key} ran out` }] };
  };
  return Array.from({ length: total }, () => turn);
}

async function setup(script: Record<string, readonly ScriptedResponse[]>, options: ToolRuntimeOptions = {}) {
  server = await startScriptedServer(conversations(script));
  const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 });
  const runtime = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.sessions', 's1'), sessionId: 's1', client, ...options, settings: { sources: [], ...options.settings } });
  runtimes.push(runtime);
  return { runtime, client };
}

async function run(options: QueryOptions): Promise<QueryResult> {
  let result: QueryResult | undefined;
  for await (const event of query(options)) if (event.type === 'result') result = event.result;
  return result!;
}

const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });
const call = (name: string, input: unknown): ScriptedResponse => ({ content: [{ type: 'tool_use', name, input }] });
const toolResultText = (request: RecordedRequest | undefined): string =>
  JSON.stringify(request?.body.messages.at(-1).content ?? '');

describe('sub-agents through the loop', () => {
  it('a sub-agent reads and edits a file and returns its report; hooks see every call with its agent id; its prompt bubbles up', async () => {
    const file = path.join(dir, 'notes.txt');
    writeFileSync(file, 'colour\n');
    const hookCalls: { tool: string; agent: unknown; event: string }[] = [];
    const prompts: RuntimePermissionRequest[] = [];
    const { runtime, client } = await setup(
      {
        'fix the spelling': [call('Agent', { description: 'fix spelling', prompt: 'CHILD-EDIT: change colour to color in notes.txt' }), text('The sub-agent fixed it.')],
        'CHILD-EDIT': [call('Read', { file_path: file }), call('Edit', { file_path: file, old_string: 'colour', new_string: 'color' }), text('Changed colour to color.')],
      },
      {
        hooks: (['PreToolUse', 'PostToolUse'] as const).map((event) => ({
          event,
          callback: async (input: Record<string, unknown>) => void hookCalls.push({ tool: String(input.tool_name), agent: input.agent_id, event }),
        })),
        onPermissionRequest: async (request) => (prompts.push(request), { behavior: 'allow' }),
      },
    );
    const result = await run({ runtime, client, prompt: 'fix the spelling', model: 'claude-sonnet-5-5' });
    expect(result.stopReason).toBe('end_turn');
    expect(readFileSync(file, 'utf8')).toBe('color\n');
    const agentResult = toolResultText(server!.messageRequests.at(-1));
    expect(agentResult).toContain('Changed colour to color.');
    expect(agentResult).toMatch(/2 tool uses/);

    // No sub-agent call skipped its hooks: Pre and Post for Read and Edit, each with the child's id.
    const child = hookCalls.filter((h) => h.tool !== 'Agent');
    expect(child.map((h) => `${h.event}:${h.tool}`).sort()).toEqual(['PostToolUse:Edit', 'PostToolUse:Read', 'PreToolUse:Edit', 'PreToolUse:Read']);
    expect(new Set(child.map((h) => h.agent)).size).toBe(1);
    expect(child[0]!.agent).toMatch(/^agent-/);
    expect(hookCalls.filter((h) => h.tool === 'Agent').every((h) => h.agent === undefined)).toBe(true);
    // The Edit's prompt reached the one top-level handler, tagged with the child's id.
    expect(prompts.map((p) => [p.tool.name, p.agentId])).toEqual([['Edit', child[0]!.agent]]);
  });

  it('two sub-agents run in parallel (both started before either ended)', async () => {
    let started = 0;
    let maxConcurrent = 0;
    const { runtime, client } = await setup(
      {
        'two jobs': [
          { content: [
            { type: 'tool_use', name: 'Agent', input: { description: 'job a', prompt: 'JOB-A: say a' } },
            { type: 'tool_use', name: 'Agent', input: { description: 'job b', prompt: 'JOB-B: say b' } },
          ] },
          text('both done'),
        ],
        'JOB-A': [text('result a')],
        'JOB-B': [text('result b')],
      },
      {
        hooks: [
          { event: 'SubagentStart' as const, callback: async () => void (maxConcurrent = Math.max(maxConcurrent, ++started)) },
        ],
      },
    );
    const result = await run({ runtime, client, prompt: 'two jobs', model: 'claude-sonnet-5-5' });
    expect(result.stopReason).toBe('end_turn');
    const last = toolResultText(server!.messageRequests.at(-1));
    expect(last).toContain('result a');
    expect(last).toContain('result b');
    // Both children's first requests arrived before the parent's second one.
    const order = server!.messageRequests.map((r) => /JOB-[AB]/.exec(firstPrompt(r))?.[0] ?? 'parent');
    expect(order.slice(1, 3).sort()).toEqual(['JOB-A', 'JOB-B']);
    expect(maxConcurrent).toBe(2);
  });

  it('headless, a write inside a sub-agent is denied with a clear message and nothing hangs', async () => {
    const target = path.join(dir, 'out.txt');
    const { runtime, client } = await setup({
      'write it': [call('Agent', { description: 'write', prompt: 'CHILD-WRITE' }), text('ok')],
      'CHILD-WRITE': [call('Write', { file_path: target, content: 'x' }), text('could not write')],
    });
    const result = await run({ runtime, client, prompt: 'write it', model: 'claude-sonnet-5-5' });
    expect(result.stopReason).toBe('end_turn');
    const childSecond = server!.messageRequests.find((r) => firstPrompt(r).includes('CHILD-WRITE') && r.body.messages.length === 3);
    expect(toolResultText(childSecond)).toContain(`"content":${JSON.stringify(`Claude requested permissions to write to ${target}, but you haven't granted it yet.`)}`);
    expect(() => readFileSync(target)).toThrow();
  });

  it('a denial at the top-level prompt reaches the sub-agent as an error', async () => {
    const asked: RuntimePermissionRequest[] = [];
    const { runtime, client } = await setup(
      {
        'run it': [call('Agent', { description: 'bash', prompt: 'CHILD-BASH' }), text('ok')],
        'CHILD-BASH': [call('Bash', { command: `touch ${path.join(dir, 'made')}` }), text('denied, stopping')],
      },
      { onPermissionRequest: async (r) => (asked.push(r), { behavior: 'deny', message: 'not today' }) },
    );
    await run({ runtime, client, prompt: 'run it', model: 'claude-sonnet-5-5' });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.agentId).toMatch(/^agent-/);
    const childSecond = server!.messageRequests.find((r) => firstPrompt(r).includes('CHILD-BASH') && r.body.messages.length === 3);
    expect(toolResultText(childSecond)).toContain('not today');
  });

  it('an abort of the top-level query reaches the running sub-agent', async () => {
    const { runtime, client } = await setup({
      'wait for it': [call('Agent', { description: 'slow', prompt: 'CHILD-SLOW' }), text('never')],
      'CHILD-SLOW': [{ content: [{ type: 'text', text: 'thinking…' }, { type: 'pause', ms: 60_000 }, { type: 'text', text: 'late' }] }],
    });
    const controller = new AbortController();
    const done = run({ runtime, client, prompt: 'wait for it', model: 'claude-sonnet-5-5', signal: controller.signal });
    await server!.waitForRequests(2);
    controller.abort();
    const result = await done;
    expect(result.stopReason).toBe('aborted');
    // The parent's conversation still got exactly one result for the Agent call.
    const last = result.messages.at(-1)!;
    expect(JSON.stringify(last.content)).toContain('tool_result');
  });

  it('a sub-agent keeps its own todo list, shown to the runtime’s callback with its id', async () => {
    const seen: { n: number; agent: string | undefined }[] = [];
    const { runtime, client } = await setup(
      {
        'track it': [call('Agent', { description: 'todo', prompt: 'CHILD-TODO' }), text('ok')],
        'CHILD-TODO': [
          call('ToolSearch', { query: 'select:TodoWrite' }),
          call('TodoWrite', { todos: [{ content: 'Check', status: 'in_progress', activeForm: 'Checking' }] }),
          text('tracked'),
        ],
      },
      { onTodosChanged: (todos, agent) => void seen.push({ n: todos.length, agent }) },
    );
    await run({ runtime, client, prompt: 'track it', model: 'claude-sonnet-5-5' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.n).toBe(1);
    expect(seen[0]!.agent).toMatch(/^agent-/);
  });

  it('the depth limit: a third-level sub-agent has no Agent tool', async () => {
    const { runtime, client } = await setup({
      'go deep': [call('Agent', { description: 'l1', prompt: 'LEVEL-1' }), text('top done')],
      'LEVEL-1': [call('Agent', { description: 'l2', prompt: 'LEVEL-2' }), text('l1 done')],
      'LEVEL-2': [call('Agent', { description: 'l3', prompt: 'LEVEL-3' }), text('l2 done')],
      'LEVEL-3': [text('l3 done')],
    });
    await run({ runtime, client, prompt: 'go deep', model: 'claude-sonnet-5-5' });
    const toolsOf = (key: string) => (server!.messageRequests.find((r) => firstPrompt(r).includes(key))?.body.tools ?? []).map((t: { name: string }) => t.name);
    expect(toolsOf('LEVEL-2')).toContain('Agent');
    expect(toolsOf('LEVEL-3')).not.toContain('Agent');
    for (const key of ['LEVEL-1', 'LEVEL-3']) {
      expect(toolsOf(key)).not.toContain('AskUserQuestion');
      expect(toolsOf(key)).not.toContain('EnterPlanMode');
    }
  });
});

describe('ToolSearch and plan mode through the loop', () => {
  it('select: loads a deferred tool; the next turn calls it (schemas as text for a model without tool_reference)', async () => {
    const { runtime, client } = await setup({
      'make a list': [
        call('ToolSearch', { query: 'select:TodoWrite' }),
        call('TodoWrite', { todos: [{ content: 'Write tests', status: 'in_progress', activeForm: 'Writing tests' }] }),
        text('listed'),
      ],
    }, { model: 'claude-haiku-4-5' });
    const result = await run({ runtime, client, prompt: 'make a list', model: 'claude-haiku-4-5' });
    expect(result.stopReason).toBe('end_turn');
    const [first, second, third] = server!.messageRequests;
    const names = (r: RecordedRequest | undefined) => (r?.body.tools ?? []).map((t: { name: string }) => t.name);
    expect(names(first)).not.toContain('TodoWrite');
    expect(toolResultText(second)).toContain('<functions>');
    expect(names(second)).toContain('TodoWrite');
    expect(toolResultText(third)).toMatch(/todo list is updated/);
  });

  it('with tool_reference support the list never changes and the result references the tool', async () => {
    const { runtime, client } = await setup({
      'make a list': [call('ToolSearch', { query: 'select:TodoWrite' }), call('TodoWrite', { todos: [] }), text('ok')],
    });
    await run({ runtime, client, prompt: 'make a list', model: 'claude-sonnet-5-5' });
    const [first, second] = server!.messageRequests;
    expect(JSON.stringify(first!.body.tools)).toBe(JSON.stringify(second!.body.tools));
    expect(first!.body.tools.find((t: { name: string }) => t.name === 'TodoWrite').defer_loading).toBe(true);
    expect(toolResultText(second)).toContain('"tool_reference"');
    expect(toolResultText(server!.messageRequests[2])).toMatch(/todo list is updated/);
  });

  it('plan mode is entered, blocks a write, and is left with approval', async () => {
    const file = path.join(dir, 'plan.txt');
    const questions: string[] = [];
    const { runtime, client } = await setup(
      {
        'plan first': [
          call('EnterPlanMode', {}),
          call('Write', { file_path: file, content: 'early' }),
          call('ExitPlanMode', { plan: 'write plan.txt' }),
          call('Write', { file_path: file, content: 'late' }),
          text('done'),
        ],
      },
      { mode: 'acceptEdits', onQuestion: async (q) => (questions.push(`${q.kind}:${q.message}`), { action: 'accept' }) },
    );
    const result = await run({ runtime, client, prompt: 'plan first', model: 'claude-sonnet-5-5' });
    expect(result.stopReason).toBe('end_turn');
    expect(toolResultText(server!.messageRequests[2])).toMatch(/plan mode/);
    expect(questions).toEqual(['plan-approval:write plan.txt']);
    expect(readFileSync(file, 'utf8')).toBe('late');
    expect(runtime.permissionContext.mode).toBe('acceptEdits');
  });
});
