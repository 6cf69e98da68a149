import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { createPermissionContext, parseRules } from '../../permissions/permission-context.js';
import { runToolUse } from '../../execution/pipeline.js';
import { NotificationQueue } from '../../tool/notification-queue.js';
import type { PermissionMode } from '../../tool/permission-types.js';
import { allowAll, assistantMessage, makeContext, tempSession, textOf, toolUse } from '../../../test/helpers/execution.js';
import { makeTestTool } from '../../../test/helpers/tools.js';
import { parseAgentMarkdown, AgentDefinitionError } from './agent-definitions.js';
import { createTaskRegistry } from '../shared/task-registry.js';
import { TaskStopTool } from '../task-stop/index.js';
import { AgentTool, childMode, reloadAgentDefinitions, type SubagentRequest, type SubagentResult } from './index.js';

const session = tempSession('toolgate-agent-');
afterAll(() => session.cleanup());
beforeEach(() => reloadAgentDefinitions());

const pool = [AgentTool, makeTestTool('Read', { asyncSafe: true }), makeTestTool('Edit', { asyncSafe: true }), makeTestTool('AskUserQuestion'), makeTestTool('ExitPlanMode'), makeTestTool('Custom')];
const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function setup(options: { mode?: PermissionMode; deny?: string[]; depth?: number; homeDir?: string; run?: (r: SubagentRequest) => Promise<SubagentResult> } = {}) {
  const requests: SubagentRequest[] = [];
  const notifications = new NotificationQueue();
  const tasks = createTaskRegistry();
  const permissionContext = createPermissionContext({
    cwd: session.dir,
    homeDir: options.homeDir ?? path.join(session.dir, 'home'),
    mode: options.mode,
    rules: parseRules(options.deny ?? [], 'deny', 'session'),
  });
  const base = makeContext(pool, session.dir, {
    permissionContext,
    services: {
      notifications,
      tasks,
      subagents: {
        run: async (r) => {
          requests.push(r);
          if (options.run) return options.run(r);
          return { text: `done: ${r.prompt}`, toolUseCount: 2, durationMs: 5, usage, isError: false, stopReason: 'end_turn' };
        },
      },
    },
  });
  const context = { ...base, agentDepth: options.depth ?? 0 };
  const run = (input: Record<string, unknown>) => runToolUse(toolUse('Agent', { description: 'do it', prompt: 'task', ...input }), assistantMessage, createCanUseTool(), context);
  return { requests, notifications, tasks, run, context };
}

