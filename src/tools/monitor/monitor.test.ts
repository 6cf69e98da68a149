import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolvePermission } from '../../permissions/resolve.js';
import { filterToolsByDenyRules } from '../../permissions/tool-rule-match.js';
import type { PermissionRule, ToolPermissionContext } from '../../tool/permission-types.js';
import type { MessageParam } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { bashShellTasks } from '../bash/background-shell.js';
import { detectSandbox } from '../bash/sandbox.js';
import { shutdownSandboxRuntime } from '../bash/sandbox-runtime.js';
import { callTool, makeProject, waitFor, type MakeContextOptions, type TestProject } from '../bash/test-helpers/project.js';
import { TaskStopTool } from '../task-stop/index.js';
import { MonitorTool, type MonitorOutput } from './index.js';

const availability = await detectSandbox();
// Written reason for skipping: the sandbox case runs a real command under bubblewrap (apt packages bubblewrap and
// socat; .ci/run installs them); without them only the unsandboxed cases run.
if (!availability.available) console.warn(`Monitor sandbox test skipped: ${availability.reason}`);

let project: TestProject;
let context: ToolUseContext;
const open = (options: MakeContextOptions = {}) => {
  project = makeProject({ ...options, settings: { monitor: { pollIntervalMs: 30 }, ...options.settings } });
  context = { ...project.context, services: { ...project.context.services, shellTasks: bashShellTasks } };
};
beforeEach(() => open());
afterEach(async () => {
  await project.cleanup();
});
afterAll(async () => {
  await shutdownSandboxRuntime();
});

const monitor = (input: Record<string, unknown>) => callTool<MonitorOutput>(MonitorTool, input, context);
const texts = (messages: readonly MessageParam[]) =>
  messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')));

/** The messages the session's queue got, until one says the watch ended. */
async function untilEnded(): Promise<string[]> {
  const got: string[] = [];
  await waitFor(() => {
    got.push(...texts(project.notifications.drain()));
    return got.some((t) => t.startsWith('<monitor-ended'));
  }, 20_000, 'the end of the watch');
  return got;
}

const rule = (behavior: PermissionRule['ruleBehavior'], toolName: string, ruleContent?: string): PermissionRule => ({
  source: 'session',
  ruleBehavior: behavior,
  ruleValue: ruleContent === undefined ? { toolName } : { toolName, ruleContent },
});

