/** Skill in a terminal: the command as a person would type it; once loaded, what it is and the tools it narrows to. */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { SkillInput, SkillOutput } from './index.js';

export const skillViews: ToolViews<SkillInput, SkillOutput> = {
  renderToolUseMessage(input) {
    const name = (input.skill ?? '').replace(/^\//, '');
    return (
      <Text>
        <Text bold>/{name}</Text>
        {input.args ? ` ${input.args}` : ''}
      </Text>
    );
  },
  renderToolResultMessage(output) {
    return (
      <Box flexDirection="column">
        <Text>
          Loaded {output.kind} <Text bold>{output.commandName}</Text>
        </Text>
        {output.allowedTools.length > 0 ? <Text dimColor>Allowed tools while it runs: {output.allowedTools.join(', ')}</Text> : null}
        {output.invalidAllowedTools?.length ? <Text color="yellow">Unreadable allowed-tools, left out: {output.invalidAllowedTools.join(', ')}</Text> : null}
      </Box>
    );
  },
};
