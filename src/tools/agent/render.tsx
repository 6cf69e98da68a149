/**
 * Agent in a terminal: the task's description; while the sub-agent runs, its latest tool calls (each as its tool
 * draws itself in plain text), its latest words and a tally; once done, one summary line (the report itself when
 * verbose).
 */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { formatElapsed } from '../shared/units.js';
import { OutputLines, plural } from '../shared/views.js';
import { doneLine, type AgentInput, type AgentOutput } from './index.js';
import { formatTokens, type AgentCallSummary, type AgentProgress } from './progress.js';

const SHOWN_CALLS = 3;

function CallLine({ call }: { call: AgentCallSummary }) {
  const mark = call.status === 'running' ? <Text color="yellow">○</Text> : call.status === 'error' ? <Text color="red">✗</Text> : <Text color="green">✓</Text>;
  return (
    <Text wrap="truncate-end">
      {mark} {call.name}
      {call.summary ? <Text dimColor>({call.summary})</Text> : null}
    </Text>
  );
}

export const agentViews: ToolViews<AgentInput, AgentOutput, AgentProgress> = {
  renderToolUseMessage(input) {
    const type = input.subagent_type ?? 'general-purpose';
    return (
      <Text>
        {input.description ?? ''}
        {type !== 'general-purpose' ? <Text dimColor> · {type}</Text> : null}
        {input.run_in_background ? <Text color="yellow"> (background)</Text> : null}
      </Text>
    );
  },
  renderToolUseProgressMessage(progress, { elapsedMs }) {
    const last = progress.at(-1);
    if (last === undefined) return <Text dimColor>Starting… {formatElapsed(elapsedMs)}</Text>;
    const shown = last.recent.slice(-SHOWN_CALLS);
    const running = last.recent.filter((c) => c.status === 'running').length;
    const hidden = last.startedCount - shown.length;
    const tally = [plural(last.toolUseCount, 'tool use'), ...(last.totalTokens > 0 ? [formatTokens(last.totalTokens)] : []), formatElapsed(elapsedMs)];
    return (
      <Box flexDirection="column">
        {hidden > 0 ? <Text dimColor>+{plural(hidden, 'earlier call')}</Text> : null}
        {shown.map((call) => (
          <CallLine key={call.id} call={call} />
        ))}
        {last.lastActivity !== undefined && running === 0 ? (
          <Text dimColor wrap="truncate-end">
            {last.lastActivity}
          </Text>
        ) : null}
        <Text dimColor>Running… {tally.join(' · ')}</Text>
      </Box>
    );
  },
  renderToolResultMessage(output, _progress, { verbose }) {
    if (output.status === 'async_launched') {
      return (
        <Text>
          Running in the background as <Text bold>{output.agentId}</Text>
        </Text>
      );
    }
    return (
      <Box flexDirection="column">
        <Text color={output.isError ? 'red' : undefined}>{doneLine(output)}</Text>
        {verbose ? <OutputLines text={output.content[0]?.text ?? ''} max={Infinity} verbose /> : null}
      </Box>
    );
  },
};
