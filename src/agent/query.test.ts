import Anthropic from '@anthropic-ai/sdk';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer, type ScriptedTurn } from '../testing/index.js';
import { createToolRuntime } from './create-tool-runtime.js';
import { query } from './query.js';
import { readTranscript, transcriptPath } from './transcript.js';
import type { QueryEvent, QueryResult, ToolRuntime } from './types.js';
import type { QueryOptions } from './query-options.js';
import { contextOf } from './runtime-context.js';

let dir: string;
let server: ScriptedServer | undefined;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-query-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function setup(turns: readonly ScriptedTurn[], runtimeOptions: Parameters<typeof createToolRuntime>[0] = {}) {
  server = await startScriptedServer(turns);
  const runtime = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.sessions', 's1'), sessionId: 's1', ...runtimeOptions, settings: { sources: [], ...runtimeOptions.settings } });
  runtimes.push(runtime);
  const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url });
  return { runtime, client };
}

async function collect(options: QueryOptions): Promise<{ events: QueryEvent[]; result: QueryResult }> {
  const events: QueryEvent[] = [];
  for await (const event of query(options)) events.push(event);
  const last = events.at(-1);
  if (last?.type !== 'result') throw new Error('no result event');
  return { events, result: last.result };
}

const resultText = (message: any, i = 0): string => {
  const block = message.content[i];
  return typeof block.content === 'string' ? block.content : block.content.map((b: any) => b.text ?? '').join('');
};
const fast = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 };

