import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { makeProgressTool, makeTestTool } from '../../test/helpers/tools.js';
import { buildTool } from '../tool/build-tool.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../tool/tool.js';
import { createToolRuntime } from './create-tool-runtime.js';
import { SettingsLoadError } from './runtime-settings.js';
import { defaultSessionDir } from './session-dir.js';
import type { RuntimePermissionRequest, ToolProvider, ToolRuntime } from './types.js';
import { contextOf } from './runtime-context.js';

let dir: string;
let sessionDir: string;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-runtime-'));
  sessionDir = path.join(dir, '.session');
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function runtime(options: Parameters<typeof createToolRuntime>[0] = {}): Promise<ToolRuntime> {
  const r = await createToolRuntime({ cwd: dir, sessionDir, ...options, settings: { sources: [], ...options.settings } });
  runtimes.push(r);
  return r;
}

let ids = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: 'tool_use', id: `toolu_${++ids}`, name, input }) as ToolUseBlock;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

describe('createToolRuntime', () => {
  it('runs an assistant message through the real pipeline: one result per tool_use, in call order', async () => {
    writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
    const rt = await runtime({ rules: { allow: ['Bash(echo:*)'] } });
    const blocks = [use('Read', { file_path: path.join(dir, 'a.txt') }), use('Bash', { command: 'echo hello' }), use('Nope', {})];
    const result = await rt.run({ role: 'assistant', content: [{ type: 'text', text: 'hi', citations: null }, ...blocks] } as never);
    expect(result.results.map((r) => r.tool_use_id)).toEqual(blocks.map((b) => b.id));
    expect(text(result.results[0]!)).toContain('alpha');
    expect(text(result.results[1]!)).toContain('hello');
    expect(result.results[2]!.is_error).toBe(true);
    expect(result.message.role).toBe('user');
    expect((result.message.content as unknown[]).slice(0, 3)).toEqual(result.results);
  });

  it('call() receives its own tool_use id on the context, for concurrent calls and for a single runToolUse', async () => {
    const seen: [string, string | undefined][] = [];
    const Probe = buildTool({
      name: 'Probe',
      inputSchema: z.object({ tag: z.string() }),
      maxResultSizeChars: 1_000,
      prompt: async () => 'probe',
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      call: async ({ tag }, context) => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push([tag, context.toolUseId]);
        return { data: tag };
      },
    });
    const rt = await runtime({ tools: [Probe], rules: { allow: ['Probe'] } });
    const blocks = ['a', 'b', 'c'].map((tag) => use('Probe', { tag }));
    await rt.run(blocks);
    expect(Object.fromEntries(seen)).toEqual({ a: blocks[0]!.id, b: blocks[1]!.id, c: blocks[2]!.id });
    // Between calls the runtime's context names no call.
    expect(contextOf(rt).toolUseId).toBeUndefined();
  });

  it('a run may bring its own permission handler: its calls ask it; the runtime stays headless for other runs', async () => {
    const rt = await runtime();
    const asked: RuntimePermissionRequest[] = [];
    const first = await rt.run([use('Bash', { command: 'touch ./per-run' })], {
      onPermissionRequest: async (request) => {
        asked.push(request);
        return { behavior: 'allow', scope: 'once' };
      },
    });
    expect(first.results[0]!.is_error).not.toBe(true);
    expect(existsSync(path.join(dir, 'per-run'))).toBe(true);
    expect(asked.map((r) => r.toolUseID)).toEqual([first.results[0]!.tool_use_id]);
    // The handler went with its run: the next run is headless again.
    const second = await rt.run([use('Bash', { command: 'touch ./after' })]);
    expect(second.results[0]!.is_error).toBe(true);
    expect(text(second.results[0]!)).toMatch(/headless/);
    expect(contextOf(rt).ui?.requestPermission).toBeUndefined();
    expect(contextOf(rt).options.isNonInteractiveSession).toBe(true);
  });

  it('headless: what would prompt is denied, naming the rule that would allow it', async () => {
    const rt = await runtime();
    const { results } = await rt.run([use('Bash', { command: 'touch ./x' })]);
    expect(results[0]!.is_error).toBe(true);
    expect(text(results[0]!)).toMatch(/headless.*Bash\(touch:\*\)/);
  });

  it('settings as an object and as files reach the tools (env, rules); sources: [] reads no home file', async () => {
    const home = path.join(dir, 'home');
    writeFileSync(path.join(dir, 'extra.json'), JSON.stringify({ permissions: { allow: ['Bash(printf:*)'] } }));
    const rt = await runtime({
      settings: { object: { env: { FOO_FROM_SETTINGS: 'bar' } }, files: ['extra.json'], sources: [], homeDir: home },
    });
    expect(rt.env).toEqual({ FOO_FROM_SETTINGS: 'bar' });
    const { results } = await rt.run([use('Bash', { command: 'printf "%s" "$FOO_FROM_SETTINGS"' })]);
    expect(text(results[0]!)).toBe('bar');
  });

  it('a settings error stops the runtime from starting (fail closed)', async () => {
    await expect(runtime({ settings: { object: { permissions: { allow: ['Bash(('] } } } })).rejects.toBeInstanceOf(SettingsLoadError);
  });

  it('a session answer adds the rule for later calls; once asks again', async () => {
    const asked: RuntimePermissionRequest[] = [];
    let scope: 'once' | 'session' = 'once';
    const rt = await runtime({
      onPermissionRequest: async (request) => {
        asked.push(request);
        return scope === 'once' ? { behavior: 'allow' } : { behavior: 'allow', scope: 'session' };
      },
    });
    await rt.run([use('Bash', { command: 'touch ./one' })]);
    await rt.run([use('Bash', { command: 'touch ./two' })]);
    expect(asked).toHaveLength(2);
    // The narrowest rule that covers the call: exactly this command, not a prefix.
    expect(asked[0]!.suggestedRules).toEqual(['Bash(touch ./one)']);
    scope = 'session';
    await rt.run([use('Bash', { command: 'touch ./three' })]);
    const { results } = await rt.run([use('Bash', { command: 'touch ./three' })]);
    expect(asked).toHaveLength(3);
    expect(results[0]!.is_error).toBeFalsy();
    expect(rt.permissionContext.alwaysAllowRules.some((r) => r.source === 'session' && r.ruleValue.ruleContent === 'touch ./three')).toBe(true);
    await rt.run([use('Bash', { command: 'touch ./four' })]);
    expect(asked).toHaveLength(4);
  });

  it('a rule answer fails closed without a writer, and goes through persistRules when there is one', async () => {
    const rt = await runtime({ onPermissionRequest: async () => ({ behavior: 'allow', scope: 'rule', destination: 'localSettings' }) });
    const denied = await rt.run([use('Bash', { command: 'touch a' })]);
    expect(denied.results[0]!.is_error).toBe(true);
    expect(text(denied.results[0]!)).toMatch(/persistRules/);
    const saved: unknown[] = [];
    const rt2 = await runtime({
      onPermissionRequest: async () => ({ behavior: 'allow', scope: 'rule', destination: 'localSettings', rules: ['Bash(touch:*)'] }),
      persistRules: async (request) => void saved.push(request),
    });
    const allowed = await rt2.run([use('Bash', { command: 'touch b' })]);
    expect(allowed.results[0]!.is_error).toBeFalsy();
    expect(saved).toEqual([{ rules: ['Bash(touch:*)'], destination: 'localSettings', cwd: dir }]);
  });

  it('deny with interrupt stops the rest of the run', async () => {
    const rt = await runtime({ onPermissionRequest: async () => ({ behavior: 'deny', message: 'no way', interrupt: true }) });
    const run = await rt.run([use('Bash', { command: 'touch a' }), use('Bash', { command: 'touch b' })]);
    // The run is interrupted: the refusal stands as the denied call's result, the call after it says it was
    // interrupted, and neither ran.
    expect(run.interrupted).toBe(true);
    expect(run.results.map((r) => r.is_error)).toEqual([true, true]);
    expect(text(run.results[0]!)).toContain('no way');
    expect(text(run.results[1]!)).toMatch(/interrupted/i);
    expect(existsSync(path.join(dir, 'a'))).toBe(false);
    expect(existsSync(path.join(dir, 'b'))).toBe(false);
  });

});

