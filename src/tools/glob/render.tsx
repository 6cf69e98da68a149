/** Glob in a terminal: the pattern, then the count of files found (and the list when verbose). */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { displayPath, plural } from '../shared/views.js';
import type { GlobInput, GlobOutput } from './index.js';

export const globViews: ToolViews<GlobInput, GlobOutput> = {
  renderToolUseMessage(input, { cwd }) {
    return (
      <Text>
        {input.pattern ?? ''}
        {input.path !== undefined ? <Text dimColor> in {displayPath(input.path, cwd)}</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output, _progress, { verbose, cwd }) {
    const total = output.totalMatches !== undefined && output.totalMatches > output.numFiles ? ` (of ${output.totalMatches})` : '';
    return (
      <Box flexDirection="column">
        <Text>
          Found <Text bold>{output.numFiles}</Text> {output.numFiles === 1 ? 'file' : 'files'}
          {total}
          {output.truncated ? <Text dimColor> · truncated</Text> : null}
        </Text>
        {verbose ? <Text dimColor>{output.filenames.map((f) => displayPath(f, cwd)).join('\n')}</Text> : null}
      </Box>
    );
  },
};

export { plural };
