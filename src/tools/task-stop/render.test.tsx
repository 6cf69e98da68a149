import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { TaskStopTool } from './index.js';

describe('TaskStop views', () => {
  it('draw the task id, then the command that was stopped', async () => {
    const views = await TaskStopTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: '/' };
    expect(render(<Box>{views.renderToolUseMessage!({ shell_id: 'b7' }, options)}</Box>).lastFrame()).toBe('b7');
    const data = { message: 'Successfully stopped task: b7 (sleep 100)', task_id: 'b7', task_type: 'local_bash', label: 'sleep 100', status: 'killed' as const, summary: 'signal SIGTERM' };
    expect(render(<Box>{views.renderToolResultMessage!(data, [], { ...options, input: {} })}</Box>).lastFrame()).toBe('Stopped sleep 100');
  });
});
