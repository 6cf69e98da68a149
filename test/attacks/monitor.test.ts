/**
 * Red team on Monitor: its command is a Bash background command started through `services.shellTasks`, so whatever
 * keeps a Bash background command from starting must keep Monitor's too. Real bash, real task registry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolUseContext } from '../../src/tool/tool-use-context.js';
import { bashShellTasks } from '../../src/tools/bash/background-shell.js';
import { callTool, makeProject, type MakeContextOptions, type TestProject } from '../../src/tools/bash/test-helpers/project.js';
import { MonitorTool } from '../../src/tools/monitor/index.js';

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
