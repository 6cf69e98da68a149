import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from '../tool/build-tool.js';
import { NotificationQueue } from '../tool/notification-queue.js';
import type { AnyTool } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { makeTestTool } from '../../test/helpers/tools.js';
import { allowAll, assistantMessage, gate, makeContext, tempSession, textOf, toolUse, type TempSession } from '../../test/helpers/execution.js';
import { USER_INTERRUPT } from './abort-reasons.js';
import { StreamingToolExecutor, type ExecutorUpdate } from './streaming-tool-executor.js';
import { maxToolUseConcurrency } from './concurrency.js';

let session: TempSession;
beforeEach(() => {
  session = tempSession();
});
afterEach(() => session.cleanup());

interface Harness {
  readonly started: string[];
  readonly gates: Map<string, ReturnType<typeof gate<void>>>;
  open(value: string): void;
}

function harness(): Harness {
  const gates = new Map<string, ReturnType<typeof gate<void>>>();
  return {
    started: [],
    gates,
    open: (value) => gateFor(gates, value).open(),
  };
}

function gateFor(gates: Harness['gates'], value: string) {
  let g = gates.get(value);
  if (!g) gates.set(value, (g = gate<void>()));
  return g;
}

/** A tool whose call waits for the test to open the gate named by its input value; rejects when aborted. */
function gatedTool(name: string, h: Harness, extra: Parameters<typeof makeTestTool>[1] = {}): AnyTool {
  return makeTestTool(name, {
    call: async (input, context) => {
      const value = input.value ?? '';
      h.started.push(value);
      const signal = context.abortController.signal;
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(new Error('aborted'));
        signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true });
        void gateFor(h.gates, value).promise.then(resolve);
      });
      return { data: `${name}:${value}` };
    },
    ...extra,
  });
}

const safe = { isConcurrencySafe: () => true, isReadOnly: () => true };

async function collect(executor: StreamingToolExecutor): Promise<ExecutorUpdate[]> {
  const out: ExecutorUpdate[] = [];
  for await (const update of executor.getRemainingResults()) out.push(update);
  return out;
}

const results = (updates: ExecutorUpdate[]) => updates.flatMap((u) => (u.type === 'result' ? [u] : []));
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function executor(tools: AnyTool[], context?: ToolUseContext, options = {}) {
  const ctx = context ?? makeContext(tools, session.dir);
  return new StreamingToolExecutor(tools, allowAll, ctx, options);
}

