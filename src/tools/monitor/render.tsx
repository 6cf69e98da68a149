/** Monitor in a terminal: what is watched and the command; once started, its task id. */
import { Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { MonitorInput, MonitorOutput } from './index.js';

export const monitorViews: ToolViews<MonitorInput, MonitorOutput> = {
  renderToolUseMessage(input) {
    return (
      <Text wrap="truncate-end">
        {input.description ?? ''}
        {input.command ? <Text dimColor> · {input.command.replace(/\s+/g, ' ')}</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output) {
    return (
      <Text>
        Watching <Text dimColor>({output.taskId}, up to {Math.round(output.timeoutMs / 1000)}s)</Text>
      </Text>
    );
  },
};
