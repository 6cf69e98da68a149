import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, makeProject, type TestProject } from '../bash/test-helpers/project.js';
import { createTeam, newInbox } from '../shared/team.js';
import { TaskCreateTool, TaskGetTool, TaskListTool, TaskUpdateTool, type TaskCreateOutput, type TaskGetOutput, type TaskListOutput, type TaskUpdateOutput } from './index.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

describe('the task list', () => {
  it("is the session's: a teammate (another runtime's services, the same registry) sees and claims the lead's tasks", async () => {
    const team = createTeam(project.context, 't', '', true);
    team.members.set('writer', { name: 'writer', agentId: 'agent-w', agentType: 'general-purpose', inbox: newInbox(), status: 'working' });
    const mate = { ...project.context, services: { ...project.context.services }, agentDepth: 1, agentId: 'agent-w' };
    const a = await callTool<TaskCreateOutput>(TaskCreateTool, { subject: 'Write hello.txt', description: 'one line' }, project.context);
    const b = await callTool<TaskCreateOutput>(TaskCreateTool, { subject: 'Review it', description: 'read it back' }, project.context);
    expect([a.data.task.id, b.data.task.id]).toEqual(['1', '2']);
    expect((await callTool<TaskUpdateOutput>(TaskUpdateTool, { taskId: '2', addBlockedBy: ['1'] }, project.context)).data.updatedFields).toEqual(['blockedBy']);

    const claim = await callTool<TaskUpdateOutput>(TaskUpdateTool, { taskId: '1', status: 'in_progress' }, mate);
    expect(claim.data).toMatchObject({ success: true, updatedFields: ['status', 'owner'], statusChange: { from: 'pending', to: 'in_progress' } });
    const listed = await callTool<TaskListOutput>(TaskListTool, {}, project.context);
    expect(listed.data.tasks).toEqual([
      { id: '1', subject: 'Write hello.txt', status: 'in_progress', owner: 'writer', blockedBy: [] },
      { id: '2', subject: 'Review it', status: 'pending', blockedBy: ['1'] },
    ]);
    expect(listed.text).toBe('#1 [in_progress] Write hello.txt (owner: writer)\n#2 [pending] Review it (blocked by #1)');

    await callTool(TaskUpdateTool, { taskId: '1', status: 'completed' }, mate);
    expect((await callTool<TaskListOutput>(TaskListTool, {}, mate)).data.tasks[1]!.blockedBy).toEqual([]);
    expect((await callTool<TaskGetOutput>(TaskGetTool, { taskId: '1' }, mate)).data.task).toMatchObject({ status: 'completed', blocks: ['2'], blockedBy: [] });
  });

  it('refuses unknown tasks and links; deleting takes a task out of every link; all four may run in a teammate', async () => {
    await callTool(TaskCreateTool, { subject: 'a', description: '', metadata: { keep: 1, drop: 2 } }, project.context);
    await callTool(TaskCreateTool, { subject: 'b', description: '' }, project.context);
    const missing = await callTool<TaskUpdateOutput>(TaskUpdateTool, { taskId: '9', status: 'completed' }, project.context);
    expect(missing.data).toMatchObject({ success: false, error: 'Task not found: 9' });
    expect(missing.block.is_error).toBe(true);
    expect((await callTool<TaskUpdateOutput>(TaskUpdateTool, { taskId: '1', addBlocks: ['1', '7'] }, project.context)).data.error).toBe('Not a task this one can depend on: 1, 7');
    await callTool(TaskUpdateTool, { taskId: '1', addBlocks: ['2'], metadata: { drop: null, add: 'x' } }, project.context);
    await callTool(TaskUpdateTool, { taskId: '1', status: 'deleted' }, project.context);
    expect((await callTool<TaskGetOutput>(TaskGetTool, { taskId: '1' }, project.context)).text).toBe('Task not found');
    expect((await callTool<TaskGetOutput>(TaskGetTool, { taskId: '2' }, project.context)).data.task?.blockedBy).toEqual([]);
    expect(TaskCreateTool.asyncSafe && TaskUpdateTool.asyncSafe && TaskListTool.asyncSafe && TaskGetTool.asyncSafe).toBe(true);
  });
});

describe('the task list in the session folder', () => {
  it('a resumed session (same folder, a new registry) finds the list as it was; a damaged file starts empty', async () => {
    const a = await callTool<TaskCreateOutput>(TaskCreateTool, { subject: 'Write hello.txt', description: 'one line', activeForm: 'Writing' }, project.context);
    await callTool<TaskCreateOutput>(TaskCreateTool, { subject: 'Review it', description: 'read it back' }, project.context);
    await callTool<TaskUpdateOutput>(TaskUpdateTool, { taskId: '2', addBlockedBy: [a.data.task.id], metadata: { area: 'docs' } }, project.context);
    const file = path.join(project.sessionDir, 'task-list.json');
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');

    const resumed = makeProject({ dir: project.dir });
    try {
      const listed = await callTool<TaskListOutput>(TaskListTool, {}, resumed.context);
      expect(listed.data.tasks).toEqual([
        { id: '1', subject: 'Write hello.txt', status: 'pending', blockedBy: [] },
        { id: '2', subject: 'Review it', status: 'pending', blockedBy: ['1'] },
      ]);
      expect((await callTool<TaskGetOutput>(TaskGetTool, { taskId: '2' }, resumed.context)).data.task).toMatchObject({ blockedBy: ['1'] });
      const next = await callTool<TaskCreateOutput>(TaskCreateTool, { subject: 'Third', description: 'x' }, resumed.context);
      expect(next.data.task.id).toBe('3');
    } finally {
      await resumed.tasks.shutdown();
    }

    writeFileSync(file, JSON.stringify({ version: 1, nextId: 2, tasks: [{ id: '1', subject: 7 }] }));
    const damaged = makeProject({ dir: project.dir });
    try {
      expect((await callTool<TaskListOutput>(TaskListTool, {}, damaged.context)).data.tasks).toEqual([]);
    } finally {
      await damaged.tasks.shutdown();
    }
  });
});
