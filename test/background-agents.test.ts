/**
 * Background sub-agents and sub-agent transcripts through the real loop: `query()` against the scripted Messages API
 * server, the real Anthropic SDK, real files, the real permission engine. A background agent is a task like a
 * background command (TaskOutput reads it, TaskStop stops it), it has only the tools that declare themselves
 * async-safe, and its prompts wait on nobody: they are denied with the rule that would allow them, and the parent sees
 * that. A foreground agent's transcript reaches the parent as an attachment after its result.
 */
import Anthropic from '@anthropic-ai/sdk';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import type { QueryResult, RuntimePermissionRequest, ToolRuntime, ToolRuntimeOptions } from '../src/agent/types.js';
import type { QueryOptions } from '../src/agent/query-options.js';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { contextOf } from '../src/agent/runtime-context.js';

let dir: string;
let server: ScriptedServer | undefined;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bg-agents-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

function firstPrompt(request: RecordedRequest): string {
  const first = request.body.messages[0];
  return typeof first.content === 'string' ? first.content : first.content.map((b: { text?: string }) => b.text ?? '').join('\n');
}

type Turn = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse);

/** Conversations keyed by a word of their first prompt; each gets its turns in order (by its assistant messages so far). */
async function setup(script: Record<string, readonly Turn[]>, options: ToolRuntimeOptions = {}) {
  const turn = (request: RecordedRequest): ScriptedResponse => {
    const key = Object.keys(script).find((k) => firstPrompt(request).includes(k));
    const index = request.body.messages.filter((m: { role: string }) => m.role === 'assistant').length;
    const t = key ? script[key]![index] : undefined;
    if (!t) return { content: [{ type: 'text', text: `no script for this turn of ${key ?? firstPrompt(request).slice(0, 40)}` }] };
    return typeof t === 'function' ? t(request) : t;
  };
  server = await startScriptedServer(Array.from({ length: 30 }, () => turn));
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
/** Everything the request's last message says (tool results and the attachments folded after them). */
const lastMessage = (request: RecordedRequest | undefined): string => JSON.stringify(request?.body.messages.at(-1).content ?? '');
/** The background agent's task id, from the Agent call's result in this request. */
const taskIdIn = (request: RecordedRequest): string => /task ID: (agent-[\w-]+)\)/.exec(lastMessage(request))![1]!;
const requestsOf = (key: string) => server!.messageRequests.filter((r) => firstPrompt(r).includes(key));

