/**
 * Attacker: whoever can put a `task-list.json` in a session's folder before it is resumed (the file is the session's
 * own state, written by the task tools; docs/security.md "The team's task list on disk"). What is read back is data
 * only: a file that is not exactly the list's shape starts an empty list (no crash, nothing half-loaded), and no key
 * in it reaches an object's prototype.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, makeProject, type TestProject } from '../../src/tools/bash/test-helpers/project.js';
import { TaskGetTool, TaskListTool, type TaskGetOutput, type TaskListOutput } from '../../src/tools/task-list/index.js';

let project: TestProject | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

function withFile(content: unknown): TestProject {
  project = makeProject();
  mkdirSync(project.sessionDir, { recursive: true });
  writeFileSync(path.join(project.sessionDir, 'task-list.json'), typeof content === 'string' ? content : JSON.stringify(content));
  return project;
}

const task = (over: Record<string, unknown>) => ({ id: '1', subject: 's', description: 'd', status: 'pending', blocks: [], blockedBy: [], metadata: {}, ...over });

describe('attack: a hostile task-list.json in the session folder', () => {
  const hostile: [string, unknown][] = [
    ['a status the tools never write', { version: 1, nextId: 2, tasks: [task({ status: 'deleted' })] }],
    ['an id that is not a number', { version: 1, nextId: 2, tasks: [task({ id: '../../x' })] }],
    ['the same id twice', { version: 1, nextId: 2, tasks: [task({}), task({ subject: 'other' })] }],
    ['links that are not ids', { version: 1, nextId: 2, tasks: [task({ blockedBy: [{ toString: 1 }] })] }],
    ['a next id that is not a count', { version: 1, nextId: -5, tasks: [] }],
    ['not JSON', '{"version":1,'],
  ];
  for (const [what, content] of hostile) {
    it(`${what}: an empty list`, async () => {
      const p = withFile(content);
      expect((await callTool<TaskListOutput>(TaskListTool, {}, p.context)).data.tasks).toEqual([]);
    });
  }

  it('metadata naming __proto__ stays data: no prototype is touched', async () => {
    const p = withFile(`{"version":1,"nextId":2,"tasks":[{"id":"1","subject":"s","description":"d","status":"pending","blocks":[],"blockedBy":[],"metadata":{"__proto__":{"polluted":true}}}]}`);
    const got = await callTool<TaskGetOutput>(TaskGetTool, { taskId: '1' }, p.context);
    expect(got.data.task).toMatchObject({ id: '1', subject: 's' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
