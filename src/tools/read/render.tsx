/** Read in a terminal: the path (relative to the session) and one line saying what was read. */
import { Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { displayPath, plural } from '../shared/views.js';
import type { ReadOutput } from './read-output.js';
import type { ReadInput } from './read-tool.js';

export const readViews: ToolViews<ReadInput, ReadOutput> = {
  renderToolUseMessage(input, { cwd }) {
    const range =
      input.pages !== undefined
        ? ` · pages ${input.pages}`
        : input.offset !== undefined || input.limit !== undefined
          ? ` · lines ${input.offset ?? 1}${input.limit !== undefined ? `-${(input.offset ?? 1) + input.limit - 1}` : '-'}`
          : '';
    return (
      <Text>
        {displayPath(input.file_path, cwd)}
        <Text dimColor>{range}</Text>
      </Text>
    );
  },
  renderToolResultMessage(output) {
    switch (output.type) {
      case 'text': {
        const f = output.file;
        const of = f.totalLines !== null && f.totalLines !== f.numLines ? ` of ${f.totalLines}` : '';
        return (
          <Text>
            Read <Text bold>{f.numLines}</Text>
            {of} {f.numLines === 1 ? 'line' : 'lines'}
            {f.truncatedByTokenCap ? <Text color="yellow"> (cut at the token limit)</Text> : null}
          </Text>
        );
      }
      case 'image':
        return <Text>Read image ({output.file.dimensions.displayWidth}×{output.file.dimensions.displayHeight})</Text>;
      case 'notebook':
        return <Text>Read {plural(output.file.cells.length, 'cell')}</Text>;
      case 'pdf':
        return <Text>Read {plural(output.file.pages.length, 'page')} of {output.file.totalPages}</Text>;
    }
  },
};
