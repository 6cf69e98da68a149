/**
 * The engine-neutral seam, without any server: the wire form of a call, the worker's side with the real Read and
 * Edit tools on real files, and the backend over an in-memory engine (what another engine would implement).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runToolUse } from '../execution/pipeline.js';
import { buildTool } from '../tool/build-tool.js';
import { getEmptyToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool, Tools, ToolUseBlock } from '../tool/tool.js';
import { toolResultText } from '../tool/tool-result.js';
import { createToolUseContext, type ToolUseContext } from '../tool/tool-use-context.js';
import { loadBashParser } from '../permissions/bash/index.js';
import { BashTool } from '../tools/bash/index.js';
import { EditTool } from '../tools/edit/edit-tool.js';
import { ReadTool } from '../tools/read/read-tool.js';
import { createDurableToolCallBackend, isWorkspaceTool } from './durable-tool-call-backend.js';
import {
  applyRemoteEffects,
  deserializePermissionContext,
  executeRemoteToolCall,
  isRetrySafe,
  serializePermissionContext,
  servesWorkspace,
  toRemoteToolCall,
  type DurableToolEngine,
  type RemoteToolCall,
  type RemoteToolResult,
} from './remote-tool-call.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-remote-'));
  dirs.push(dir);
  return dir;
}

function contextFor(dir: string, tools: Tools): ToolUseContext {
  return createToolUseContext({
    tools,
    permissionContext: { ...getEmptyToolPermissionContext(dir), mode: 'bypassPermissions' },
    sessionDir: path.join(dir, '.session'),
    sessionId: 'sess-1',
  });
}

const allow = async () => ({ behavior: 'allow' as const });
const neverAborted = new AbortController().signal;

function tool(name: string, extra: Record<string, unknown> = {}): AnyTool {
  return buildTool({
    name,
    inputSchema: z.object({ v: z.string().optional() }),
    maxResultSizeChars: 1_000,
    prompt: async () => name,
    call: async (input: { v?: string }) => ({ data: `${name}:${input.v ?? ''}` }),
    ...extra,
  }) as AnyTool;
}

describe('the trait that decides a re-run after a crash', () => {
  it('is the tool’s declaration, else read-only, and fails closed when the check throws', () => {
    expect(isRetrySafe(tool('A', { isReadOnly: () => true }), {})).toBe(true);
    expect(isRetrySafe(tool('B'), {})).toBe(false);
    expect(isRetrySafe(tool('C', { isRetrySafe: () => true }), {})).toBe(true);
    expect(isRetrySafe(tool('D', { isReadOnly: () => true, isRetrySafe: () => false }), {})).toBe(false);
    expect(isRetrySafe(tool('E', { isRetrySafe: () => { throw new Error('x'); } }), {})).toBe(false);
    expect(isRetrySafe(EditTool as AnyTool, {})).toBe(true);
  });

  it('sends workspace tools (by permission traits) to workers and keeps the others here', () => {
    expect(isWorkspaceTool(EditTool as AnyTool)).toBe(true);
    expect(isWorkspaceTool(tool('Shellish', { permissionTraits: { kind: 'shell' } }))).toBe(true);
    expect(isWorkspaceTool(tool('Todo'))).toBe(false);
    expect(isWorkspaceTool(tool('Mcpish', { permissionTraits: { kind: 'read' }, isMcp: true }))).toBe(false);
  });
});

describe('the wire form', () => {
  it('round-trips the permission context through JSON', () => {
    const ctx = getEmptyToolPermissionContext('/w');
    const withDirs = { ...ctx, additionalWorkingDirectories: new Map([['/x', { path: '/x', source: 'session' as const }]]) };
    const back = deserializePermissionContext(JSON.parse(JSON.stringify(serializePermissionContext(withDirs))));
    expect([...back.additionalWorkingDirectories.entries()]).toEqual([['/x', { path: '/x', source: 'session' }]]);
    expect(back.cwd).toBe('/w');
  });

  it('carries the coordinator’s judgement of whether the call may run twice (a worker never re-derives it)', async () => {
    const dir = workspace();
    const ctx = contextFor(dir, [BashTool as AnyTool]);
    // The coordinator's pipeline has loaded the parser before a call reaches the backend: it sees a read.
    await loadBashParser();
    const read = toRemoteToolCall(BashTool as AnyTool, { command: 'sleep 3; cat f' }, 'toolu_1', ctx);
    const write = toRemoteToolCall(BashTool as AnyTool, { command: 'sleep 3; echo x >> f' }, 'toolu_2', ctx);
    expect(JSON.parse(JSON.stringify(read)).retrySafe).toBe(true);
    expect(JSON.parse(JSON.stringify(write)).retrySafe).toBe(false);
    expect(toRemoteToolCall(tool('Plain'), {}, 'toolu_3', ctx).retrySafe).toBe(false);
  });

  it('serves a workspace and the folders below it, nothing beside it', () => {
    expect(servesWorkspace(['/srv/a'], '/srv/a')).toBe(true);
    expect(servesWorkspace(['/srv/a'], '/srv/a/b/c')).toBe(true);
    expect(servesWorkspace(['/srv/a'], '/srv/ab')).toBe(false);
    expect(servesWorkspace(['/srv/a'], '/srv')).toBe(false);
  });
});

describe('a worker running decided calls', () => {
  it('reads on the worker, edits with the coordinator’s read record, and refuses to apply the same edit twice', async () => {
    const dir = workspace();
    const file = path.join(dir, 'a.txt');
    writeFileSync(file, 'hello world\n');
    const tools: Tools = [ReadTool as AnyTool, EditTool as AnyTool];
    const coordinator = contextFor(dir, tools);
    const run = (call: RemoteToolCall) => executeRemoteToolCall(JSON.parse(JSON.stringify(call)) as RemoteToolCall, { tools, workspaces: [dir], signal: neverAborted });

    const read = await run(toRemoteToolCall(ReadTool as AnyTool, { file_path: file }, 'toolu_r', coordinator));
    expect(read.ok).toBe(true);
    applyRemoteEffects(read as Extract<RemoteToolResult, { ok: true }>, coordinator);
    expect(coordinator.readFileState.get(file)?.contentHash).toMatch(/^[0-9a-f]{64}$/);

    const edit = toRemoteToolCall(EditTool as AnyTool, { file_path: file, old_string: 'world', new_string: 'there' }, 'toolu_e', coordinator);
    expect(edit.fileState?.path).toBe(file);
    const first = await run(edit);
    expect(first.ok).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('hello there\n');
    // A crash after the edit, before its result was recorded: the retry gets the same call and finds the file changed.
    const again = await run(edit);
    expect(again.ok).toBe(false);
    expect(again.ok ? '' : again.error.message).toMatch(/modified since read/);
    expect(readFileSync(file, 'utf8')).toBe('hello there\n');
  });

  it('runs nothing for a tool it does not have or a workspace it does not serve', async () => {
    const dir = workspace();
    const ran: string[] = [];
    const t = tool('T', { call: async () => (ran.push('T'), { data: 'x' }) });
    const call = toRemoteToolCall(t, {}, 'toolu_1', contextFor(dir, [t]));
    const unknown = await executeRemoteToolCall(call, { tools: [], workspaces: [dir], signal: neverAborted, workerName: 'w1' });
    expect(unknown).toMatchObject({ ok: false, error: { message: 'The worker w1 has no tool named T; nothing was run.' } });
    const elsewhere = await executeRemoteToolCall(call, { tools: [t], workspaces: [path.join(dir, 'other')], signal: neverAborted });
    expect(elsewhere.ok ? '' : elsewhere.error.message).toMatch(/does not serve the workspace/);
    expect(ran).toEqual([]);
  });
  it('gives the tool the caller’s own controller when it is given, else one that follows the signal', async () => {
    const dir = workspace();
    const seen: AbortController[] = [];
    // Aborts its own controller when asked, as a tool that gives up may: that must reach whoever holds the signal.
    const t = tool('T', { call: async (input: { v?: string }, context: ToolUseContext) => {
      seen.push(context.abortController);
      if (input.v === 'stop') context.abortController.abort('stopped');
      return { data: context.abortController.signal.aborted ? 'aborted' : 'running' };
    } });
    const call = (v: string) => JSON.parse(JSON.stringify(toRemoteToolCall(t, { v }, `toolu_${v}`, contextFor(dir, [t])))) as RemoteToolCall;

    const own = new AbortController();
    const ran = await executeRemoteToolCall(call('go'), { tools: [t], workspaces: [dir], signal: own.signal, abortController: own });
    expect(ran).toMatchObject({ ok: true, data: 'running' });
    expect(seen[0]).toBe(own);
    await executeRemoteToolCall(call('stop'), { tools: [t], workspaces: [dir], signal: own.signal, abortController: own });
    expect(own.signal.aborted).toBe(true);

    // A controller that is not the signal's is not taken: the tool gets its own, which follows the signal.
    const other = new AbortController();
    const outside = new AbortController();
    outside.abort('turn aborted');
    const followed = await executeRemoteToolCall(call('go'), { tools: [t], workspaces: [dir], signal: outside.signal, abortController: other });
    expect(followed).toMatchObject({ ok: true, data: 'aborted' });
    expect(seen[2]).not.toBe(other);
    expect(other.signal.aborted).toBe(false);
  });
});

describe('the durable backend over any engine', () => {
  /** An engine in memory: runs each idempotency key once, like a durable engine must. */
  function memoryEngine(tools: Tools, dir: string, interruptedKeys = new Set<string>()): DurableToolEngine & { runs: Map<string, number> } {
    const results = new Map<string, Promise<RemoteToolResult>>();
    const runs = new Map<string, number>();
    return {
      name: 'memory',
      runs,
      submit(call, { idempotencyKey, signal }) {
        if (interruptedKeys.has(idempotencyKey)) return Promise.resolve({ ok: false, interrupted: true, error: { message: 'cut off' } });
        let result = results.get(idempotencyKey);
        if (!result) {
          runs.set(idempotencyKey, (runs.get(idempotencyKey) ?? 0) + 1);
          result = executeRemoteToolCall(JSON.parse(JSON.stringify(call)) as RemoteToolCall, { tools, workspaces: [dir], signal });
          results.set(idempotencyKey, result);
        }
        return result;
      },
    };
  }

  it('runs workspace tools through the engine once per tool_use, keeps session tools local, reports interruptions', async () => {
    const dir = workspace();
    const local: string[] = [];
    const remoteTool = tool('W', { permissionTraits: { kind: 'write' } });
    const sessionTool = tool('S', { call: async () => (local.push('S'), { data: 'here' }) });
    const tools: Tools = [remoteTool, sessionTool];
    const engine = memoryEngine([remoteTool], dir, new Set(['sess-1/toolu_cut']));
    const backend = createDurableToolCallBackend({ engine });
    const context = contextFor(dir, tools);
    const block = (id: string, name: string) => ({ type: 'tool_use', id, name, input: { v: id } }) as ToolUseBlock;
    const message = { role: 'assistant' as const, content: [] };

    const w = await runToolUse(block('toolu_w', 'W'), message, allow, context, { backend });
    const wAgain = await runToolUse(block('toolu_w', 'W'), message, allow, context, { backend });
    expect(toolResultText(w.result)).toBe('W:toolu_w');
    expect(toolResultText(wAgain.result)).toBe('W:toolu_w');
    expect(engine.runs.get('sess-1/toolu_w')).toBe(1);

    const s = await runToolUse(block('toolu_s', 'S'), message, allow, context, { backend });
    expect(toolResultText(s.result)).toBe('here');
    expect(local).toEqual(['S']);

    const cut = await runToolUse(block('toolu_cut', 'W'), message, allow, context, { backend });
    expect(cut.isError).toBe(true);
    expect(toolResultText(cut.result)).toMatch(/cut off/);
  });
});
