import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { getEmptyToolPermissionContext } from '../../tool/permission-types.js';
import { createToolUseContext } from '../../tool/tool-use-context.js';
import { TodoWriteTool } from './index.js';

describe('TodoWrite views', () => {
  it('draw the list the call wrote as a checklist: done, in progress (its active form), pending', async () => {
    const context = createToolUseContext({ tools: [], permissionContext: getEmptyToolPermissionContext('/'), sessionDir: '/tmp' });
    const input = {
      todos: [
        { content: 'Read the code', activeForm: 'Reading the code', status: 'completed' as const },
        { content: 'Fix the bug', activeForm: 'Fixing the bug', status: 'in_progress' as const },
        { content: 'Run the tests', activeForm: 'Running the tests', status: 'pending' as const },
      ],
    };
    const result = await TodoWriteTool.call(input, context, async () => ({ behavior: 'allow' }), { role: 'assistant', content: [] });
    const views = await TodoWriteTool.loadViews!();
    const frame = render(<Box>{views.renderToolResultMessage!(result.data, [], { columns: 80, verbose: false, cwd: '/', input })}</Box>);
    expect(frame.lastFrame()).toBe('☒ Read the code\n☐ Fixing the bug\n☐ Run the tests');
  });
});
