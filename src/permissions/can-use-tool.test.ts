import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { makeTestTool } from '../../test/helpers/tools.js';
import type { PermissionDecision, PermissionMode, ToolPermissionContext } from '../tool/permission-types.js';
import { createSubagentContext, createToolUseContext, type PermissionRequest, type ToolUseUICallbacks } from '../tool/tool-use-context.js';
import type { AssistantMessage } from '../tool/tool.js';
import type { ClassifierRequest } from './auto-mode.js';
import { createCanUseTool } from './can-use-tool.js';
import { explainDecision } from './explain.js';
import { addRules, createPermissionContext, enterPlanMode, exitPlanMode, parseRules } from './permission-context.js';
import { createResolveOnce } from './resolve-once.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-canuse-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Not read-only (asks unless allowed); describes its calls to a classifier.
const Deploy = makeTestTool('Deploy', { toAutoClassifierInput: (input) => `deploy ${JSON.stringify(input)}` });
const msg: AssistantMessage = { role: 'assistant', content: [] };

function setup(mode: PermissionMode, ui?: ToolUseUICallbacks, extra: Partial<Parameters<typeof createPermissionContext>[0]> = {}) {
  const permissionContext = createPermissionContext({ cwd: tmp, mode, ...extra });
  return createToolUseContext({ tools: [Deploy], permissionContext, sessionDir: tmp, ui });
}

