import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { runToolUse } from '../../execution/pipeline.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { assistantMessage, makeContext, tempSession, textOf, toolUse } from '../../../test/helpers/execution.js';
import type { ToolQuestionRequest } from '../shared/questions.js';
import { WriteTool } from '../write/write-tool.js';
import { AskUserQuestionTool } from '../ask-user-question/index.js';
import { TodoWriteTool, getTodos } from '../todo-write/index.js';
import { EnterPlanModeTool, ExitPlanModeTool } from './index.js';

const session = tempSession('toolgate-plan-');
afterAll(() => session.cleanup());
const tools = [EnterPlanModeTool, ExitPlanModeTool, WriteTool, AskUserQuestionTool, TodoWriteTool];
const canUseTool = createCanUseTool();

async function run(context: ToolUseContext, name: string, input: unknown) {
  const outcome = await runToolUse(toolUse(name, input), assistantMessage, canUseTool, context);
  return { outcome, context: outcome.contextModifier ? outcome.contextModifier(context) : context, text: textOf(outcome.result.content) };
}

describe('plan mode', () => {
  it('is entered, denies writes, and is left with the person’s approval, restoring the previous mode', async () => {
    const asked: ToolQuestionRequest[] = [];
    let ctx = makeContext(tools, session.dir, {
      ui: { askQuestion: async (r) => (asked.push(r), { action: 'accept' }) },
    });
    ctx.setAppState((s) => ({ ...s, toolPermissionContext: { ...s.toolPermissionContext, mode: 'acceptEdits' } }));
    const file = path.join(session.dir, 'plan.txt');

    ({ context: ctx } = await run(ctx, 'EnterPlanMode', {}));
    expect(ctx.getAppState().toolPermissionContext.mode).toBe('plan');
    const write = await run(ctx, 'Write', { file_path: file, content: 'x' });
    expect(write.outcome.isError).toBe(true);
    expect(write.text).toMatch(/plan mode/);
    expect(existsSync(file)).toBe(false);
    // TodoWrite stays usable: it changes nothing outside the session.
    expect((await run(ctx, 'TodoWrite', { todos: [{ content: 'Plan', status: 'in_progress', activeForm: 'Planning' }] })).outcome.isError).toBe(false);

    const exit = await run(ctx, 'ExitPlanMode', { plan: '1. write plan.txt' });
    expect(exit.outcome.isError).toBe(false);
    expect(asked).toMatchObject([{ kind: 'plan-approval', message: '1. write plan.txt' }]);
    ctx = exit.context;
    expect(ctx.getAppState().toolPermissionContext.mode).toBe('acceptEdits');
    expect((await run(ctx, 'Write', { file_path: file, content: 'x' })).outcome.isError).toBe(false);
    expect(existsSync(file)).toBe(true);
  });

  it('stays in plan mode when the plan is rejected, or when no one can approve (headless)', async () => {
    let ctx = makeContext(tools, session.dir, { ui: { askQuestion: async () => ({ action: 'decline', message: 'add tests' }) } });
    ({ context: ctx } = await run(ctx, 'EnterPlanMode', {}));
    const rejected = await run(ctx, 'ExitPlanMode', { plan: 'p' });
    expect(rejected.outcome.isError).toBe(true);
    expect(rejected.text).toContain('add tests');
    expect(rejected.context.getAppState().toolPermissionContext.mode).toBe('plan');

    let headless = makeContext(tools, session.dir);
    ({ context: headless } = await run(headless, 'EnterPlanMode', {}));
    const noOne = await run(headless, 'ExitPlanMode', { plan: 'p' });
    expect(noOne.outcome.isError).toBe(true);
    expect(noOne.text).toMatch(/No one can approve/);
    expect(headless.getAppState().toolPermissionContext.mode).toBe('plan');
  });

  it('ExitPlanMode outside plan mode and EnterPlanMode twice are refused', async () => {
    let ctx = makeContext(tools, session.dir);
    expect((await run(ctx, 'ExitPlanMode', {})).text).toMatch(/Not in plan mode/);
    ({ context: ctx } = await run(ctx, 'EnterPlanMode', {}));
    expect((await run(ctx, 'EnterPlanMode', {})).text).toMatch(/Already in plan mode/);
  });
});

describe('AskUserQuestion', () => {
  const q = { question: 'Which database?', header: 'Database', options: [{ label: 'Postgres', description: 'relational' }, { label: 'SQLite', description: 'a file' }] };

  it('answers through the question handler', async () => {
    const ctx = makeContext(tools, session.dir, { ui: { askQuestion: async () => ({ action: 'accept', answers: { 'Which database?': 'SQLite' } }) } });
    const { outcome, text } = await run(ctx, 'AskUserQuestion', { questions: [q] });
    expect(outcome.isError).toBe(false);
    expect(text).toContain('"Which database?" = "SQLite"');
  });

  it('headless: an error that says no one can answer, at once', async () => {
    const { outcome, text } = await run(makeContext(tools, session.dir), 'AskUserQuestion', { questions: [q] });
    expect(outcome.isError).toBe(true);
    expect(text).toMatch(/No one can answer/);
  });

  it('refuses 5 questions, 1 option, 5 options and a long header', async () => {
    const ctx = makeContext(tools, session.dir, { ui: { askQuestion: async () => ({ action: 'accept' }) } });
    const opt = (label: string) => ({ label, description: label });
    for (const questions of [
      Array.from({ length: 5 }, (_, i) => ({ ...q, question: `q${i}?` })),
      [{ ...q, options: [opt('a')] }],
      [{ ...q, options: ['a', 'b', 'c', 'd', 'e'].map(opt) }],
      [{ ...q, header: 'A header far too long' }],
    ]) {
      expect((await run(ctx, 'AskUserQuestion', { questions })).outcome.isError).toBe(true);
    }
  });
});

describe('TodoWrite', () => {
  it('replaces the list per agent, shows it to the UI, clears it when all are completed', async () => {
    const seen: { n: number; agent: string | undefined }[] = [];
    const ctx = makeContext(tools, session.dir, { ui: { onTodosChanged: (t, agent) => seen.push({ n: t.length, agent }) } });
    const item = (content: string, status: string) => ({ content, status, activeForm: `${content}ing` });
    await run(ctx, 'TodoWrite', { todos: [item('a', 'in_progress'), item('b', 'pending')] });
    expect(getTodos(ctx).map((t) => t.content)).toEqual(['a', 'b']);
    const child = { ...ctx, agentId: 'agent-x' };
    await run(child, 'TodoWrite', { todos: [item('c', 'pending')] });
    expect(getTodos(ctx).length).toBe(2);
    expect(getTodos(child).map((t) => t.content)).toEqual(['c']);
    const done = await run(ctx, 'TodoWrite', { todos: [item('a', 'completed'), item('b', 'completed')] });
    expect(done.text).toMatch(/todo list is updated/);
    expect(getTodos(ctx)).toEqual([]);
    expect(seen).toEqual([{ n: 2, agent: undefined }, { n: 1, agent: 'agent-x' }, { n: 0, agent: undefined }]);
  });
});
