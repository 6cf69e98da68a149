/** TaskStop in a terminal: the task id; once stopped, what was stopped (the command, the agent's task). */
import { Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { TaskStopData, TaskStopInput } from './index.js';

export const taskStopViews: ToolViews<TaskStopInput, TaskStopData> = {
  renderToolUseMessage(input) {
    return <Text>{input.task_id ?? input.shell_id ?? ''}</Text>;
  },
  renderToolResultMessage(output) {
    return (
      <Text wrap="truncate-end">
        Stopped <Text dimColor>{output.label}</Text>
      </Text>
    );
  },
};