describe('createCanUseTool', () => {
  it('headless: denies with the rule to add', async () => {
    const d = await createCanUseTool()(Deploy, {}, setup('default'), msg, 't1');
    expect(d.behavior).toBe('deny');
    // The model reads Claude Code's words; the trace (what a person reads) names the rule to add.
    expect(d.behavior === 'deny' && d.message).toBe("Claude requested permissions to use Deploy, but you haven't granted it yet.");
    expect(d.decisionReason?.reason).toMatch(/headless.*add "Deploy" to permissions\.allow/);
    expect(d.decisionReason?.layer).toBe('prompt');
  });
  it('asks the handler and returns its answer with a prompt trace', async () => {
    const seen: PermissionRequest[] = [];
    const ui = { requestPermission: async (r: PermissionRequest): Promise<PermissionDecision> => (seen.push(r), { behavior: 'allow' }) };
    const d = await createCanUseTool()(Deploy, { value: 'x' }, setup('default', ui), msg, 't2');
    expect(d).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'prompt' } });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ toolUseID: 't2', input: { value: 'x' }, ask: { behavior: 'ask' } });
  });
  it('a handler that answers ask again, or throws, denies', async () => {
    const again = { requestPermission: async (): Promise<PermissionDecision> => ({ behavior: 'ask', message: '?' }) };
    expect((await createCanUseTool()(Deploy, {}, setup('default', again), msg, 't')).behavior).toBe('deny');
    const broken = { requestPermission: async (): Promise<PermissionDecision> => { throw new Error('tty gone'); } };
    const d = await createCanUseTool()(Deploy, {}, setup('default', broken), msg, 't');
    expect(d.behavior === 'deny' && d.message).toMatch(/tty gone/);
  });
  it('dontAsk and shouldAvoidPermissionPrompts deny without asking', async () => {
    let asked = 0;
    const ui = { requestPermission: async (): Promise<PermissionDecision> => (asked++, { behavior: 'allow' }) };
    expect((await createCanUseTool()(Deploy, {}, setup('dontAsk', ui), msg, 't')).behavior).toBe('deny');
    expect((await createCanUseTool()(Deploy, {}, setup('default', ui, { shouldAvoidPermissionPrompts: true }), msg, 't')).behavior).toBe('deny');
    expect(asked).toBe(0);
  });
  it('auto: the classifier decides; its ask falls through to the prompt path', async () => {
    const requests: ClassifierRequest[] = [];
    const make = (v: 'allow' | 'deny' | 'ask') => createCanUseTool({ classifier: async (r) => (requests.push(r), v) });
    expect(await make('allow')(Deploy, {}, setup('auto'), msg, 't')).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'classifier' } });
    expect(await make('deny')(Deploy, {}, setup('auto'), msg, 't')).toMatchObject({ behavior: 'deny', decisionReason: { layer: 'classifier' } });
    const ui = { requestPermission: async (): Promise<PermissionDecision> => ({ behavior: 'deny', message: 'no', decisionReason: { layer: 'prompt', reason: 'user said no' } }) };
    expect(await make('ask')(Deploy, {}, setup('auto', ui), msg, 't')).toMatchObject({ behavior: 'deny', decisionReason: { layer: 'prompt' } });
    expect(requests).toHaveLength(3);
    // Without a classifier, auto behaves like default.
    expect((await createCanUseTool()(Deploy, {}, setup('auto'), msg, 't')).decisionReason?.layer).toBe('prompt');
  });
  it("auto: a tool that gives the classifier nothing ('') is not sent to it; a person decides", async () => {
    let called = 0;
    const Silent = makeTestTool('Silent');
    expect(Silent.toAutoClassifierInput({})).toBe('');
    const canUse = createCanUseTool({ classifier: async () => (called++, 'allow') });
    const seen: string[] = [];
    const ui = { requestPermission: async (r: PermissionRequest): Promise<PermissionDecision> => (seen.push(r.tool.name), { behavior: 'deny', message: 'no', decisionReason: { layer: 'prompt', reason: 'no' } }) };
    expect((await canUse(Silent, {}, setup('auto', ui), msg, 't')).behavior).toBe('deny');
    expect((await canUse(Silent, {}, setup('auto'), msg, 't')).decisionReason?.layer).toBe('prompt');
    expect(called).toBe(0);
    expect(seen).toEqual(['Silent']);
    expect((await canUse(Deploy, {}, setup('auto'), msg, 't')).behavior).toBe('allow');
    expect(called).toBe(1);
  });
  it('auto: adversarial-looking safety checks never reach the classifier', async () => {
    let called = 0;
    const Edit = makeTestTool('Edit', { getPath: () => `${tmp}/a\u0001b` });
    const canUse = createCanUseTool({ classifier: async () => (called++, 'allow') });
    const d = await canUse(Edit, {}, setup('auto'), msg, 't');
    expect(d.behavior).toBe('deny');
    expect(called).toBe(0);
  });
  it('auto: ask rules go to a person, not the classifier', async () => {
    let called = 0;
    const canUse = createCanUseTool({ classifier: async () => (called++, 'allow') });
    const context = setup('auto', undefined, { rules: parseRules(['Deploy'], 'ask', 'projectSettings') });
    expect((await canUse(Deploy, {}, context, msg, 't')).behavior).toBe('deny');
    expect(called).toBe(0);
  });
  it("bubble: a sub-agent's prompt goes to the parent's handler", async () => {
    const asked: string[] = [];
    const parent = setup('default', { requestPermission: async (r) => (asked.push(r.toolUseID), { behavior: 'allow' }) });
    const child = createSubagentContext(parent, {
      getAppState: () => ({ cwd: tmp, toolPermissionContext: createPermissionContext({ cwd: tmp, mode: 'bubble', shouldAvoidPermissionPrompts: true }) }),
    });
    expect((await createCanUseTool()(Deploy, {}, child, msg, 'child-1')).behavior).toBe('allow');
    expect(asked).toEqual(['child-1']);
  });
  it('forceDecision carries the hook decision', async () => {
    const hookAllow: PermissionDecision = { behavior: 'allow', decisionReason: { layer: 'hook', reason: 'ok' } };
    expect(await createCanUseTool()(Deploy, {}, setup('default'), msg, 't', hookAllow)).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'hook' } });
  });
  it('an abort while the prompt is open denies once; the late answer is ignored', async () => {
    let answer!: (d: PermissionDecision) => void;
    const context = setup('default', { requestPermission: () => new Promise((r) => (answer = r)) });
    const pending = createCanUseTool()(Deploy, {}, context, msg, 't');
    await new Promise((r) => setImmediate(r));
    context.abortController.abort();
    answer({ behavior: 'allow' });
    expect(await pending).toMatchObject({ behavior: 'deny', decisionReason: { reason: 'aborted while waiting for permission' } });
  });
  it('an answer before the abort wins', async () => {
    const context = setup('default', { requestPermission: async () => ({ behavior: 'allow' }) });
    const pending = createCanUseTool()(Deploy, {}, context, msg, 't');
    const d = await pending;
    context.abortController.abort();
    expect(d.behavior).toBe('allow');
  });
  it('an already aborted context denies without asking', async () => {
    const context = setup('default', { requestPermission: async () => ({ behavior: 'allow' }) });
    context.abortController.abort();
    expect((await createCanUseTool()(Deploy, {}, context, msg, 't')).behavior).toBe('deny');
  });
});

