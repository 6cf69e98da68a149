/** ToolSearch in a terminal: the query; once done, the tools it loaded (or that none matched) and names not found. */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { ToolSearchInput, ToolSearchOutput } from './index.js';

export const toolSearchViews: ToolViews<ToolSearchInput, ToolSearchOutput> = {
  renderToolUseMessage(input) {
    return <Text>{input.query ?? ''}</Text>;
  },
  renderToolResultMessage(output) {
    return (
      <Box flexDirection="column">
        {output.matches.length > 0 ? (
          <Text>
            Loaded <Text bold>{output.matches.join(', ')}</Text>
          </Text>
        ) : (
          <Text dimColor>No matches among {output.total_deferred_tools} deferred tools</Text>
        )}
        {output.not_found?.length ? <Text color="yellow">Not found: {output.not_found.join(', ')}</Text> : null}
      </Box>
    );
  },
};
