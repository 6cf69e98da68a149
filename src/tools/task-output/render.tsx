/** TaskOutput in a terminal: the task id; once read, the task's state (and exit) and the last lines of its output. */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { TaskOutputData, TaskOutputInput } from './index.js';

const TAIL_LINES = 5;
const COLOURS: Record<string, string> = { running: 'yellow', completed: 'green', failed: 'red', killed: 'red' };

export const taskOutputViews: ToolViews<TaskOutputInput, TaskOutputData> = {
  renderToolUseMessage(input) {
    return (
      <Text>
        {input.task_id ?? ''}
        {input.block === false ? <Text dimColor> (no wait)</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output, _progress, { verbose }) {
    const { task } = output;
    const exit = task.summary !== undefined ? ` · ${task.summary}` : '';
    const waited = output.retrieval_status === 'timeout' ? ' · still running after the wait' : '';
    const trimmed = task.output.replace(/\s+$/, '');
    const lines = trimmed === '' ? [] : trimmed.split('\n');
    const shown = verbose ? lines : lines.slice(-TAIL_LINES);
    return (
      <Box flexDirection="column">
        <Text>
          <Text color={COLOURS[task.status]}>{task.status}</Text>
          <Text dimColor>
            {exit}
            {waited}
          </Text>
        </Text>
        {shown.length < lines.length ? <Text dimColor>… {lines.length - shown.length} earlier lines</Text> : null}
        {shown.length > 0 ? <Text dimColor>{shown.join('\n')}</Text> : null}
      </Box>
    );
  },
};
