/**
 * Red team on Monitor: its command is a Bash background command started through `services.shellTasks`, so whatever
 * keeps a Bash background command from starting must keep Monitor's too. Real bash, real task registry.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { query } from '../../src/agent-sdk/index.js';
import type { ScriptedResponse } from '../../src/testing/index.js';
import type { ToolUseContext } from '../../src/tool/tool-use-context.js';
import { bashShellTasks } from '../../src/tools/bash/background-shell.js';
import { callTool, makeProject, type MakeContextOptions, type TestProject } from '../../src/tools/bash/test-helpers/project.js';
import { MonitorTool } from '../../src/tools/monitor/index.js';
import { startModelAndClassifier, verdict } from '../helpers/classifier-server.js';

let project: TestProject | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

function open(options: MakeContextOptions): ToolUseContext {
  project = makeProject(options);
  return { ...project.context, services: { ...project.context.services, shellTasks: bashShellTasks } };
}

describe('Monitor and the background-task switch', () => {
  it('starts nothing when background tasks are disabled (bash.disableBackgroundTasks, which a project may set too)', async () => {
    const context = open({ settings: { bash: { disableBackgroundTasks: true } } });
    await expect(callTool(MonitorTool, { description: 'x', command: 'echo started; sleep 30' }, context)).rejects.toThrow(/Background tasks are disabled/);
    expect(project!.tasks.list()).toEqual([]);
  });

  it('control: with background tasks on, the same call starts a watched task', async () => {
    const context = open({});
    const r = await callTool<{ taskId: string }>(MonitorTool, { description: 'x', command: 'echo started; sleep 30' }, context);
    expect(project!.tasks.list().map((t) => t.id)).toEqual([r.data.taskId]);
  });
});

describe("Monitor's lines reach the model redacted, on every path", () => {
  // When a turn ends with a Monitor still running, the session waits and hands the model its events as the next turn
  // (session/background.ts → runtime.takeNotifications()). The executor redacts what it drains into tool results; this
  // path took the queue's messages as they were, so a known secret a watched command printed reached the model.
  it('a watched `cat .env` that prints a known credential, delivered as the next turn of an Agent SDK session', { timeout: 120_000 }, async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-red-monitor-'));
    const repo = path.join(root, 'repo');
    const home = path.join(root, 'home');
    mkdirSync(repo, { recursive: true });
    mkdirSync(home, { recursive: true });
    const secret = 'tok-live-5f3c9a1b7e2d4c6a8b0e';
    writeFileSync(path.join(repo, '.env'), `DEPLOY_API_TOKEN=${secret}\n`);
    const call = (name: string, input: unknown): ScriptedResponse => ({ content: [{ type: 'tool_use', name, input }] });
    const say = (text: string): ScriptedResponse => ({ content: [{ type: 'text', text }] });
    const models = await startModelAndClassifier([call('Monitor', { description: 'env', command: 'cat .env', timeout_ms: 60_000 }), say('watching'), say('seen')], () => verdict('block', 'no'));
    try {
      for await (const m of query({
        prompt: 'watch the env file',
        options: {
          cwd: repo,
          model: 'claude-sonnet-4-6',
          permissionMode: 'bypassPermissions',
          allowDangerouslySkipPermissions: true,
          settingSources: [],
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: models.server.url, ANTHROPIC_API_KEY: 'sk-test', DEPLOY_API_TOKEN: secret },
        },
      })) void m;
      const sent = JSON.stringify(models.mainRequests.map((r) => r.body));
      // The case can fail: the watched lines did reach the model as a turn of their own.
      expect(sent.includes('<monitor-event'), 'the watched lines reached the model').toBe(true);
      expect(sent.includes(secret), 'the credential reached the model').toBe(false);
      expect(sent.includes('DEPLOY_API_TOKEN=[REDACTED:DEPLOY_API_TOKEN]')).toBe(true);
    } finally {
      await models.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
