/**
 * Durable sessions: the agent loop as a Restate virtual object on a `toolgate worker --sessions` pool, the model
 * played by the scripted server (`toolgate/testing`), tool calls on a separate tool pool. The session's processes are
 * killed with SIGKILL in the middle of the conversation; Restate resumes it on the restarted processes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestateServer } from '../src/distributed/restate-server.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { toolgate } from './helpers/cli.js';
import { countExecutions, startTestRestate, startWorkerPool, tempWorkspace, type WorkerPool } from './helpers/restate.js';

describe('a durable session', () => {
  let server: RestateServer;
  let tools: WorkerPool;
  let sessions: WorkerPool;
  let model: ScriptedServer;
  const ws = tempWorkspace();

  beforeAll(async () => {
    model = await startScriptedServer([
      ...[0, 1, 2].map((i) => ({ content: [{ type: 'tool_use' as const, name: 'Mark', input: { id: `s${i}`, delayMs: 1_500 } }] })),
      { content: [{ type: 'text' as const, text: 'done' }] },
      { content: [{ type: 'text' as const, text: 'second answer' }] },
    ]);
    server = await startTestRestate();
    tools = await startWorkerPool(server, { processes: 2, workspace: ws.dir, markers: ws.markers });
    sessions = await startWorkerPool(server, {
      processes: 2,
      workspace: ws.dir,
      markers: ws.markers,
      extraArgs: ['--sessions', '--pool', 'sessions'],
      env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key', XDG_STATE_HOME: path.join(ws.dir, 'state') },
    });
  }, 400_000);

  afterAll(async () => {
    await sessions?.stop();
    await tools?.stop();
    await server?.stop();
    await model?.close();
    ws.cleanup();
  }, 60_000);

  it('resumes after its process is killed mid-conversation: no finished tool call repeated, no finished model call paid twice', async () => {
    const sent = await fetch(`${server.ingressUrl}/ToolgateSession/sess-1/run/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'sess-1-prompt-1' },
      body: JSON.stringify({ prompt: 'mark three times', cwd: ws.dir, mode: 'bypassPermissions' }),
    });
    const { invocationId } = (await sent.json()) as { invocationId: string };
    expect(invocationId).toMatch(/^inv_/);

    // The second tool call has started: the first turn (model call and tool call) is finished and journaled.
    const deadline = Date.now() + 120_000;
    while (!readFileSync(ws.markers, 'utf8').includes('s1 ') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const killed = sessions.processPids();
    expect(killed.length).toBe(2);
    for (const pid of killed) process.kill(pid, 'SIGKILL');

    const attached = await fetch(`${server.ingressUrl}/restate/invocation/${invocationId}/attach`, { signal: AbortSignal.timeout(180_000) });
    const result = (await attached.json()) as { stopReason: string; text: string; turns: number };
    expect(result).toMatchObject({ stopReason: 'end_turn', text: 'done', turns: 4 });

    const { runs } = countExecutions(readFileSync(ws.markers, 'utf8'));
    expect(['s0', 's1', 's2'].map((id) => runs.get(id))).toEqual([1, 1, 1]);
    // Four turns, four model requests: the ones finished before the kill came from the journal.
    expect(model.messageRequests.length).toBe(4);

    const messages = (await (
      await fetch(`${server.ingressUrl}/ToolgateSession/sess-1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()) as { role: string; content: unknown }[];
    const toolResults = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; is_error?: boolean }[]) : [])).filter((b) => b.type === 'tool_result');
    expect(toolResults).toHaveLength(3);
    expect(toolResults.every((b) => b.is_error !== true)).toBe(true);
  }, 300_000);

  it('toolgate run --resume ID --backend restate=URL continues the conversation on the workers', async () => {
    const out = await toolgate(['run', '-p', '--backend', `restate=${server.ingressUrl}`, '--resume', 'sess-1', '--cwd', ws.dir, 'and now?']);
    expect(out.stdout).toBe('second answer\n');
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('session sess-1');
    // The fifth request carries the whole conversation: the session's state, not this process's.
    expect(model.messageRequests.length).toBe(5);
    expect((model.messageRequests[4]!.body as { messages: unknown[] }).messages.length).toBe(9);
  }, 120_000);
});