describe('background sub-agents through the loop', () => {
  it('is a task: TaskOutput waits for it and reads its progress; its prompts are denied with the rule, and the parent is told', async () => {
    const notes = path.join(dir, 'notes.txt');
    writeFileSync(notes, 'alpha\n');
    const target = path.join(dir, 'out.txt');
    const asked: RuntimePermissionRequest[] = [];
    const { runtime, client } = await setup(
      {
        'survey the notes': [
          call('Agent', { description: 'survey notes', prompt: 'BG-CHILD: read notes.txt and write out.txt', run_in_background: true }),
          (request) => call('TaskOutput', { task_id: taskIdIn(request), timeout: 60_000 }),
          text('The background agent is done.'),
        ],
        'BG-CHILD': [
          call('Read', { file_path: notes }),
          call('Write', { file_path: target, content: 'summary' }),
          text('Read the notes; writing out.txt was not allowed.'),
        ],
      },
      // A person is there for the main thread — but a background agent must not wait on them.
      { onPermissionRequest: async (request) => (asked.push(request), { behavior: 'allow' }) },
    );
    const result = await run({ runtime, client, prompt: 'survey the notes', model: 'claude-sonnet-4-5' });
    expect(result.stopReason).toBe('end_turn');
    expect(asked).toEqual([]);
    expect(existsSync(target)).toBe(false);

    // The child asked the API with the async-safe tools only: no Agent, no tools that need a person, no task tools.
    const childTools = (requestsOf('BG-CHILD')[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(childTools).toEqual(expect.arrayContaining(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']));
    for (const name of ['Agent', 'AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode', 'TaskOutput', 'TaskStop']) expect(childTools).not.toContain(name);
    // The child's Write was denied, naming the rule that would allow it.
    expect(lastMessage(requestsOf('BG-CHILD')[2])).toMatch(/cannot show permission prompts[\s\S]*out\.txt; to allow it, add \\"Edit\(/);

    const [, second, third] = requestsOf('survey the notes');
    expect(lastMessage(second)).toMatch(/running in the background \(task ID: agent-/);
    const taskOutput = lastMessage(third);
    expect(taskOutput).toContain('<retrieval_status>success</retrieval_status>');
    expect(taskOutput).toContain('<task_type>local_agent</task_type>');
    expect(taskOutput).toContain('<permissions_denied>1</permissions_denied>');
    expect(taskOutput).toMatch(/\[done\] Read\([^)]*notes\.txt\)/);
    expect(taskOutput).toMatch(/\[denied\] Write\([^)]*out\.txt\)/);
    expect(taskOutput).toMatch(/\[result\] Read the notes; writing out.txt was not allowed\./);
    // The end-of-task notification followed in the same turn: the denial with its rule, the transcript, the report.
    expect(taskOutput).toMatch(/<task-notification>[\s\S]*finished: 2 tool uses[\s\S]*1 permission denied/);
    expect(taskOutput).toMatch(/<denied-permissions>[\s\S]*Write\([^)]*out\.txt\): Permission denied[^<]*to allow it, add \\"Edit\(/);
    expect(taskOutput).toMatch(/<result>\\nRead the notes; writing out.txt was not allowed.\\n<\/result>/);
    expect(contextOf(runtime).services.tasks!.list()).toEqual([expect.objectContaining({ type: 'local_agent', status: 'completed' })]);
  });

  it('TaskStop stops a running background agent: its request is cut, its task is killed, no notification follows', async () => {
    const { runtime, client } = await setup({
      'start and stop': [
        call('Agent', { description: 'slow job', prompt: 'BG-SLOW', run_in_background: true }),
        (request) => call('TaskStop', { task_id: taskIdIn(request) }),
        text('stopped it'),
      ],
      'BG-SLOW': [{ content: [{ type: 'text', text: 'working…' }, { type: 'pause', ms: 60_000 }, { type: 'text', text: 'never' }] }],
    }, { rules: { allow: ['TaskStop'] } });
    const result = await run({ runtime, client, prompt: 'start and stop', model: 'claude-sonnet-4-5' });
    expect(result.stopReason).toBe('end_turn');
    const [, , third] = requestsOf('start and stop');
    expect(lastMessage(third)).toMatch(/Successfully stopped task: agent-[\w-]+ \(slow job\)/);
    expect(lastMessage(third)).not.toContain('task-notification');
    expect(contextOf(runtime).services.tasks!.list()).toEqual([expect.objectContaining({ type: 'local_agent', status: 'killed', killReason: 'stop' })]);
  });
});

describe('a foreground sub-agent’s transcript', () => {
  it('reaches the parent after the Agent result as a labelled attachment: the calls and words, not the results', async () => {
    const secret = path.join(dir, 'data.txt');
    writeFileSync(secret, 'CONTENT-ONLY-THE-CHILD-READ\n');
    const { runtime, client } = await setup({
      'look into it': [call('Agent', { description: 'look', prompt: 'FG-CHILD' }), text('ok')],
      'FG-CHILD': [
        { content: [{ type: 'text', text: 'Reading the data first.' }, { type: 'tool_use', name: 'Read', input: { file_path: secret } }] },
        call('Bash', { command: 'echo counted' }),
        text('The data has one line.'),
      ],
    }, { rules: { allow: ['Bash(echo:*)'] } });
    const result = await run({ runtime, client, prompt: 'look into it', model: 'claude-sonnet-4-5' });
    expect(result.stopReason).toBe('end_turn');
    const parentSecond = requestsOf('look into it')[1]!;
    const user = parentSecond.body.messages.at(-1);
    // One user message: the tool_result first, then the attachment.
    expect(user.content[0].type).toBe('tool_result');
    expect(JSON.stringify(user.content[0])).toContain('The data has one line.');
    const attachment = user.content.slice(1).map((b: { text?: string }) => b.text ?? '').join('\n');
    expect(attachment).toContain("A message from another agent's conversation (role: assistant)");
    expect(attachment).toMatch(/The sub-agent agent-\w+ \("look"\) as it worked/);
    expect(attachment).toMatch(/> Reading the data first\.\n- Read\([^)]*data\.txt\) → done\n- Bash\(echo counted\) → done/);
    // What the child read stays with the child; its final words are the result, not repeated.
    expect(JSON.stringify(parentSecond.body)).not.toContain('CONTENT-ONLY-THE-CHILD-READ');
    expect(attachment).not.toContain('The data has one line.');
    // The transcript is kept in the parent's conversation (and its transcript file) like any message.
    expect(JSON.stringify(result.messages)).toContain('as it worked');
    expect(readFileSync(path.join(runtime.sessionDir, 'transcript.jsonl'), 'utf8')).toContain('as it worked');
  });
});
