import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { createPermissionContext } from '../../permissions/permission-context.js';
import { runToolUse } from '../../execution/pipeline.js';
import { NotificationQueue } from '../../tool/notification-queue.js';
import { assistantMessage, makeContext, tempSession, textOf, toolUse } from '../../../test/helpers/execution.js';
import { makeTestTool } from '../../../test/helpers/tools.js';
import { createTaskRegistry } from '../shared/task-registry.js';
import { currentTeam } from '../shared/team.js';
import { AgentTool, type SubagentRequest } from './index.js';

const session = tempSession('toolgate-teammate-');
afterAll(() => session.cleanup());
const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function setup(depth = 0) {
  const requests: SubagentRequest[] = [];
  const notifications = new NotificationQueue();
  const tasks = createTaskRegistry();
  const permissionContext = createPermissionContext({ cwd: session.dir, homeDir: path.join(session.dir, 'home') });
  const base = makeContext([AgentTool, makeTestTool('Read', { asyncSafe: true }), makeTestTool('AskUserQuestion')], session.dir, {
    permissionContext,
    services: {
      notifications,
      tasks,
      subagents: {
        // A teammate that reports once, then waits for its inbox until it is stopped.
        run: async (r) => {
          requests.push(r);
          r.onTurnEnd?.('first report');
          await new Promise<void>((resolve) => r.signal!.addEventListener('abort', () => resolve()));
          return { text: 'first report', toolUseCount: 0, durationMs: 1, usage, isError: false, stopReason: 'aborted' };
        },
      },
    },
  });
  const context = { ...base, agentDepth: depth };
  const run = (input: Record<string, unknown>) => runToolUse(toolUse('Agent', { description: 'do it', prompt: 'task', ...input }), assistantMessage, createCanUseTool(), context);
  return { requests, notifications, tasks, run, context };
}

describe('Agent with a name: a teammate', () => {
  it('runs in the background with its own inbox, joins the team, is listed by name, and its turn-end words reach the lead marked', async () => {
    const { requests, notifications, tasks, run, context } = setup();
    const outcome = await run({ name: 'writer' });
    expect(textOf(outcome.result.content)).toMatch(/^The teammate "writer" \(task ID: agent-writer-\w+\) is working in the background/);
    const [request] = requests;
    expect(request).toMatchObject({ isAsync: true, avoidPermissionPrompts: true });
    expect(request!.inbox).toBeInstanceOf(NotificationQueue);
    expect(request!.inbox).not.toBe(notifications);
    expect(request!.systemPrompt).toContain('You are "writer", a teammate');
    // Background tools only: no AskUserQuestion, no Agent.
    expect([AgentTool, makeTestTool('Read', { asyncSafe: true }), makeTestTool('AskUserQuestion')].filter(request!.tools).map((t) => t.name)).toEqual(['Read']);
    const team = currentTeam(context)!;
    expect(team.members.get('writer')).toMatchObject({ agentId: request!.agentId, status: 'idle' });
    expect(tasks.get(request!.agentId)).toMatchObject({ label: 'writer: do it', status: 'running', type: 'local_agent' });
    const [report] = notifications.drain();
    expect(JSON.stringify(report)).toContain('<teammate-message from=\\"writer\\" summary=\\"turn ended; waiting for messages\\">\\nfirst report');

    // The name is taken while it runs; once stopped, it is free again.
    expect(textOf((await run({ name: 'writer' })).result.content)).toMatch(/A teammate named "writer" is already running/);
    await tasks.stop(request!.agentId);
    expect(team.members.get('writer')!.status).toBe('ended');
    expect((await run({ name: 'writer' })).isError).toBe(false);
    await tasks.shutdown();
  });

  it('only the lead starts teammates, under a usable name', async () => {
    const sub = setup(1);
    expect(textOf((await sub.run({ name: 'helper' })).result.content)).toMatch(/Only the lead/);
    expect(sub.requests).toHaveLength(0);
    const lead = setup();
    expect(textOf((await lead.run({ name: 'team-lead' })).result.content)).toMatch(/is the lead's name/);
    expect(textOf((await lead.run({ name: 'a b' })).result.content)).toMatch(/not a usable teammate name/);
    expect(lead.requests).toHaveLength(0);
  });
});