describe('query()', () => {
  it('keeps a session on one connection: the next turn does not open another because the tools answered at once', async () => {
    // A small Read answers within the turn that saw its block, so the next request follows the response's end
    // immediately: without a wait for fetch to take the connection back, every turn cost a new one (a TLS handshake on
    // the real API).
    writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
    const read = { type: 'tool_use' as const, name: 'Read', input: { file_path: path.join(dir, 'a.txt') } };
    const { runtime, client } = await setup([{ content: [read] }, { content: [read] }, { content: [{ type: 'text', text: 'done' }] }]);
    const { result } = await collect({ runtime, client, prompt: 'read a.txt twice', model: 'claude-sonnet-4-6' });
    expect(result.stopReason).toBe('end_turn');
    expect(server!.messageRequests).toHaveLength(3);
    expect(server!.connections).toBe(1);
  });

  it('multi-turn tool use: real tools, results back as one user message in call order, usage and cost', async () => {
    writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
    const { runtime, client } = await setup([
      { content: [{ type: 'text', text: 'Let me read it.' }, { type: 'tool_use', name: 'Read', input: { file_path: path.join(dir, 'a.txt') } }, { type: 'tool_use', name: 'Bash', input: { command: 'echo from-bash' } }], usage: { input_tokens: 1000, output_tokens: 100 } },
      (request) => {
        const last = request.body.messages.at(-1);
        return { content: [{ type: 'text', text: `saw ${last.content.length} results` }], usage: { input_tokens: 2000, output_tokens: 10, cache_read_input_tokens: 500 } };
      },
    ], { rules: { allow: ['Bash(echo:*)'] } });
    const { events, result } = await collect({ runtime, client, prompt: 'read a.txt', model: 'claude-sonnet-4-6' });
    expect(result.stopReason).toBe('end_turn');
    expect(result.turns).toBe(2);
    expect(result.text).toBe('saw 2 results');
    const second = server!.messageRequests[1]!.body;
    const toolResults = second.messages[2];
    expect(toolResults.role).toBe('user');
    expect(toolResults.content.map((b: any) => b.tool_use_id)).toEqual(second.messages[1].content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id));
    expect(resultText(toolResults, 0)).toContain('alpha');
    expect(resultText(toolResults, 1)).toContain('from-bash');
    expect(result.usage).toEqual({ input_tokens: 3000, output_tokens: 110, cache_creation_input_tokens: 0, cache_read_input_tokens: 500 });
    expect(result.costUsd).toBeCloseTo((3000 * 3 + 110 * 15 + 500 * 0.3) / 1e6, 10);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['init', 'text_delta', 'tool_use', 'tool_result', 'assistant', 'user', 'result']));
    expect(events.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(1);
    // Prompt caching: breakpoints on the last tool, the system prompt and the last message; tools byte-identical.
    const first = server!.messageRequests[0]!.body;
    expect(first.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(first.tools.filter((t: any) => t.cache_control)).toHaveLength(1);
    expect(first.system[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(first.system[0].text).toContain(`Working directory: ${dir}`);
    expect(first.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(second.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(second.messages[0].content.at(-1).cache_control).toBeUndefined();
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    // The SDK's own retries are off: the loop decides.
    expect(server!.messageRequests[0]!.headers['x-stainless-retry-count']).toBe('0');
    // The transcript holds the conversation.
    const transcript = readTranscript(transcriptPath(runtime.sessionDir));
    expect(transcript.messages).toEqual(result.messages);
    expect(transcript.header?.cwd).toBe(dir);
  });

  it('parallel tools: the first starts before the message ends (the server holds the stream until its side effect exists)', async () => {
    const marker = path.join(dir, 'first-ran');
    const { runtime, client } = await setup([
      {
        content: [
          { type: 'tool_use', name: 'Bash', input: { command: `touch ${marker}` } },
          { type: 'wait', until: () => existsSync(marker), timeoutMs: 20_000 },
          { type: 'text', text: 'after' },
          { type: 'tool_use', name: 'Bash', input: { command: 'echo second' } },
        ],
      },
      { content: [{ type: 'text', text: 'done' }] },
    ], { mode: 'bypassPermissions' });
    const { events, result } = await collect({ runtime, client, prompt: 'go' });
    expect(result.stopReason).toBe('end_turn');
    // The first tool's result event came before the assistant message was complete (its `assistant` event).
    const order = events.map((e) => (e.type === 'tool_result' ? `result:${e.outcome.toolUseId}` : e.type)).filter((t) => t.startsWith('result:') || t === 'assistant');
    expect(order[0]).toMatch(/^result:/);
    expect(order.indexOf('assistant')).toBeGreaterThan(0);
  });

  it('a 529 and a dropped connection before any tool_use are retried; the retry is announced', async () => {
    const { runtime, client } = await setup([
      { errors: [{ status: 529 }, { drop: true, afterBlocks: 1 }, { status: 429, retryAfter: 0 }], content: [{ type: 'text', text: 'hello' }, { type: 'text', text: 'world' }] },
    ]);
    const { events, result } = await collect({ runtime, client, prompt: 'hi', retry: fast });
    expect(result.stopReason).toBe('end_turn');
    // The result's text is the answer's last block, as Claude Code takes it (the earlier blocks are not joined to it).
    expect(result.text).toBe('world');
    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.map((e) => (e as any).error)).toEqual([expect.stringContaining('529 overloaded_error'), expect.stringContaining('connection'), expect.stringContaining('429')]);
    expect((retries[2] as any).delayMs).toBe(0);
    expect(server!.messageRequests).toHaveLength(4);
  });

  it('gives up after the cap with a clear error; a 400 is not retried', async () => {
    const { runtime, client } = await setup([{ errors: [{ status: 529 }, { status: 529 }, { status: 529 }], content: [] }]);
    const { result } = await collect({ runtime, client, prompt: 'hi', retry: { ...fast, maxRetries: 2 } });
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatch(/529 overloaded_error: Overloaded \(gave up after 3 attempts\)/);
    await server!.close();
    server = await startScriptedServer([{ errors: [{ status: 400, message: 'bad request here' }], content: [] }]);
    const { result: bad } = await collect({ runtime, client: new Anthropic({ apiKey: 'k', baseURL: server.url }), prompt: 'hi', retry: fast });
    expect(bad.error).toMatch(/400 invalid_request_error: bad request here$/);
    expect(server.messageRequests).toHaveLength(1);
  });

  it('a stream that fails after a tool started keeps the turn: the tool runs once and the model goes on from its result', async () => {
    const counter = path.join(dir, 'count');
    const { runtime, client } = await setup([
      {
        content: [
          { type: 'tool_use', name: 'Bash', input: { command: `echo x >> ${counter}` } },
          { type: 'wait', until: () => existsSync(counter) },
          { type: 'text', text: 'more' },
          { type: 'disconnect' },
          { type: 'tool_use', name: 'Bash', input: { command: 'echo never' } },
        ],
      },
      { content: [{ type: 'text', text: 'recovered' }] },
    ], { mode: 'bypassPermissions' });
    const { events, result } = await collect({ runtime, client, prompt: 'go', retry: fast });
    expect(result.stopReason).toBe('end_turn');
    expect(readFileSync(counter, 'utf8')).toBe('x\n');
    const second = server!.messageRequests[1]!.body.messages;
    expect(second[1].content.map((b: any) => b.type)).toEqual(['tool_use', 'text']);
    expect(second[2].content[0].type).toBe('tool_result');
    expect(events.some((e) => e.type === 'retry')).toBe(false);
  });

  it('abort in the middle of a tool: one result per tool_use, no process left, the transcript valid for the next request', async () => {
    const pidFile = path.join(dir, 'pid');
    const { runtime, client } = await setup([
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: `echo $$ > ${pidFile}; sleep 30` } }, { type: 'tool_use', name: 'Read', input: { file_path: path.join(dir, 'nothing') } }] },
      { content: [{ type: 'text', text: 'continued' }] },
    ], { mode: 'bypassPermissions' });
    const controller = new AbortController();
    const events: QueryEvent[] = [];
    const poll = setInterval(() => {
      if (existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim()) controller.abort();
    }, 5);
    for await (const event of query({ runtime, client, prompt: 'go', signal: controller.signal })) events.push(event);
    clearInterval(poll);
    const result = (events.at(-1) as Extract<QueryEvent, { type: 'result' }>).result;
    expect(result.stopReason).toBe('aborted');
    const [, assistant, user] = result.messages as any[];
    const ids = assistant.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id);
    expect(user.content.filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id)).toEqual(ids);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
    // The next request resumes the transcript as it stands.
    const next = await collect({ runtime, client, prompt: 'again', resume: 's1' });
    expect(next.result.text).toBe('continued');
    const sent = server!.messageRequests[1]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[2].content.at(-1).text).toBe('again');
  });

});