describe('ordering and concurrency', () => {
  it('runs concurrency-safe tools together and yields results in call order', async () => {
    const h = harness();
    const read = gatedTool('Read', h, safe);
    const ex = executor([read]);
    for (const v of ['a', 'b', 'c']) ex.addTool(toolUse('Read', { value: v }, `id_${v}`), assistantMessage);
    await flush();
    expect(h.started).toEqual(['a', 'b', 'c']);
    const done = collect(ex);
    h.open('c');
    h.open('a');
    h.open('b');
    const out = results(await done);
    expect(out.map((r) => r.toolUseId)).toEqual(['id_a', 'id_b', 'id_c']);
    expect(out.map((r) => r.outcome.result.content)).toEqual(['Read:a', 'Read:b', 'Read:c']);
  });

  it('runs a tool that is not concurrency-safe alone, and nothing overtakes it', async () => {
    const h = harness();
    const write = gatedTool('Write', h);
    const read = gatedTool('Read', h, safe);
    const ex = executor([write, read]);
    ex.addTool(toolUse('Read', { value: 'r1' }), assistantMessage);
    ex.addTool(toolUse('Write', { value: 'w1' }), assistantMessage);
    ex.addTool(toolUse('Read', { value: 'r2' }), assistantMessage);
    await flush();
    expect(h.started).toEqual(['r1']);
    const done = collect(ex);
    h.open('r1');
    await flush();
    expect(h.started).toEqual(['r1', 'w1']);
    h.open('w1');
    h.open('r2');
    expect(results(await done)).toHaveLength(3);
    expect(h.started).toEqual(['r1', 'w1', 'r2']);
  });

  it('holds to the concurrency ceiling', async () => {
    const h = harness();
    const read = gatedTool('Read', h, safe);
    const ex = executor([read], undefined, { maxConcurrency: 3 });
    for (let i = 0; i < 8; i++) ex.addTool(toolUse('Read', { value: `v${i}` }), assistantMessage);
    await flush();
    expect(h.started).toEqual(['v0', 'v1', 'v2']);
    expect(ex.canExecuteTool(true)).toBe(false);
    const done = collect(ex);
    h.open('v1');
    await flush();
    await flush();
    expect(h.started).toEqual(['v0', 'v1', 'v2', 'v3']);
    for (let i = 0; i < 8; i++) h.open(`v${i}`);
    expect(results(await done)).toHaveLength(8);
  });

  it('reads the ceiling from TOOLGATE_MAX_TOOL_USE_CONCURRENCY (default 10)', () => {
    expect(maxToolUseConcurrency({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: '4' })).toBe(4);
    expect(maxToolUseConcurrency({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: 'lots' })).toBe(10);
    expect(maxToolUseConcurrency({})).toBe(10);
  });

  it("honours Claude Code's CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY; toolgate's own name wins when both are set", () => {
    expect(maxToolUseConcurrency({ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '3' })).toBe(3);
    expect(maxToolUseConcurrency({ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '3', TOOLGATE_MAX_TOOL_USE_CONCURRENCY: '5' })).toBe(5);
    expect(maxToolUseConcurrency({ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '3', TOOLGATE_MAX_TOOL_USE_CONCURRENCY: 'x' })).toBe(3);
    expect(maxToolUseConcurrency({ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '0' })).toBe(10);
  });

  it('yields progress at once, before results, and wakes on progress without polling', async () => {
    const g = gate<void>();
    const grep = makeTestTool('Grep', {
      ...safe,
      call: async (_input, _ctx, _can, _msg, onProgress) => {
        onProgress?.({ toolUseID: 'x', data: { type: 'grep_matches', count: 3 } });
        await g.promise;
        return { data: 'done' };
      },
    });
    const ex = executor([grep]);
    ex.addTool(toolUse('Grep', {}, 'id_g'), assistantMessage);
    const iterator = ex.getRemainingResults();
    const first = await iterator.next();
    expect(first.value).toMatchObject({ type: 'progress', toolUseId: 'id_g', progress: { data: { type: 'grep_matches', count: 3 } } });
    g.open();
    const second = await iterator.next();
    expect(second.value).toMatchObject({ type: 'result', toolUseId: 'id_g' });
    expect((await iterator.next()).done).toBe(true);
  });

  it('gives exactly one result per id, in order, for a mix of valid, invalid and unknown calls', async () => {
    const echo = makeTestTool('Echo', safe);
    const ex = executor([echo]);
    const blocks = [
      toolUse('Echo', { value: 'ok' }, 'a'),
      toolUse('Nope', {}, 'b'),
      toolUse('Echo', { value: 7 }, 'c'),
      toolUse('Echo', null, 'd'),
      toolUse('Echo', { value: 'ok2' }, 'e'),
    ];
    for (const b of blocks) ex.addTool(b, assistantMessage);
    const out = results(await collect(ex));
    expect(out.map((r) => r.toolUseId)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(out.map((r) => r.outcome.isError)).toEqual([false, true, true, true, false]);
  });
});

describe('context modifiers', () => {
  const setModel = (model: string) => (c: ToolUseContext) => ({ ...c, options: { ...c.options, mainLoopModel: model } });
  const addBeta = (beta: string) => (c: ToolUseContext) => ({ ...c, options: { ...c.options, betas: [...(c.options.betas ?? []), beta] } });

  it('a serial tool’s modifier applies at once: the next tool sees it', async () => {
    const seen: string[] = [];
    const mode = makeTestTool('EnterPlanMode', { call: async () => ({ data: 'ok', contextModifier: setModel('planner') }) });
    const check = makeTestTool('Check', { call: async (_i, ctx) => (seen.push(ctx.options.mainLoopModel), { data: 'ok' }) });
    const ex = executor([mode, check]);
    ex.addTool(toolUse('EnterPlanMode', {}), assistantMessage);
    ex.addTool(toolUse('Check', {}), assistantMessage);
    await collect(ex);
    expect(seen).toEqual(['planner']);
    expect(ex.getUpdatedContext().options.mainLoopModel).toBe('planner');
  });

  it('concurrent tools’ modifiers wait for the batch to end, then apply in call order', async () => {
    const h = harness();
    const seen: (readonly string[] | undefined)[] = [];
    const a = gatedTool('A', h, { ...safe, call: async () => (await gateFor(h.gates, 'a').promise, { data: 'a', contextModifier: addBeta('A') }) });
    const b = makeTestTool('B', { ...safe, call: async () => ({ data: 'b', contextModifier: addBeta('B') }) });
    const c = makeTestTool('C', { ...safe, call: async (_i, ctx) => (seen.push(ctx.options.betas), { data: 'c' }) });
    const d = makeTestTool('D', { call: async (_i, ctx) => (seen.push(ctx.options.betas), { data: 'd' }) });
    const ex = executor([a, b, c, d]);
    for (const name of ['A', 'B', 'C', 'D']) ex.addTool(toolUse(name, {}), assistantMessage);
    const done = collect(ex);
    await flush();
    h.open('a'); // B finished first; its modifier still applies after A's
    await done;
    expect(seen).toEqual([undefined, ['A', 'B']]);
  });
});

describe('sibling abort', () => {
  function bash(h: Harness, failing: (cmd: string) => boolean, concurrent = false) {
    const schema = z.object({ command: z.string() });
    return buildTool<typeof schema, string>({
      name: 'Bash',
      permissionTraits: { kind: 'shell', commandField: 'command' },
      inputSchema: schema,
      maxResultSizeChars: 30_000,
      prompt: async () => '',
      isReadOnly: (input) => input.command.startsWith('grep'),
      isConcurrencySafe: (input) => concurrent || input.command.startsWith('grep'),
      call: async (input) => {
        h.started.push(input.command);
        if (failing(input.command)) throw new Error(`Exit code 1\n${input.command}: failed`);
        return { data: 'ok' };
      },
    });
  }

  it('a failing Bash call that is not read-only cancels the calls after it, saying it was automatic, not the user', async () => {
    const h = harness();
    const read = makeTestTool('Read', safe);
    const ctx = makeContext([bash(h, (c) => c.startsWith('mkdir')), read], session.dir);
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
    ex.addTool(toolUse('Read', { value: 'before' }, 'r0'), assistantMessage);
    ex.addTool(toolUse('Bash', { command: 'mkdir /no/such/dir' }, 'b1'), assistantMessage);
    ex.addTool(toolUse('Bash', { command: 'cd /no/such/dir && make' }, 'b2'), assistantMessage);
    ex.addTool(toolUse('Read', { value: 'after' }, 'r3'), assistantMessage);
    const out = results(await collect(ex));
    expect(out.map((r) => r.toolUseId)).toEqual(['r0', 'b1', 'b2', 'r3']);
    expect(out[0]!.outcome.isError).toBe(false);
    expect(textOf(out[1]!.outcome.result.content)).toContain('Exit code 1');
    for (const cancelled of [out[2]!, out[3]!]) {
      const text = textOf(cancelled.outcome.result.content);
      expect(text).toContain('Cancelled automatically because the parallel tool call Bash(mkdir /no/such/dir) failed');
      expect(text).toContain('NOT a user interrupt');
      expect(cancelled.outcome.errorClass).toBe('sibling_cancelled');
    }
    expect(h.started).toEqual(['mkdir /no/such/dir']);
    expect(ctx.abortController.signal.aborted).toBe(false); // the turn goes on
  });

  it('a denied Bash call that is not read-only cancels the calls after it, and says it was denied', async () => {
    const h = harness();
    const ctx = makeContext([bash(h, () => false)], session.dir);
    const denyPublish: typeof allowAll = async (_tool, input) =>
      String(input.command).startsWith('npm publish')
        ? { behavior: 'deny', message: 'add "Bash(npm publish:*)" to permissions.allow', decisionReason: { layer: 'prompt', reason: 'headless' } }
        : { behavior: 'allow', updatedInput: input };
    const ex = new StreamingToolExecutor(ctx.options.tools, denyPublish, ctx);
    ex.addTool(toolUse('Bash', { command: 'npm publish' }), assistantMessage);
    ex.addTool(toolUse('Bash', { command: 'git push' }), assistantMessage);
    const out = results(await collect(ex));
    expect(textOf(out[1]!.outcome.result.content)).toContain('because the parallel tool call Bash(npm publish) was denied');
    expect(h.started).toEqual([]);
  });

  it('a failing read-only Bash call, a failing Read or a failing non-Bash write cancels nothing', async () => {
    const h = harness();
    const failingRead = makeTestTool('Read', {
      ...safe,
      call: async (input) => {
        if (input.value === 'missing') throw new Error('ENOENT');
        return { data: 'ok' };
      },
    });
    const failingWrite = makeTestTool('Write', {
      call: async () => {
        throw new Error('EACCES');
      },
    });
    const ctx = makeContext([bash(h, (c) => c.startsWith('grep')), failingRead, failingWrite], session.dir);
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
    ex.addTool(toolUse('Bash', { command: 'grep nothing file' }), assistantMessage);
    ex.addTool(toolUse('Read', { value: 'missing' }), assistantMessage);
    ex.addTool(toolUse('Write', {}), assistantMessage);
    ex.addTool(toolUse('Bash', { command: 'echo next' }), assistantMessage);
    ex.addTool(toolUse('Read', { value: 'there' }), assistantMessage);
    const out = results(await collect(ex));
    expect(out.map((r) => r.outcome.isError)).toEqual([true, true, true, false, false]);
    expect(h.started).toEqual(['grep nothing file', 'echo next']);
  });

  it('aborts siblings that are already running, through a child controller', async () => {
    const h = harness();
    const slow = gatedTool('Slow', h, safe);
    const ctx = makeContext([bash(h, () => true, true), slow], session.dir);
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
    ex.addTool(toolUse('Slow', { value: 's' }, 's1'), assistantMessage);
    ex.addTool(toolUse('Bash', { command: 'rm -r build' }, 'b1'), assistantMessage);
    const out = results(await collect(ex));
    expect(textOf(out[0]!.outcome.result.content)).toContain('because the parallel tool call Bash(rm -r build) failed');
    expect(textOf(out[1]!.outcome.result.content)).toContain('Exit code 1');
    expect(ctx.abortController.signal.aborted).toBe(false);
  });
});

describe('interrupts, discard and notifications', () => {
  it('a user interrupt cancels `cancel` tools and queued ones; `block` tools finish', async () => {
    const h = harness();
    const cancelTool = gatedTool('Cancel', h, safe);
    const blockTool = gatedTool('Block', h, { ...safe, interruptBehavior: () => 'block' });
    const later = gatedTool('Later', h);
    const ctx = makeContext([cancelTool, blockTool, later], session.dir);
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
    ex.addTool(toolUse('Cancel', { value: 'c' }, 'c'), assistantMessage);
    ex.addTool(toolUse('Block', { value: 'b' }, 'b'), assistantMessage);
    ex.addTool(toolUse('Later', { value: 'l' }, 'l'), assistantMessage);
    await flush();
    const done = collect(ex);
    ctx.abortController.abort(USER_INTERRUPT);
    await flush();
    h.open('b');
    const out = results(await done);
    expect(out.map((r) => r.toolUseId)).toEqual(['c', 'b', 'l']);
    expect(out[0]!.outcome.errorClass).toBe('user_interrupted');
    expect(out[1]!.outcome.result.content).toBe('Block:b');
    expect(out[2]!.outcome.errorClass).toBe('user_interrupted');
    expect(h.started).toEqual(['c', 'b']);
  });

  it('any other abort of the turn cancels `block` tools too', async () => {
    const h = harness();
    const blockTool = gatedTool('Block', h, { ...safe, interruptBehavior: () => 'block' });
    const ctx = makeContext([blockTool], session.dir);
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
    ex.addTool(toolUse('Block', { value: 'b' }), assistantMessage);
    await flush();
    ctx.abortController.abort();
    const out = results(await collect(ex));
    expect(out[0]!.outcome.errorClass).toBe('user_interrupted');
  });

  it('an abort that starts at a tool (a rejected prompt) ends the turn', async () => {
    const h = harness();
    const rejecting = makeTestTool('Rejecting', {
      call: async (_i, ctx) => {
        ctx.abortController.abort('user rejected');
        throw new Error('rejected');
      },
    });
    const later = gatedTool('Later', h);
    const ctx = makeContext([rejecting, later], session.dir);
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
    ex.addTool(toolUse('Rejecting', {}), assistantMessage);
    ex.addTool(toolUse('Later', { value: 'l' }), assistantMessage);
    const out = results(await collect(ex));
    expect(ctx.abortController.signal.reason).toBe('user rejected');
    expect(out[1]!.outcome.errorClass).toBe('user_interrupted');
    expect(h.started).toEqual([]);
  });

  it('answers for a cancelled tool that ignores its signal once the grace period is over', async () => {
    const stubborn = makeTestTool('Stubborn', { ...safe, call: () => new Promise(() => {}) });
    const ctx = makeContext([stubborn], session.dir);
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx, { abortGraceMs: 20 });
    ex.addTool(toolUse('Stubborn', {}), assistantMessage);
    await flush();
    ctx.abortController.abort(USER_INTERRUPT);
    const out = results(await collect(ex));
    expect(out).toHaveLength(1);
    expect(out[0]!.outcome.errorClass).toBe('user_interrupted');
  });

  it('discard() aborts running tools, starts no queued ones and yields nothing', async () => {
    const h = harness();
    let abortedReason: unknown;
    const running = makeTestTool('Running', {
      call: (_i, ctx) =>
        new Promise((_resolve, reject) => {
          h.started.push('running');
          ctx.abortController.signal.addEventListener('abort', () => ((abortedReason = ctx.abortController.signal.reason), reject(new Error('aborted'))));
        }),
    });
    const queued = gatedTool('Queued', h);
    const ctx = makeContext([running, queued], session.dir);
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
    ex.addTool(toolUse('Running', {}), assistantMessage);
    ex.addTool(toolUse('Queued', { value: 'q' }), assistantMessage);
    await flush();
    ex.discard();
    expect(await collect(ex)).toEqual([]);
    expect([...ex.getCompletedResults()]).toEqual([]);
    await flush();
    expect(abortedReason).toBeDefined();
    expect(h.started).toEqual(['running']);
    expect(ctx.abortController.signal.aborted).toBe(false);
  });

  it('drains queued notifications into the newMessages of the results it yields', async () => {
    const notifications = new NotificationQueue();
    const echo = makeTestTool('Echo', {
      call: async () => {
        notifications.push({ role: 'user', content: 'background task 7 finished' });
        return { data: 'ok' };
      },
    });
    const ctx = makeContext([echo], session.dir, { services: { notifications } });
    const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
    ex.addTool(toolUse('Echo', {}), assistantMessage);
    const out = results(await collect(ex));
    expect(out[0]!.outcome.newMessages).toEqual([{ role: 'user', content: 'background task 7 finished' }]);
    expect(notifications.size).toBe(0);
  });
});