describe('createToolRuntime: streaming runs', () => {
  it('begin(): a block starts as soon as it is added, before the message is complete', async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const Slow = makeTestTool('Slow', {
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      call: async (input) => {
        started.push(input.value ?? '');
        await gate;
        return { data: `done ${input.value}` };
      },
    });
    const rt = await runtime({ tools: [Slow] });
    const handle = rt.begin({ role: 'assistant', content: [] });
    const events = handle.events();
    const first = events.next();
    handle.add(use('Slow', { value: 'a' }));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a']);
    handle.add(use('Slow', { value: 'b' }));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b']);
    release();
    handle.finish();
    const seen = [await first];
    for (let e = await events.next(); !e.done; e = await events.next()) seen.push(e);
    const types = seen.map((e) => (e.value as { type: string }).type);
    expect(types).toEqual(['result', 'result', 'done']);
  });

  it('a result is yielded when its call completes, before finish(), whenever the blocks and finish() fall between passes', async () => {
    const Quick = makeTestTool('Quick', { isReadOnly: () => true, isConcurrencySafe: () => true });
    const rt = await runtime({ tools: [Quick], rules: { allow: ['Quick'] } });
    const handle = rt.begin({ role: 'assistant', content: [] });
    const events = handle.events();
    const first = events.next(); // its first look finds no block yet
    handle.add(use('Quick', { value: 'a' }));
    // Before finish(): a wake-up that came before anyone waited for it would leave this waiting (and the test with it).
    expect((await first).value).toMatchObject({ type: 'result' });
    const next = events.next();
    handle.add(use('Quick', { value: 'b' }));
    handle.finish();
    const seen = [(await next).value];
    for (let e = await events.next(); !e.done; e = await events.next()) seen.push(e.value);
    expect(seen.map((e) => (e as { type: string }).type)).toEqual(['result', 'done']);
    const done = seen.at(-1) as { type: 'done'; result: { results: { tool_use_id: string }[] } };
    expect(done.result.results).toHaveLength(2);
  });

  it('discard(): nothing more is yielded and a running tool is stopped', async () => {
    let aborted = false;
    const Hang = makeTestTool('Hang', {
      call: (_input, ctx) =>
        new Promise((resolve) => ctx.abortController.signal.addEventListener('abort', () => ((aborted = true), resolve({ data: 'x' })))),
    });
    const rt = await runtime({ tools: [Hang], rules: { allow: ['Hang'] } });
    const handle = rt.begin({ role: 'assistant', content: [] });
    handle.add(use('Hang', {}));
    const events = handle.events();
    const pending = events.next();
    await new Promise((r) => setImmediate(r));
    handle.discard();
    expect((await pending).done).toBe(true);
    expect(aborted).toBe(true);
  });

  it('context modifiers of one run are seen by the next', async () => {
    const Mark = buildTool({
      name: 'Mark',
      inputSchema: z.object({}),
      maxResultSizeChars: 1000,
      prompt: async () => 'marks',
      call: async () => ({
        data: 'marked',
        contextModifier: (ctx) => ({ ...ctx, options: { ...ctx.options, loadedDeferredTools: new Set(['Marked']) } }),
      }),
    });
    const Look = makeTestTool('Look', { call: async (_i, ctx) => ({ data: [...(ctx.options.loadedDeferredTools ?? [])].join(',') || 'none' }) });
    const rt = await runtime({ tools: [Mark, Look], rules: { allow: ['Mark', 'Look'] } });
    await rt.run([use('Mark', {})]);
    const { results } = await rt.run([use('Look', {})]);
    expect(text(results[0]!)).toBe('Marked');
  });

});

