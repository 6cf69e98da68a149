/** SendMessage in a terminal: the lead's (or a teammate's) message out, drawn as a team message, not as a command. */
import { Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { SendMessageInput, SendMessageOutput } from './index.js';

export const sendMessageViews: ToolViews<SendMessageInput, SendMessageOutput> = {
  renderToolUseMessage(input) {
    return (
      <Text wrap="truncate-end">
        <Text color="magenta">✉ → {input.to === '*' ? 'every teammate' : (input.to ?? '')}</Text>
        {input.summary ? <Text dimColor> {input.summary}</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output, _progress, options) {
    const to = output.recipients.join(', ');
    if (!options.verbose) return <Text dimColor>{`${output.from} → ${to}`}</Text>;
    const message = (options.input as Partial<SendMessageInput>).message ?? '';
    return (
      <Text>
        <Text dimColor>{`${output.from} → ${to}: `}</Text>
        {message}
      </Text>
    );
  },
};
