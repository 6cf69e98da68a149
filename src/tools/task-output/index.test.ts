import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BashTool } from '../bash/index.js';
import type { BashOutput } from '../bash/bash-output.js';
import { callTool, makeProject, type TestProject } from '../bash/test-helpers/project.js';
import { TaskOutputTool, type TaskOutputData } from './index.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

async function background(command: string): Promise<string> {
  const r = await callTool<BashOutput>(BashTool, { command, run_in_background: true }, project.context);
  return r.data.backgroundTaskId!;
}

const output = (input: Record<string, unknown>) => callTool<TaskOutputData>(TaskOutputTool, input, project.context);

describe('TaskOutput', () => {
  it('waits for a task to end and returns its status, exit code and output', async () => {
    const id = await background(`printf 'one\\n'; sleep 0.2; printf 'two\\n'; exit 2`);
    const r = await output({ task_id: id });
    expect(r.data.retrieval_status).toBe('success');
    expect(r.data.task).toMatchObject({ status: 'failed', exit_code: 2, output: 'one\ntwo\n', truncated: false });
    expect(r.text).toContain('<status>failed</status>');
    expect(r.text).toContain('<exit_code>2</exit_code>');
    expect(r.text).toContain('<output>\none\ntwo\n</output>');
  });

  it('returns at once with block: false, and reports a timeout when the wait ends first', async () => {
    const id = await background('echo started; sleep 5');
    const now = await output({ task_id: id, block: false });
    expect(now.data.retrieval_status).toBe('not_ready');
    expect(now.data.task.status).toBe('running');
    const started = Date.now();
    const waited = await output({ task_id: id, timeout: 200 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(waited.data.retrieval_status).toBe('timeout');
    expect(waited.data.task.output).toContain('started');
  });

  it('shows only the end of a long output and points at the file', async () => {
    const small = makeProject({ settings: { bashOutputMaxChars: 4_000 } });
    try {
      const r0 = await callTool<BashOutput>(BashTool, { command: 'seq 1 10000', run_in_background: true }, small.context);
      const r = await callTool<TaskOutputData>(TaskOutputTool, { task_id: r0.data.backgroundTaskId }, small.context);
      expect(r.data.task.truncated).toBe(true);
      expect(r.data.task.output.length).toBeLessThanOrEqual(4_000);
      expect(r.data.task.output.endsWith('9999\n10000\n')).toBe(true);
      expect(r.text).toContain(r0.data.outputFile!);
    } finally {
      await small.cleanup();
    }
  });

  it('rejects an unknown task id and an out-of-range timeout with clear messages', async () => {
    expect(await TaskOutputTool.validateInput!({ task_id: 'nope' }, project.context)).toEqual({
      result: false,
      message: 'No task found with ID: nope',
      errorCode: 2,
    });
    const id = await background('true');
    expect(await TaskOutputTool.validateInput!({ task_id: id, timeout: 600_001 }, project.context)).toMatchObject({ result: false });
    expect(await TaskOutputTool.validateInput!({ task_id: id }, project.context)).toEqual({ result: true });
  });

  it('is read-only and safe to run in parallel', () => {
    expect(TaskOutputTool.isReadOnly({ task_id: 'x' })).toBe(true);
    expect(TaskOutputTool.isConcurrencySafe({ task_id: 'x' })).toBe(true);
  });
});