describe('createResolveOnce', () => {
  it('delivers once; claim() is exclusive', () => {
    const got: number[] = [];
    const once = createResolveOnce<number>((v) => got.push(v));
    expect(once.isResolved()).toBe(false);
    expect(once.claim()).toBe(true);
    expect(once.claim()).toBe(false);
    expect(once.isResolved()).toBe(true);
    once.resolve(1);
    once.resolve(2);
    expect(got).toEqual([1]);
  });
  it('resolve without claim still delivers once and blocks later claims', () => {
    const got: string[] = [];
    const once = createResolveOnce<string>((v) => got.push(v));
    once.resolve('a');
    expect(once.claim()).toBe(false);
    once.resolve('b');
    expect(got).toEqual(['a']);
  });
});

describe('permission contexts', () => {
  it('are frozen at run time, deeply', () => {
    const ctx = createPermissionContext({ cwd: tmp, additionalDirectories: ['/x'], rules: parseRules(['Bash(ls)'], 'allow', 'session') });
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(() => {
      (ctx as { mode: string }).mode = 'bypassPermissions';
    }).toThrow(TypeError);
    expect(() => (ctx.alwaysAllowRules as unknown as unknown[]).push({})).toThrow(TypeError);
    expect(() => {
      (ctx.alwaysAllowRules[0]!.ruleValue as { toolName: string }).toolName = 'Edit';
    }).toThrow(TypeError);
    expect(() => (ctx.additionalWorkingDirectories as Map<string, unknown>).set('/y', {})).toThrow(TypeError);
    expect(ctx.mode).toBe('default');
    expectTypeOf(ctx.alwaysAllowRules).toEqualTypeOf<ToolPermissionContext['alwaysAllowRules']>();
  });
  it('changes make new frozen contexts', () => {
    const a = createPermissionContext({ cwd: tmp, mode: 'acceptEdits' });
    const b = addRules(a, parseRules(['Read'], 'allow', 'session'));
    expect(b).not.toBe(a);
    expect(a.alwaysAllowRules).toHaveLength(0);
    expect(b.alwaysAllowRules).toHaveLength(1);
    expect(Object.isFrozen(b) && Object.isFrozen(b.alwaysAllowRules)).toBe(true);
  });
  it('plan mode remembers and restores the previous mode', () => {
    const a = createPermissionContext({ cwd: tmp, mode: 'acceptEdits' });
    const planned = enterPlanMode(a);
    expect(planned).toMatchObject({ mode: 'plan', prePlanMode: 'acceptEdits' });
    expect(enterPlanMode(planned)).toBe(planned);
    const back = exitPlanMode(planned);
    expect(back.mode).toBe('acceptEdits');
    expect(back.prePlanMode).toBeUndefined();
    expect(Object.isFrozen(back)).toBe(true);
    expect(exitPlanMode(createPermissionContext({ cwd: tmp, mode: 'plan' })).mode).toBe('default');
  });
});

describe('explainDecision', () => {
  it('names the layer, rule, source file and subcommand', () => {
    const text = explainDecision({
      behavior: 'deny',
      message: 'Permission denied',
      decisionReason: { layer: 'denyRule', reason: 'rm is denied', rule: 'Bash(rm:*)', source: 'projectSettings', sourceFile: '/p/.claude/settings.json', subcommand: 'rm -rf x' },
    });
    expect(text).toContain('DENY');
    expect(text).toContain('a deny rule (denyRule)');
    expect(text).toContain('Bash(rm:*)  (from projectSettings, /p/.claude/settings.json)');
    expect(text).toContain('subcommand: rm -rf x');
  });
});
