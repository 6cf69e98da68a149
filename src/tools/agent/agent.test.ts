import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { createPermissionContext, parseRules } from '../../permissions/permission-context.js';
import { runToolUse } from '../../execution/pipeline.js';
import { NotificationQueue } from '../../tool/notification-queue.js';
import type { PermissionMode } from '../../tool/permission-types.js';
import { assistantMessage, makeContext, tempSession, textOf, toolUse } from '../../../test/helpers/execution.js';
import { makeTestTool } from '../../../test/helpers/tools.js';
import { parseAgentMarkdown, AgentDefinitionError } from './agent-definitions.js';
import { AgentTool, childMode, reloadAgentDefinitions, type SubagentRequest } from './index.js';

const session = tempSession('toolgate-agent-');
afterAll(() => session.cleanup());
beforeEach(() => reloadAgentDefinitions());

const pool = [AgentTool, makeTestTool('Read'), makeTestTool('Edit'), makeTestTool('AskUserQuestion'), makeTestTool('ExitPlanMode')];
const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function setup(options: { mode?: PermissionMode; deny?: string[]; depth?: number; homeDir?: string } = {}) {
  const requests: SubagentRequest[] = [];
  const notifications = new NotificationQueue();
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
      subagents: {
        run: async (r) => {
          requests.push(r);
          return { text: `done: ${r.prompt}`, toolUseCount: 2, durationMs: 5, usage, isError: false, stopReason: 'end_turn' };
        },
      },
    },
  });
  const context = { ...base, agentDepth: options.depth ?? 0 };
  const run = (input: Record<string, unknown>) => runToolUse(toolUse('Agent', { description: 'do it', prompt: 'task', ...input }), assistantMessage, createCanUseTool(), context);
  return { requests, notifications, run, context };
}

describe('Agent', () => {
  it('runs a general-purpose child without AskUserQuestion/plan tools and reports text, tools, usage', async () => {
    const { requests, run } = setup();
    const outcome = await run({});
    expect(outcome.isError).toBe(false);
    expect(textOf(outcome.result.content)).toContain('done: task');
    expect(textOf(outcome.result.content)).toMatch(/2 tool uses · 15 tokens/);
    expect(pool.filter(requests[0]!.tools).map((t) => t.name)).toEqual(['Agent', 'Read', 'Edit']);
  });

  it('the explorer is read-only: no Edit, no Agent, plan mode', async () => {
    const { requests, run } = setup();
    await run({ subagent_type: 'Explore' });
    expect(pool.filter(requests[0]!.tools).map((t) => t.name)).toEqual(['Read']);
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

  it('a background agent returns at once and reports through the notification queue', async () => {
    const { run, notifications } = setup();
    const outcome = await run({ run_in_background: true, name: 'bg' });
    expect(textOf(outcome.result.content)).toMatch(/running in the background/);
    await new Promise((r) => setImmediate(r));
    const [note] = notifications.drain();
    expect(textOf(note!.content)).toMatch(/finished[\s\S]*done: task/);
  });

  it('modes: a child never gets a wider one', () => {
    expect(childMode('default', 'bypassPermissions')).toBeUndefined();
    expect(childMode('acceptEdits', 'plan')).toBe('plan');
    expect(childMode('bypassPermissions', 'acceptEdits')).toBe('acceptEdits');
    expect(childMode('plan', 'default')).toBeUndefined();
  });

  it('frontmatter errors name the file and the field', () => {
    expect(() => parseAgentMarkdown('no front', 'a.md', 'user')).toThrow(AgentDefinitionError);
    expect(() => parseAgentMarkdown('---\nname: x\n---\n', 'a.md', 'user')).toThrow(/a.md: "description" is required/);
    expect(() => parseAgentMarkdown('---\nname: x\ndescription: d\npermissionMode: god\n---\n', 'a.md', 'user')).toThrow(/permissionMode/);
  });
});