describe('Agent', () => {
  it('runs a general-purpose child without AskUserQuestion/plan tools and reports text, tools, usage', async () => {
    const { requests, run } = setup();
    const outcome = await run({});
    expect(outcome.isError).toBe(false);
    expect(textOf(outcome.result.content)).toContain('done: task');
    expect(textOf(outcome.result.content)).toMatch(/2 tool uses · 15 tokens/);
    expect(pool.filter(requests[0]!.tools).map((t) => t.name)).toEqual(['Agent', 'Read', 'Edit', 'Custom']);
  });

  it('the explorer is read-only: no Edit, no Agent, plan mode', async () => {
    const { requests, run } = setup();
    await run({ subagent_type: 'Explore' });
    expect(pool.filter(requests[0]!.tools).map((t) => t.name)).toEqual(['Read', 'Custom']);
    expect(requests[0]!.mode).toBe('plan');
  });

  it('at depth 2 the child (depth 3) gets no Agent; at depth 3 Agent refuses', async () => {
    const two = setup({ depth: 2 });
    await two.run({});
    expect(pool.filter(two.requests[0]!.tools).map((t) => t.name)).not.toContain('Agent');
    const three = setup({ depth: 3 });
    const refused = await three.run({});
    expect(refused.isError).toBe(true);
    expect(textOf(refused.result.content)).toMatch(/more than 3 levels/);
    expect(three.requests).toHaveLength(0);
  });

  it('loads project definitions; zero tools is an error, not a launch; unknown types are listed', async () => {
    const dir = path.join(session.dir, '.claude', 'agents');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: haiku\npermissionMode: bypassPermissions\n---\nYou review code.\n');
    writeFileSync(path.join(dir, 'empty.md'), '---\nname: empty\ndescription: Nothing\ntools: [Nope]\n---\nx\n');
    const { requests, run } = setup();
    await run({ subagent_type: 'reviewer' });
    expect(requests[0]).toMatchObject({ agentType: 'reviewer', systemPrompt: 'You review code.', model: 'claude-haiku-5-5' });
    // bypassPermissions from a file never widens a default parent.
    expect(requests[0]!.mode).toBeUndefined();
    expect(pool.filter(requests[0]!.tools).map((t) => t.name)).toEqual(['Read']);
    expect(textOf((await run({ subagent_type: 'empty' })).result.content)).toMatch(/would have no tools/);
    expect(textOf((await run({ subagent_type: 'ghost' })).result.content)).toMatch(/Unknown agent type "ghost".*reviewer/);
  });

  it('Agent(type) deny rules work, by type only', async () => {
    const { requests, run } = setup({ deny: ['Agent(Explore)'] });
    const denied = await run({ subagent_type: 'Explore' });
    expect(denied.isError).toBe(true);
    expect(textOf(denied.result.content)).toMatch(/Agent\(Explore\)/);
    expect((await run({})).isError).toBe(false);
    expect(requests.map((r) => r.agentType)).toEqual(['general-purpose']);
  });

  it('a background agent is a task: it returns at once, keeps only async-safe tools, avoids prompts, and reports its end', async () => {
    const { run, notifications, tasks, requests } = setup({
      run: async (r) => {
        r.onEvent?.({ type: 'tool_start', toolUseId: 'c1', toolName: 'Read', summary: '/x' });
        r.onEvent?.({ type: 'tool_end', toolUseId: 'c1', isError: false });
        r.onEvent?.({ type: 'tool_start', toolUseId: 'c2', toolName: 'Edit', summary: '/x' });
        r.onEvent?.({ type: 'tool_end', toolUseId: 'c2', isError: true, denied: 'Permission denied: nobody to ask; to allow it, add "Edit(/x)" to permissions.allow' });
        r.onEvent?.({ type: 'text', text: 'Could not edit /x.' });
        return { text: 'Could not edit /x.', toolUseCount: 2, durationMs: 5, usage, isError: false, stopReason: 'end_turn' };
      },
    });
    const outcome = await run({ run_in_background: true });
    const [request] = requests;
    expect(request).toMatchObject({ isAsync: true, avoidPermissionPrompts: true });
    expect(request!.signal).toBeInstanceOf(AbortSignal);
    // The seeds' async-safe set, by declaration: neither the tools that need a person, nor Agent, nor a tool that says nothing.
    expect(pool.filter(request!.tools).map((t) => t.name)).toEqual(['Read', 'Edit']);
    const text = textOf(outcome.result.content);
    expect(text).toMatch(/running in the background \(task ID: agent-\w+\)/);
    const id = /task ID: (agent-[\w-]+)\)/.exec(text)![1]!;
    const ended = await tasks.wait(id, { timeoutMs: 5_000 });
    expect(ended).toMatchObject({ type: 'local_agent', status: 'completed', facts: { tool_uses: 2, permissions_denied: 1 } });
    expect(ended!.summary).toMatch(/2 tool uses · 15 tokens · 1 permission denied/);
    expect(tasks.readOutput(id)!.text).toMatch(/\[tool\] Read\(\/x\)[\s\S]*\[denied\] Edit\(\/x\) — Permission denied[\s\S]*\[result\] Could not edit/);
    const [note] = notifications.drain();
    const body = textOf(note!.content);
    expect(body).toMatch(/"do it" \(agent-\w+\) finished/);
    expect(body).toMatch(/<denied-permissions>[\s\S]*Edit\(\/x\): Permission denied[\s\S]*add "Edit\(\/x\)" to permissions.allow/);
    expect(body).toMatch(/<transcript>\n- Read\(\/x\) → done\n- Edit\(\/x\) → denied/);
    expect(body).toMatch(/<result>\nCould not edit \/x\.\n<\/result>/);
  });

  it('a background agent with no async-safe tool is not started', async () => {
    const dir = path.join(session.dir, '.claude', 'agents');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'custom.md'), '---\nname: custom-only\ndescription: Uses Custom\ntools: Custom\n---\nx\n');
    const { run, requests } = setup();
    expect(textOf((await run({ subagent_type: 'custom-only', run_in_background: true })).result.content)).toMatch(/no tools in the background/);
    expect((await run({ subagent_type: 'custom-only' })).isError).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('TaskStop stops a background agent through its signal; no notification follows', async () => {
    const { run, notifications, tasks, context } = setup({
      run: (r) =>
        new Promise((resolve) =>
          r.signal!.addEventListener('abort', () => resolve({ text: '', toolUseCount: 0, durationMs: 1, usage, isError: true, stopReason: 'aborted' })),
        ),
    });
    const text = textOf((await run({ run_in_background: true })).result.content);
    const id = /task ID: (agent-[\w-]+)\)/.exec(text)![1]!;
    expect(tasks.get(id)?.status).toBe('running');
    const stop = await runToolUse(toolUse('TaskStop', { task_id: id }), assistantMessage, allowAll, { ...context, options: { ...context.options, tools: [TaskStopTool] } });
    expect(textOf(stop.result.content)).toBe(`Successfully stopped task: ${id} (do it)`);
    expect(tasks.get(id)).toMatchObject({ status: 'killed', killReason: 'stop' });
    expect(notifications.drain()).toEqual([]);
  });

  it('a foreground agent\'s transcript follows its result as an attachment: its calls and words, not their results', async () => {
    const { run } = setup({
      run: async (r) => {
        r.onEvent?.({ type: 'text', text: 'Looking around.' });
        r.onEvent?.({ type: 'tool_start', toolUseId: 'c1', toolName: 'Read', summary: '/secret-file-content-not-here' });
        r.onEvent?.({ type: 'tool_end', toolUseId: 'c1', isError: false });
        r.onEvent?.({ type: 'text', text: 'All good.' });
        return { text: 'All good.', toolUseCount: 1, durationMs: 5, usage, isError: false, stopReason: 'end_turn' };
      },
    });
    const outcome = await run({});
    expect(outcome.newMessages).toHaveLength(1);
    const [message] = outcome.newMessages;
    expect(message!.role).toBe('assistant');
    const body = textOf(message!.content);
    expect(body).toMatch(/^The sub-agent agent-\w+ \("do it"\) as it worked/);
    expect(body).toContain('> Looking around.\n- Read(/secret-file-content-not-here) → done');
    // The final words are the report (the tool_result): not repeated.
    expect(body).not.toContain('All good.');
  });

  it('modes: a child never gets a wider one', () => {
    expect(childMode('default', 'bypassPermissions')).toBeUndefined();
    expect(childMode('acceptEdits', 'plan')).toBe('plan');
    expect(childMode('bypassPermissions', 'acceptEdits')).toBe('acceptEdits');
    expect(childMode('plan', 'default')).toBeUndefined();
    // auto is wider than acceptEdits; plan and dontAsk do not replace each other.
    expect(childMode('acceptEdits', 'auto')).toBeUndefined();
    expect(childMode('auto', 'acceptEdits')).toBe('acceptEdits');
    expect(childMode('plan', 'dontAsk')).toBeUndefined();
    expect(childMode('dontAsk', 'plan')).toBeUndefined();
    expect(childMode('default', 'dontAsk')).toBe('dontAsk');
  });

  it('frontmatter errors name the file and the field', () => {
    expect(() => parseAgentMarkdown('no front', 'a.md', 'user')).toThrow(AgentDefinitionError);
    expect(() => parseAgentMarkdown('---\nname: x\n---\n', 'a.md', 'user')).toThrow(/a.md: "description" is required/);
    expect(() => parseAgentMarkdown('---\nname: x\ndescription: d\npermissionMode: god\n---\n', 'a.md', 'user')).toThrow(/permissionMode/);
  });
});
