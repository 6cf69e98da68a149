import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { TaskOutputTool, type TaskOutputData } from './index.js';

const options = { columns: 80, verbose: false, cwd: '/' };
const task = (over: Partial<TaskOutputData['task']>): TaskOutputData['task'] => ({
  task_id: 'b1',
  task_type: 'local_bash',
  status: 'completed',
  command: 'npm test',
  exit_code: 0,
  signal: null,
  summary: 'exit code 0',
  output: '',
  output_file: '/tmp/b1.out',
  truncated: false,
  output_bytes: 0,
  ...over,
});

describe('TaskOutput views', () => {
  it('draw the task id, then its state, exit and the last lines of its output', async () => {
    const views = await TaskOutputTool.loadViews!();
    expect(render(<Box>{views.renderToolUseMessage!({ task_id: 'b1', block: false }, options)}</Box>).lastFrame()).toBe('b1 (no wait)');
    const draw = (data: TaskOutputData, verbose = false) => render(<Box>{views.renderToolResultMessage!(data, [], { ...options, verbose, input: {} })}</Box>).lastFrame();
    const output = Array.from({ length: 8 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    expect(draw({ retrieval_status: 'success', task: task({ status: 'failed', exit_code: 2, summary: 'exit code 2', output }) })).toBe(
      'failed · exit code 2\n… 3 earlier lines\nline 4\nline 5\nline 6\nline 7\nline 8',
    );
    expect(draw({ retrieval_status: 'success', task: task({ output }) }, true)!.split('\n')).toHaveLength(9);
    expect(draw({ retrieval_status: 'timeout', task: task({ status: 'running', exit_code: null, summary: undefined }) })).toBe('running · still running after the wait');
  });
});
