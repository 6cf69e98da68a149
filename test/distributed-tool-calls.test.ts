/**
 * Durable tool calls end to end: a real Restate server from npm on 127.0.0.1, a real `toolgate worker` pool of
 * processes, the real executor and pipeline on the coordinator side. Executions are counted with marker lines the
 * tool appends when it starts, whatever process runs it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDurableToolCallBackend } from '../src/distributed/durable-tool-call-backend.js';
import { startProgressReceiver, type ProgressReceiver } from '../src/distributed/progress-channel.js';
import type { RestateServer } from '../src/distributed/restate-server.js';
import { createRestateToolEngine } from '../src/distributed/restate-tool-engine.js';
import { USER_INTERRUPT } from '../src/execution/abort-reasons.js';
import type { ToolCallBackend } from '../src/execution/backend.js';
import type { ToolUseOutcome } from '../src/execution/outcome.js';
import { StreamingToolExecutor } from '../src/execution/streaming-tool-executor.js';
import { getEmptyToolPermissionContext } from '../src/tool/permission-types.js';
import type { AssistantMessage, ToolProgress, ToolUseBlock } from '../src/tool/tool.js';
import { toolResultText } from '../src/tool/tool-result.js';
import { BashTool } from '../src/tools/bash/index.js';
import { createToolUseContext } from '../src/tool/tool-use-context.js';
import { tools } from './fixtures/distributed-tools.js';
import { toolgate } from './helpers/cli.js';
import { countExecutions, startTestRestate, startWorkerPool, tempWorkspace, type WorkerPool } from './helpers/restate.js';

const allow = async () => ({ behavior: 'allow' as const });

interface MessageRun {
  readonly ids: string[];
  readonly outcomes: ToolUseOutcome[];
  readonly progress: ToolProgress[];
}

function runMessage(
  backend: ToolCallBackend,
  workspace: string,
  sessionId: string,
  inputs: readonly Record<string, unknown>[],
  options: { maxConcurrency?: number; onResult?: (o: ToolUseOutcome) => void; abort?: AbortController } = {},
): Promise<MessageRun> {
  const blocks: ToolUseBlock[] = inputs.map((input) => ({ type: 'tool_use', id: `toolu_${String(input.id)}`, name: 'Mark', input }) as ToolUseBlock);
  const message: AssistantMessage = { role: 'assistant', content: blocks };
  const context = createToolUseContext({
    tools,
    permissionContext: { ...getEmptyToolPermissionContext(workspace), mode: 'bypassPermissions' },
    sessionDir: workspace,
    sessionId,
    abortController: options.abort,
  });
  const executor = new StreamingToolExecutor(tools, allow, context, { backend, maxConcurrency: options.maxConcurrency ?? 25, abortGraceMs: 30_000 });
  for (const block of blocks) executor.addTool(block, message);
  return (async () => {
    const outcomes: ToolUseOutcome[] = [];
    const progress: ToolProgress[] = [];
    for await (const update of executor.getRemainingResults()) {
      if (update.type === 'result') {
        outcomes.push(update.outcome);
        options.onResult?.(update.outcome);
      } else progress.push(update.progress);
    }
    return { ids: blocks.map((b) => b.id), outcomes, progress };
  })();
}

/** SIGKILLs the pool process running the most calls (ids with `prefix`, started, not finished); returns its pid. */
function killRunning(markers: string, finished: ReadonlySet<string>, prefix: string): number | undefined {
  const running = new Map<number, number>();
  for (const line of readFileSync(markers, 'utf8').split('\n')) {
    const [id, pid, tag] = line.split(' ');
    if (!id?.startsWith(prefix) || !pid || tag || finished.has(id)) continue;
    running.set(Number(pid), (running.get(Number(pid)) ?? 0) + 1);
  }
  const [pid] = [...running.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (pid !== undefined) process.kill(pid, 'SIGKILL');
  return pid;
}

describe('durable tool calls on Restate', () => {
  let server: RestateServer;
  let pool: WorkerPool;
  let progress: ProgressReceiver;
  let backend: ToolCallBackend;
  const ws = tempWorkspace();

  beforeAll(async () => {
    server = await startTestRestate();
    pool = await startWorkerPool(server, { processes: 4, workspace: ws.dir, markers: ws.markers });
    progress = await startProgressReceiver();
    backend = createDurableToolCallBackend({ engine: createRestateToolEngine({ ingressUrl: server.ingressUrl, adminUrl: server.adminUrl }), progress });
  }, 180_000);

  afterAll(async () => {
    await pool?.stop();
    await progress?.close();
    await server?.stop();
    ws.cleanup();
  }, 60_000);

  it('runs 10,000 calls over 4 worker processes, one killed with SIGKILL midway: one result each, in order, none lost, no completed call run twice', async () => {
    const MESSAGES = 100;
    const PER_MESSAGE = 100;
    const TOTAL = MESSAGES * PER_MESSAGE;
    const completedBeforeKill = new Set<string>();
    let killed: number | undefined;
    let done = 0;
    const finishedIds = new Set<string>();
    const onResult = (o: ToolUseOutcome) => {
      done++;
      finishedIds.add(o.toolUseId.slice('toolu_'.length));
      if (killed === undefined) completedBeforeKill.add(o.toolUseId);
      if (killed === undefined && done >= TOTAL * 0.3) killed = killRunning(ws.markers, finishedIds, 'm');
    };
    const runs: MessageRun[] = [];
    // Four messages at a time, 25 calls of each in flight: about a hundred calls in the pool at any moment.
    for (let m = 0; m < MESSAGES; m += 4) {
      const batch = [];
      for (let k = m; k < Math.min(MESSAGES, m + 4); k++) {
        const inputs = Array.from({ length: PER_MESSAGE }, (_, i) => ({ id: `m${k}c${i}`, retrySafe: true }));
        batch.push(runMessage(backend, ws.dir, 'big', inputs, { onResult }));
      }
      runs.push(...(await Promise.all(batch)));
    }
    expect(killed).toBeTypeOf('number');

    for (const run of runs) {
      expect(run.outcomes.map((o) => o.toolUseId)).toEqual(run.ids);
      for (const outcome of run.outcomes) {
        expect(outcome.isError, toolResultText(outcome.result)).toBe(false);
        expect(outcome.result.tool_use_id).toBe(outcome.toolUseId);
      }
    }
    const { runs: executions, pids } = countExecutions(readFileSync(ws.markers, 'utf8'));
    expect(pids.size).toBeGreaterThanOrEqual(2);
    let twice = 0;
    for (let k = 0; k < MESSAGES; k++) {
      for (let i = 0; i < PER_MESSAGE; i++) {
        const id = `m${k}c${i}`;
        const n = executions.get(id) ?? 0;
        expect(n, id).toBeGreaterThanOrEqual(1);
        if (completedBeforeKill.has(`toolu_${id}`)) expect(n, `${id} completed before the kill`).toBe(1);
        else expect(n, id).toBeLessThanOrEqual(2);
        if (n === 2) twice++;
      }
    }
    // Only calls in flight on the killed process may have run twice (they are retry-safe).
    expect(twice).toBeLessThanOrEqual(100);
  }, 600_000);

  it('never runs a call that is not retry-safe twice: cut off by a SIGKILL, it is answered as interrupted', async () => {
    // The first 20 are quick; when they have all been answered, the slow ones after them are surely still running.
    const inputs = Array.from({ length: 120 }, (_, i) => ({ id: `once${i}`, delayMs: i < 20 ? 50 : 2_000 }));
    let killed: number | undefined;
    const finished = new Set<string>();
    const run = await runMessage(backend, ws.dir, 'once', inputs, {
      maxConcurrency: 40,
      onResult: (o) => {
        finished.add(o.toolUseId.slice('toolu_'.length));
        if (finished.size === 20 && killed === undefined) killed = killRunning(ws.markers, finished, 'once');
      },
    });
    expect(killed).toBeTypeOf('number');
    expect(run.outcomes.map((o) => o.toolUseId)).toEqual(run.ids);
    const { runs: executions } = countExecutions(readFileSync(ws.markers, 'utf8'));
    let interrupted = 0;
    for (const outcome of run.outcomes) {
      const id = outcome.toolUseId.slice('toolu_'.length);
      expect(executions.get(id) ?? 0, id).toBeLessThanOrEqual(1);
      if (outcome.isError) {
        expect(toolResultText(outcome.result)).toMatch(/not safe to run twice.*may or may not have taken effect/s);
        interrupted++;
      } else {
        expect(executions.get(id)).toBe(1);
      }
    }
    expect(interrupted).toBeGreaterThan(0);
  }, 300_000);

  it('answers the same tool_use of the same session once: submitting it again returns the stored result', async () => {
    const first = await runMessage(backend, ws.dir, 'again', [{ id: 'dup1' }]);
    const second = await runMessage(backend, ws.dir, 'again', [{ id: 'dup1' }]);
    expect(toolResultText(second.outcomes[0]!.result)).toBe(toolResultText(first.outcomes[0]!.result));
    expect(countExecutions(readFileSync(ws.markers, 'utf8')).runs.get('dup1')).toBe(1);
  }, 120_000);

  it('streams progress back and refuses a workspace the workers do not serve', async () => {
    const run = await runMessage(backend, ws.dir, 'progress', [{ id: 'prog1', progress: 3 }]);
    expect(run.outcomes[0]!.isError).toBe(false);
    expect(run.progress.map((p) => p.data)).toEqual([0, 1, 2].map((i) => ({ type: 'mark_progress', i })));

    const elsewhere = await runMessage(backend, '/', 'elsewhere', [{ id: 'far1' }]);
    expect(elsewhere.outcomes[0]!.isError).toBe(true);
    expect(toolResultText(elsewhere.outcomes[0]!.result)).toMatch(/does not serve the workspace \/; nothing was run/);
    expect(countExecutions(readFileSync(ws.markers, 'utf8')).runs.has('far1')).toBe(false);
  }, 120_000);

  it('cancels the call on the worker when the turn is aborted', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const pending = runMessage(backend, ws.dir, 'abort', [{ id: 'slow1', delayMs: 60_000 }], { abort });
    while (!readFileSync(ws.markers, 'utf8').includes('slow1 ')) await new Promise((r) => setTimeout(r, 50));
    abort.abort('user');
    const run = await pending;
    expect(run.outcomes[0]!.isError).toBe(true);
    expect(Date.now() - started).toBeLessThan(55_000);
    // The worker was told: the tool saw its abort signal and stopped.
    const deadline = Date.now() + 20_000;
    while (!countExecutions(readFileSync(ws.markers, 'utf8')).aborted.has('slow1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(countExecutions(readFileSync(ws.markers, 'utf8')).aborted.has('slow1')).toBe(true);
  }, 120_000);

  it('an interrupted Bash call keeps its output and its interrupted flag through the durable backend, as locally', async () => {
    const abort = new AbortController();
    const started = path.join(ws.dir, 'bash-started');
    const context = createToolUseContext({
      tools: [BashTool],
      permissionContext: { ...getEmptyToolPermissionContext(ws.dir), mode: 'bypassPermissions' },
      sessionDir: ws.dir,
      sessionId: 'interrupted-bash',
      abortController: abort,
    });
    const block = { type: 'tool_use', id: 'toolu_bash_interrupted', name: 'Bash', input: { command: `echo output-so-far; touch ${started}; sleep 60` } } as ToolUseBlock;
    const executor = new StreamingToolExecutor([BashTool], allow, context, { backend, abortGraceMs: 30_000 });
    executor.addTool(block, { role: 'assistant', content: [block] });
    const outcomes: ToolUseOutcome[] = [];
    const done = (async () => {
      for await (const update of executor.getRemainingResults()) if (update.type === 'result') outcomes.push(update.outcome);
    })();
    while (!existsSync(started)) await new Promise((r) => setTimeout(r, 50));
    abort.abort(USER_INTERRUPT); // Esc: what a face sends
    await done;
    const text = toolResultText(outcomes[0]!.result);
    expect(text).toContain('output-so-far');
    expect(text).toContain('<error>Command was aborted before completion</error>');
    expect(text).not.toContain('the worker was told to stop');
  }, 120_000);

  it('toolgate exec --backend restate=URL runs the calls on the workers', async () => {
    const file = path.join(ws.dir, 'note.txt');
    writeFileSync(file, 'from the workspace\n');
    const input = JSON.stringify([
      { type: 'tool_use', id: 'toolu_cli_read', name: 'Read', input: { file_path: file } },
      { type: 'tool_use', id: 'toolu_cli_mark', name: 'Mark', input: { id: 'cli1' } },
    ]);
    const out = await toolgate(['exec', '--json', '--cwd', ws.dir, '--mode', 'bypassPermissions', '--backend', `restate=${server.ingressUrl}`], {
      input,
      env: { ...process.env, TOOLGATE_RESTATE_ADMIN: server.adminUrl },
    });
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('from the workspace');
    // Mark is not a built-in of the coordinator: the exec pool does not know it, so it is answered there, not run.
    expect(countExecutions(readFileSync(ws.markers, 'utf8')).runs.has('cli1')).toBe(false);
  }, 120_000);
});