describe('createToolRuntime: the pool, children and lifetime', () => {
  it('definitions are byte-identical while the pool is unchanged; refreshTools adds provider tools after the built-ins', async () => {
    let extra = false;
    let disposed = 0;
    const provider: ToolProvider = {
      name: 'fake',
      getTools: async () => (extra ? [makeTestTool('mcp__srv__b', { isMcp: true }), makeTestTool('mcp__srv__a', { isMcp: true })] : []),
      dispose: async () => void disposed++,
    };
    const rt = await runtime({ toolProviders: [provider] });
    const a = JSON.stringify(await rt.definitions({ model: 'claude-sonnet-4-5' }));
    await rt.refreshTools();
    expect(JSON.stringify(await rt.definitions({ model: 'claude-sonnet-4-5' }))).toBe(a);
    const builtIns = rt.tools.map((t) => t.name);
    extra = true;
    await rt.refreshTools();
    const names = rt.tools.map((t) => t.name);
    expect(names.slice(0, builtIns.length)).toEqual(builtIns);
    expect(names.slice(builtIns.length)).toEqual(['mcp__srv__a', 'mcp__srv__b']);
    expect(JSON.stringify(await rt.definitions({ model: 'claude-sonnet-4-5' }))).not.toBe(a);
    await rt.dispose();
    await rt.dispose();
    expect(disposed).toBe(1);
  });

  it('finished runs leave no abort listener on the runtime (a long-lived runtime does not leak one per run)', async () => {
    writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
    const rt = await runtime();
    const before = getEventListeners(contextOf(rt).abortController.signal, 'abort').length;
    for (let i = 0; i < 25; i++) await rt.run([use('Read', { file_path: path.join(dir, 'a.txt') })]);
    expect(getEventListeners(contextOf(rt).abortController.signal, 'abort').length).toBe(before);
  });

  it('stream() hands the tools a progress callback and yields their progress; run() and progress: false ask for none', async () => {
    const asked: boolean[] = [];
    const Ticker = makeProgressTool(asked);
    const rt = await runtime({ tools: [Ticker], rules: { allow: ['Ticker'] } });
    const kinds = async (options = {}) => {
      const seen: string[] = [];
      for await (const event of rt.stream([use('Ticker', {})], options)) seen.push(event.type);
      return seen;
    };
    expect(await kinds()).toEqual(['progress', 'result', 'done']);
    expect(await kinds({ progress: false })).toEqual(['result', 'done']);
    expect(text((await rt.run([use('Ticker', {})])).results[0]!)).toBe('ticked');
    expect(asked).toEqual([true, false, false]);
  });

  it('findTool knows names and aliases', async () => {
    const rt = await runtime();
    expect(rt.findTool('KillShell')?.name).toBe('TaskStop');
    expect(rt.findTool('Read')?.name).toBe('Read');
    expect(rt.findTool('nothing')).toBeUndefined();
  });

  it('dispose() ends background tasks and refuses new runs', async () => {
    const rt = await runtime({ rules: { allow: ['Bash(sleep:*)'] } });
    const { results } = await rt.run([use('Bash', { command: 'sleep 30', run_in_background: true })]);
    expect(results[0]!.is_error).toBeFalsy();
    const tasks = contextOf(rt).services.tasks!;
    expect(tasks.list().some((t) => t.status === 'running')).toBe(true);
    await rt.dispose();
    expect(tasks.list().every((t) => t.status !== 'running')).toBe(true);
    expect(() => rt.begin({ role: 'assistant', content: [] })).toThrow(/disposed/);
  });

  it('child(): filtered tools, its own agentId on permission requests, shared services and session rules', async () => {
    const asked: RuntimePermissionRequest[] = [];
    const rt = await runtime({
      onPermissionRequest: async (request) => (asked.push(request), { behavior: 'allow', scope: 'session' }),
    });
    const child = await rt.child({ agentId: 'helper-1', tools: ['Bash', 'Read'] });
    expect(child.tools.map((t) => t.name)).toEqual(['Bash', 'Read']);
    expect(contextOf(child).services).toBe(contextOf(rt).services);
    expect(contextOf(child).agentDepth).toBe(1);
    await child.run([use('Bash', { command: 'touch ./from-child' })]);
    expect(asked.map((r) => r.agentId)).toEqual(['helper-1']);
    // The session answer a sub-agent got holds for the parent too (the narrowest rule: that very command).
    const { results } = await rt.run([use('Bash', { command: 'touch ./from-child' })]);
    expect(results[0]!.is_error).toBeFalsy();
    expect(asked).toHaveLength(1);
    const planChild = await rt.child({ mode: 'plan' });
    expect(planChild.permissionContext.mode).toBe('plan');
    expect(rt.permissionContext.mode).toBe('default');
  });

  it('hooks given in-process run beside settings hooks', async () => {
    const rt = await runtime({
      rules: { allow: ['Bash'] },
      hooks: [{ event: 'PreToolUse', matcher: 'Bash', callback: async () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'policy says no' } }) }],
    });
    const { results } = await rt.run([use('Bash', { command: 'echo hi' })]);
    expect(results[0]!.is_error).toBe(true);
    expect(text(results[0]!)).toMatch(/policy says no/);
  });

  it('the default session folder is under the XDG state directory', () => {
    expect(defaultSessionDir('abc', { XDG_STATE_HOME: '/state' })).toBe('/state/toolgate/sessions/abc');
    expect(defaultSessionDir('abc', {}, '/home/u')).toBe('/home/u/.local/state/toolgate/sessions/abc');
    expect(() => defaultSessionDir('../x', {})).toThrow(/cannot name a folder/);
  });

  it('the signal given at creation aborts the runtime', async () => {
    const controller = new AbortController();
    const rt = await runtime({ signal: controller.signal, rules: { allow: ['Bash(sleep:*)'] } });
    const pending = rt.run([use('Bash', { command: 'sleep 30' })]);
    setTimeout(() => controller.abort('stop'), 200);
    const { results } = await pending;
    expect(results[0]!.is_error).toBe(true);
  });
});

