import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { MonitorTool } from './index.js';

describe('Monitor views', () => {
  it('draw what is watched and the command, then the task and its deadline', async () => {
    const views = await MonitorTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: '/' };
    expect(render(<Box>{views.renderToolUseMessage!({ description: 'errors', command: 'tail -f log' }, options)}</Box>).lastFrame()).toBe('errors · tail -f log');
    const data = { taskId: 'b1234', timeoutMs: 300_000, backgroundTaskId: 'b1234', outputFile: '/x', description: 'errors' };
    expect(render(<Box>{views.renderToolResultMessage!(data, [], { ...options, input: {} })}</Box>).lastFrame()).toBe('Watching (b1234, up to 300s)');
  });
});
