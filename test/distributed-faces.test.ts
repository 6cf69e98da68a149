/**
 * Any face can run durably: `toolgate -p --backend restate=URL` prints exactly what a local run prints (the same
 * stream-json lines, ids and timings aside), and an Agent SDK program that asks for the durable backend
 * (`TOOLGATE_BACKEND`) gets the same messages — also when the worker running its session is killed mid-conversation.
 * A real Restate server, a tool pool and a session pool (`toolgate worker --sessions`), the model played by the
 * scripted server.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, type SDKMessage } from '../src/agent-sdk/index.js';
import type { RestateServer } from '../src/distributed/restate-server.js';
import { startScriptedServer, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { toolgate } from './helpers/cli.js';
import { startTestRestate, startWorkerPool, tempWorkspace, type WorkerPool } from './helpers/restate.js';

const tool = (name: string, input: Record<string, unknown>): ScriptedResponse => ({ content: [{ type: 'tool_use', name, input }] });
const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });

/** The lines with what differs between two runs of the same session replaced: ids, timings, dates. */
function normalized(lines: readonly Record<string, unknown>[]): unknown[] {
  const names = new Map<string, string>();
  const name = (value: string, kind: string) => {
    if (!names.has(value)) names.set(value, `<${kind} ${names.size}>`);
    return names.get(value)!;
  };
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    if (typeof value === 'string' && (key === 'uuid' || key === 'session_id' || key === 'timestamp')) return `<${key}>`;
    if (typeof value === 'number' && key !== undefined && /(^|_)duration|_ms$|durationMs/.test(key)) return '<ms>';
    if (typeof value === 'string' && /^(msg|toolu|req)_[A-Za-z0-9_-]+$/.test(value)) return name(value, value.split('_')[0]!);
    return value;
  };
  return lines.map((l) => walk(l));
}

describe('faces on the durable backend', () => {
  let server: RestateServer;
  let tools: WorkerPool;
  let sessions: WorkerPool;
  let model: ScriptedServer;
  const ws = tempWorkspace();
  const home = path.join(ws.dir, 'home');
  const env = () => ({ PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: path.join(ws.dir, 'state'), ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key', IS_SANDBOX: '1' });

  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(ws.dir, 'notes.txt'), 'alpha\nbeta\n');
    model = await startScriptedServer([
      // -p, locally, then on the workers: the same conversation
      tool('Read', { file_path: path.join(ws.dir, 'notes.txt') }),
      text('Two lines: alpha and beta.'),
      tool('Read', { file_path: path.join(ws.dir, 'notes.txt') }),
      text('Two lines: alpha and beta.'),
      // the Agent SDK program whose worker is killed
      ...[0, 1, 2].map((i) => tool('Bash', { command: `echo s${i} >> '${ws.markers}'; sleep 1.5` })),
      text('marked thrice'),
    ]);
    server = await startTestRestate();
    tools = await startWorkerPool(server, { processes: 2, workspace: ws.dir, markers: ws.markers });
    sessions = await startWorkerPool(server, {
      processes: 2,
      workspace: ws.dir,
      markers: ws.markers,
      fixtureTools: false,
      extraArgs: ['--sessions', '--pool', 'sessions'],
      env: env(),
    });
  }, 400_000);

  afterAll(async () => {
    await sessions?.stop();
    await tools?.stop();
    await server?.stop();
    await model?.close();
    ws.cleanup();
  }, 60_000);

  it('toolgate -p --backend restate=URL prints the stream-json lines a local run prints', async () => {
    const args = ['run', '-p', 'what is in notes.txt?', '--cwd', ws.dir, '--output-format', 'stream-json', '--verbose'];
    const local = await toolgate(args, { env: env() });
    expect(local.code, local.stderr).toBe(0);
    const durable = await toolgate([...args, '--backend', `restate=${server.ingressUrl}`], { env: env() });
    expect(durable.code, durable.stderr).toBe(0);
    expect(durable.stderr).toMatch(/toolgate run: session \S+ /);
    const lines = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines(durable.stdout).map((l) => `${l.type}:${l.subtype ?? ''}`)).toEqual(['system:init', 'assistant:', 'user:', 'assistant:', 'result:success']);
    // (--output-format json prints the last of these lines, the result: equal too.) One key differs on purpose: a
    // durable session's commands run on the workers, under their settings, so its init does not claim `sandbox_enabled`.
    const [init, ...rest] = lines(local.stdout);
    const { sandbox_enabled: sandboxEnabled, ...localInit } = init!;
    expect(sandboxEnabled).toBe(false);
    expect(lines(durable.stdout)[0]).not.toHaveProperty('sandbox_enabled');
    expect(normalized(lines(durable.stdout))).toEqual(normalized([localInit, ...rest]));
  }, 300_000);

  it('an Agent SDK program on the durable backend gets every message, though its worker is killed mid-conversation', async () => {
    const run = (async () => {
      const messages: SDKMessage[] = [];
      const q = query({
        prompt: 'mark three times',
        options: { cwd: ws.dir, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true, env: { ...env(), TOOLGATE_BACKEND: `restate=${server.ingressUrl}` } },
      });
      for await (const m of q) messages.push(m);
      return messages;
    })();
    // The second command has started: the first turn (model call and command) is finished and journaled.
    const deadline = Date.now() + 120_000;
    while (!readFileSync(ws.markers, 'utf8').includes('s1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const killed = sessions.processPids();
    expect(killed.length).toBe(2);
    for (const pid of killed) process.kill(pid, 'SIGKILL');
    const messages = await run;

    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'marked thrice', num_turns: 4 });
    // Every command's call and result is there, those of the turns taken from the journal too; each ran once.
    const calls = messages.flatMap((m) => (m.type === 'assistant' ? m.message.content : [])).filter((b) => b.type === 'tool_use');
    expect(calls).toHaveLength(3);
    const results = messages.filter((m) => m.type === 'user' && 'tool_use_result' in m);
    expect(results).toHaveLength(3);
    expect(readFileSync(ws.markers, 'utf8').trim().split('\n').filter((l) => /^s\d$/.test(l))).toEqual(['s0', 's1', 's2']);
    // Four model requests before (the -p runs), four for this session: the finished turns were not asked again.
    expect(model.messageRequests).toHaveLength(8);
  }, 300_000);
});