describe('session start', () => {
  it('removes temp files that dead writers left in the working directories, not a live writer’s, not deeper down', async () => {
    const dead = 2 ** 22 + 4321; // above the largest pid_max: no such process
    const extra = mkdtempSync(path.join(os.tmpdir(), 'toolgate-runtime-extra-'));
    try {
      mkdirSync(path.join(dir, 'sub'));
      const stale = path.join(dir, `.a.txt.${dead}.0123456789ab.tmp`);
      const staleExtra = path.join(extra, `.b.txt.${dead}.0123456789ab.tmp`);
      const live = path.join(dir, `.c.txt.${process.pid}.0123456789ab.tmp`);
      const deeper = path.join(dir, 'sub', `.d.txt.${dead}.0123456789ab.tmp`);
      const lookalike = path.join(dir, `.e.txt.${dead}.not-hex.tmp`);
      for (const f of [stale, staleExtra, live, deeper, lookalike]) writeFileSync(f, 'partial');
      await runtime({ additionalDirectories: [extra] });
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(staleExtra)).toBe(false);
      expect(existsSync(live)).toBe(true);
      // Not recursive (start-up stays cheap): the next write into that folder removes it.
      expect(existsSync(deeper)).toBe(true);
      expect(existsSync(lookalike)).toBe(true);
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
  });
});
