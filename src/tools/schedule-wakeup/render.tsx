/** ScheduleWakeup in a terminal: how long and why; once done, what woke it. */
import { Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { ScheduleWakeupInput, ScheduleWakeupOutput } from './index.js';

const WOKE: Record<string, string> = { time: 'as scheduled', notification: 'news arrived', 'user-message': 'a message arrived', stop: 'stopped' };

export const scheduleWakeupViews: ToolViews<ScheduleWakeupInput, ScheduleWakeupOutput> = {
  renderToolUseMessage(input) {
    if (input.stop) return <Text>stop pending waits</Text>;
    return (
      <Text wrap="truncate-end">
        {input.delaySeconds ?? '?'}s{input.reason ? <Text dimColor> — {input.reason}</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output) {
    if (output.stopped) return <Text>Ended {output.cancelledWakeups ?? 0} pending wait(s)</Text>;
    const waited = Math.round((output.waitedMs ?? 0) / 1000);
    return (
      <Text>
        Waited {waited}s <Text dimColor>({WOKE[output.wokeBy ?? 'time']})</Text>
      </Text>
    );
  },
};
