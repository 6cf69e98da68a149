/** LSP in a terminal: the operation and position; once answered, the count (or the hover's first line). */
import { Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { displayPath } from '../shared/views.js';
import type { LspInput, LspOutput } from './index.js';

export const lspViews: ToolViews<LspInput, LspOutput> = {
  renderToolUseMessage(input, options) {
    return (
      <Text wrap="truncate-end">
        {input.operation ?? ''} {displayPath(input.filePath, options.cwd)}
        {input.line !== undefined ? `:${input.line}:${input.character ?? ''}` : ''}
        {input.query ? <Text dimColor> “{input.query}”</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output) {
    if (output.operation === 'hover') return <Text wrap="truncate-end">{output.result.split('\n')[0]}</Text>;
    return (
      <Text>
        {output.resultCount} result{output.resultCount === 1 ? '' : 's'}
        {output.fileCount > 1 ? <Text dimColor> in {output.fileCount} files</Text> : null}
      </Text>
    );
  },
};