describe('query(): how turns end, hooks, the prompt and the transcript', () => {
  it('max_tokens: a tool_use cut off gets an is_error result and the loop goes on; without tools it is reported', async () => {
    const { runtime, client } = await setup([
      { content: [{ type: 'text', text: 'writing' }, { type: 'tool_use', name: 'Write', rawInput: '{"file_path": "/tmp/x", "content": "abc' }], stopReason: 'max_tokens' },
      (request) => ({ content: [{ type: 'text', text: resultText(request.body.messages.at(-1)) }], stopReason: 'max_tokens' }),
    ]);
    const { result } = await collect({ runtime, client, prompt: 'write' });
    expect(result.stopReason).toBe('max_tokens');
    expect(result.text).toMatch(/reached max_tokens.*did not run/);
    const sent = server!.messageRequests[1]!.body.messages;
    expect(sent[1].content[1]).toMatchObject({ type: 'tool_use', name: 'Write', input: {} });
    expect(sent[2].content[0]).toMatchObject({ type: 'tool_result', is_error: true });
  });

  it('invalid JSON in a tool_use input is an is_error result, not a crash; the valid call beside it runs', async () => {
    writeFileSync(path.join(dir, 'b.txt'), 'beta\n');
    const { runtime, client } = await setup([
      { content: [{ type: 'tool_use', name: 'Read', rawInput: '{"file_path": oops}' }, { type: 'tool_use', name: 'Read', input: { file_path: path.join(dir, 'b.txt') } }] },
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const { result } = await collect({ runtime, client, prompt: 'read' });
    expect(result.stopReason).toBe('end_turn');
    const user = server!.messageRequests[1]!.body.messages[2];
    expect(user.content[0].is_error).toBe(true);
    expect(resultText(user, 0)).toMatch(/not a JSON object.*did not run/);
    expect(resultText(user, 1)).toContain('beta');
  });

  it('pause_turn continues, refusal stops, max turns stops with the tools answered', async () => {
    const { runtime, client } = await setup([
      { content: [{ type: 'text', text: 'thinking about it' }], stopReason: 'pause_turn' },
      { content: [{ type: 'text', text: 'no' }], stopReason: 'refusal' },
      { content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*' } }] },
    ]);
    const { result } = await collect({ runtime, client, prompt: 'x' });
    expect(result.stopReason).toBe('refusal');
    expect(server!.messageRequests[1]!.body.messages.at(-1).role).toBe('assistant');
    const { result: capped } = await collect({ runtime, client, prompt: 'y', maxTurns: 1, resume: 's1' });
    expect(capped.stopReason).toBe('max_turns');
    expect(capped.isError).toBe(true);
    expect((capped.messages.at(-1) as any).content[0].type).toBe('tool_result');
  });

  it('loop hooks: UserPromptSubmit adds context or blocks, Stop makes the loop go on with stop_hook_active, SessionStart/End fire', async () => {
    const seen: Record<string, unknown>[] = [];
    const { runtime, client } = await setup(
      [{ content: [{ type: 'text', text: 'first answer' }] }, { content: [{ type: 'text', text: 'second answer' }] }],
      {
        hooks: [
          { event: 'SessionStart', callback: async (input) => (seen.push(input), { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'start-ctx' } }) },
          { event: 'UserPromptSubmit', callback: async (input) => (seen.push(input), input.prompt === 'forbidden' ? { decision: 'block', reason: 'not today' } : { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'prompt-ctx' } }) },
          { event: 'Stop', callback: async (input) => (seen.push(input), input.stop_hook_active ? {} : { decision: 'block', reason: 'run the tests first' }) },
          { event: 'SessionEnd', callback: async (input) => void seen.push(input) },
        ],
      },
    );
    const { result } = await collect({ runtime, client, prompt: 'hello' });
    expect(result.text).toBe('second answer');
    expect(result.turns).toBe(2);
    // (The deferred-tools announcement is a block of its own.)
    const firstUser = server!.messageRequests[0]!.body.messages[0].content.map((b: any) => b.text).filter((t: string) => !t.includes('available but deferred'));
    // Each hook's context is a system reminder of its own (the machine's words, not the person's: tool/message-origin.ts).
    expect(firstUser).toEqual([
      'hello',
      '<system-reminder>\nSessionStart hook additional context: start-ctx\n</system-reminder>',
      '<system-reminder>\nUserPromptSubmit hook additional context: prompt-ctx\n</system-reminder>',
    ]);
    expect(server!.messageRequests[1]!.body.messages.at(-1).content[0].text).toContain('run the tests first');
    expect(seen.map((s) => s.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'Stop', 'Stop', 'SessionEnd']);
    expect(seen.filter((s) => s.hook_event_name === 'Stop').map((s) => s.stop_hook_active)).toEqual([false, true]);
    expect(seen[0]).toMatchObject({ source: 'startup', session_id: 's1', cwd: dir });
    const blocked = await collect({ runtime, client, prompt: 'forbidden' });
    expect(blocked.result.stopReason).toBe('blocked');
    expect(blocked.result.error).toContain('not today');
    expect(server!.messageRequests).toHaveLength(2);
  });

  it('loop hooks nobody listens to are skipped in process, still run when configured, and kept as steps by a journaled runner', async () => {
    const stops: unknown[] = [];
    const { runtime, client } = await setup([{ content: [{ type: 'text', text: 'one' }] }, { content: [{ type: 'text', text: 'two' }] }], {
      hooks: [{ event: 'Stop', callback: async (input) => void stops.push(input) }],
    });
    const loop = contextOf(runtime).services.hooks!.loop!;
    const calls: string[] = [];
    for (const name of ['sessionStart', 'userPromptSubmit', 'stop', 'sessionEnd'] as const) {
      const fire = loop[name].bind(loop) as (...args: unknown[]) => ReturnType<typeof loop.stop>;
      (loop as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => (calls.push(name), fire(...args));
    }
    await collect({ runtime, client, prompt: 'hello' });
    expect(calls).toEqual(['stop']);
    expect(stops).toHaveLength(1);
    calls.length = 0;
    const names: string[] = [];
    await collect({ runtime, client, prompt: 'again', steps: { overlap: true, step: (name, run) => (names.push(name), run()) } });
    expect(calls).toEqual(['sessionStart', 'userPromptSubmit', 'stop', 'sessionEnd']);
    expect(names.filter((n) => n.startsWith('hook'))).toEqual(['hook SessionStart', 'hook UserPromptSubmit', 'hook Stop 1', 'hook SessionEnd']);
    expect(stops).toHaveLength(2);
  });

  it('a prompt answered "deny and stop" (interrupt) ends the turn: the refusal is in the conversation, the model is not asked again', async () => {
    const { runtime, client } = await setup(
      [
        { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'touch refused.txt' } }, { type: 'tool_use', name: 'Bash', input: { command: 'touch sibling.txt' } }] },
        { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'touch later.txt' } }] },
      ],
      { onPermissionRequest: async () => ({ behavior: 'deny', interrupt: true, message: 'refused and stopped' }) },
    );
    const { events, result } = await collect({ runtime, client, prompt: 'make files', model: 'claude-sonnet-5-5' });
    expect(result.stopReason).toBe('aborted');
    expect(server!.messageRequests).toHaveLength(1);
    const answered = events.filter((e) => e.type === 'tool_result');
    expect(answered).toHaveLength(2);
    const user = result.messages.at(-1)!;
    expect(user.role).toBe('user');
    expect(resultText(user, 0)).toContain("refused and stopped");
    expect(resultText(user, 1)).toContain("Interrupted by the user");
    for (const f of ['refused.txt', 'sibling.txt', 'later.txt']) expect(existsSync(path.join(dir, f))).toBe(false);
  });

  it('reads CLAUDE.md and AGENTS.md into the system prompt, with --append-system-prompt; thinking passes through', async () => {
    writeFileSync(path.join(dir, 'CLAUDE.md'), 'Always use tabs.');
    writeFileSync(path.join(dir, 'AGENTS.md'), 'Run make check.');
    const { runtime, client } = await setup([{ content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'ok' }] }]);
    const { events } = await collect({ runtime, client, prompt: 'x', appendSystemPrompt: 'Be brief.', thinking: { type: 'enabled', budget_tokens: 2000 } });
    const body = server!.messageRequests[0]!.body;
    expect(body.system[0].text).toMatch(/Always use tabs\.[\s\S]*Run make check\.[\s\S]*Be brief\.$/);
    expect(body.system[0].text).toMatch(/Git repository: no/);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(events.some((e) => e.type === 'thinking_delta')).toBe(true);
  });

  it.skipIf(process.platform !== 'linux')('holds the transcript open while the session runs, and closes it at the end, also when the consumer stops early (Linux: reads /proc/self/fd)', async () => {
    writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
    const read: ScriptedTurn = { content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(dir, 'a.txt') } }] };
    const { runtime, client } = await setup([read, { content: [{ type: 'text', text: 'done' }] }, read]);
    const file = transcriptPath(runtime.sessionDir);
    const openCount = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      }).length;
    let during = 0;
    for await (const event of query({ runtime, client, prompt: 'read it', model: 'claude-sonnet-4-6' })) if (event.type === 'tool_use') during = openCount();
    expect(during).toBe(1);
    expect(openCount()).toBe(0);
    for await (const event of query({ runtime, client, prompt: 'read it again', model: 'claude-sonnet-4-6' })) if (event.type === 'tool_use') break;
    expect(openCount()).toBe(0);
    expect(readTranscript(file).messages.length).toBeGreaterThan(3);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
