/** The Cron tools in a terminal: the expression, then the schedule in words; the list as one line per task. */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { CronCreateInput, CronCreateOutput, CronDeleteInput, CronDeleteOutput, CronListInput, CronListOutput } from './index.js';

export const cronCreateViews: ToolViews<CronCreateInput, CronCreateOutput> = {
  renderToolUseMessage(input) {
    return (
      <Text wrap="truncate-end">
        {input.cron ?? ''}
        {input.durable ? <Text dimColor> (durable)</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output) {
    return (
      <Text>
        {output.id} <Text dimColor>{output.humanSchedule}</Text>
      </Text>
    );
  },
};

export const cronListViews: ToolViews<CronListInput, CronListOutput> = {
  renderToolResultMessage(output, _progress, options) {
    if (output.jobs.length === 0) return <Text dimColor>No scheduled tasks</Text>;
    const shown = options.verbose ? output.jobs : output.jobs.slice(0, 5);
    return (
      <Box flexDirection="column">
        {shown.map((j) => (
          <Text key={j.id} wrap="truncate-end">
            {j.id} <Text dimColor>{j.humanSchedule}</Text> {j.prompt}
          </Text>
        ))}
        {shown.length < output.jobs.length ? <Text dimColor>… +{output.jobs.length - shown.length} more</Text> : null}
      </Box>
    );
  },
};

export const cronDeleteViews: ToolViews<CronDeleteInput, CronDeleteOutput> = {
  renderToolUseMessage(input) {
    return <Text>{input.id ?? ''}</Text>;
  },
  renderToolResultMessage(output) {
    return <Text>Deleted {output.id}</Text>;
  },
};