describe('Monitor', () => {
  it('delivers each line the command prints as an event, in order, then says the command exited', async () => {
    const r = await monitor({ description: 'count', command: 'for i in 1 2 3; do echo "line $i"; sleep 0.2; done; printf tail', timeout_ms: 60_000 });
    expect(r.data).toMatchObject({ timeoutMs: 60_000, description: 'count' });
    expect(r.data.backgroundTaskId).toBe(r.data.taskId);
    expect(r.text).toContain(`Monitor started (task ID: ${r.data.taskId})`);
    const got = await untilEnded();
    const events = got.filter((t) => t.startsWith('<monitor-event'));
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.every((t) => t.includes(`task="${r.data.taskId}" description="count"`))).toBe(true);
    const lines = events.flatMap((t) => t.split('\n').slice(1, -1));
    expect(lines).toEqual(['line 1', 'line 2', 'line 3', 'tail']);
    expect(got.at(-1)).toContain('The watch ended: the command exited (exit code 0)');
    // The Bash task's own end-of-task message does not come as well: the watch reported the end.
    expect(got.filter((t) => t.includes('<task-notification>'))).toEqual([]);
    expect(project.tasks.get(r.data.taskId)?.status).toBe('completed');
  });

  it('ends the command at its deadline and says so; a deadline above the cap is shortened', async () => {
    const r = await monitor({ description: 'ticks', command: 'while true; do echo tick; sleep 0.1; done', timeout_ms: 600 });
    const got = await untilEnded();
    expect(got.some((t) => t.includes('tick'))).toBe(true);
    expect(got.at(-1)).toContain('its deadline of 1s passed and the command was ended');
    expect(project.tasks.get(r.data.taskId)).toMatchObject({ status: 'killed', killReason: 'lifetime' });
    const long = await monitor({ description: 'long', command: 'sleep 60', timeout_ms: 99_000_000 });
    expect(long.data.timeoutMs).toBe(1_800_000);
    await callTool(TaskStopTool, { task_id: long.data.taskId }, context);
  });

  it('TaskStop ends the watch without an end event (the model asked for it)', async () => {
    const r = await monitor({ description: 'idle', command: 'sleep 60' });
    const stop = await callTool(TaskStopTool, { task_id: r.data.taskId }, context);
    expect(stop.text).toContain(`Successfully stopped task: ${r.data.taskId}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(texts(project.notifications.drain()).filter((t) => t.startsWith('<monitor-ended'))).toEqual([]);
  });

  it('floods are summarised per event; every line stays in the output file', async () => {
    const r = await monitor({ description: 'flood', command: 'seq 1 5000' });
    const got = await untilEnded();
    const events = got.filter((t) => t.startsWith('<monitor-event'));
    expect(events.join('\n')).toMatch(/\(\d+ more lines in .*\.output\)/);
    expect(events.every((t) => t.split('\n').length <= 100 + 3)).toBe(true);
    expect(existsSync(r.data.outputFile)).toBe(true);
  });

  it('refuses a WebSocket watch, an empty command, and a session without the shell task service', async () => {
    await expect(monitor({ description: 'x', ws: { url: 'ws://127.0.0.1:1' } })).rejects.toThrow(/not supported by toolgate/);
    await expect(monitor({ description: 'x', command: ' ' })).rejects.toThrow(/Give the command/);
    await expect(callTool(MonitorTool, { description: 'x', command: 'echo hi' }, project.context)).rejects.toThrow(/no shell task service/);
  });

  it.skipIf(!availability.available)('runs its command in the same sandbox as Bash', async () => {
    await project.cleanup();
    open({ settings: { sandbox: { enabled: true } } });
    const outside = path.join(path.dirname(project.dir), `toolgate-monitor-outside-${process.pid}`);
    const r = await monitor({ description: 'write outside', command: `touch ${outside} 2>&1 || echo refused; touch ./inside && echo inside-ok` });
    expect(r.data.sandboxed).toBe(true);
    const got = await untilEnded();
    expect(got.join('\n')).toContain('inside-ok');
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(path.join(project.dir, 'inside'))).toBe(true);
  });
});

describe("Monitor's command is judged as a Bash command", () => {
  const ctxWith = (rules: Partial<Pick<ToolPermissionContext, 'alwaysAllowRules' | 'alwaysDenyRules' | 'alwaysAskRules'>>, mode?: ToolPermissionContext['mode']): ToolPermissionContext => ({
    ...project.context.getAppState().toolPermissionContext,
    ...rules,
    ...(mode ? { mode } : {}),
  });
  const decide = (command: string, ctx: ToolPermissionContext) => resolvePermission(MonitorTool, { description: 'd', command }, ctx, { runToolCheck: () => MonitorTool.checkPermissions({ description: 'd', command }, context) });

  it("Bash's deny and ask rules apply to it as well as its own; its allow rules are its own; read-only commands need none", async () => {
    expect((await decide('tail -f app.log', ctxWith({}))).behavior).toBe('allow');
    expect((await decide('npm test', ctxWith({}))).behavior).toBe('ask');
    expect((await decide('npm test', ctxWith({ alwaysAllowRules: [rule('allow', 'Monitor', 'npm test')] }))).behavior).toBe('allow');
    // Fail closed: an allow written for Bash is not stretched to another tool.
    expect((await decide('npm test', ctxWith({ alwaysAllowRules: [rule('allow', 'Bash', 'npm test')] }))).behavior).toBe('ask');
    expect((await decide('npm test', ctxWith({ alwaysAllowRules: [rule('allow', 'Bash')] }))).behavior).toBe('ask');
    expect((await decide('npm test', ctxWith({ alwaysDenyRules: [rule('deny', 'Bash', 'npm:*')] }))).behavior).toBe('deny');
    expect((await decide('npm test', ctxWith({ alwaysDenyRules: [rule('deny', 'Monitor', 'npm:*')] }))).behavior).toBe('deny');
    expect((await decide('npm test', ctxWith({ alwaysAskRules: [rule('ask', 'Bash')], alwaysAllowRules: [rule('allow', 'Monitor')] }))).behavior).toBe('ask');
    expect((await decide('rm -rf build', ctxWith({ alwaysDenyRules: [rule('deny', 'Bash', 'rm:*')] }, 'bypassPermissions'))).behavior).toBe('deny');
  });

  it('a whole-tool Bash deny takes Monitor out of the pool too', () => {
    const ctx = ctxWith({ alwaysDenyRules: [rule('deny', 'Bash')] });
    expect(filterToolsByDenyRules([MonitorTool], ctx)).toEqual([]);
    expect(filterToolsByDenyRules([MonitorTool], ctxWith({}))).toEqual([MonitorTool]);
  });
});
