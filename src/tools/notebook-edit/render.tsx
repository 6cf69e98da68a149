/** NotebookEdit in a terminal: the notebook and cell, then the cell's new source as added (or removed) lines. */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { displayPath, OutputLines } from '../shared/views.js';
import type { NotebookEditInput, NotebookEditOutput } from './notebook-edit-tool.js';

export const notebookEditViews: ToolViews<NotebookEditInput, NotebookEditOutput> = {
  renderToolUseMessage(input, { cwd }) {
    return (
      <Text>
        {displayPath(input.notebook_path, cwd)}
        <Text dimColor>
          {input.cell_id ? ` · ${input.cell_id}` : ''}
          {input.edit_mode && input.edit_mode !== 'replace' ? ` · ${input.edit_mode}` : ''}
        </Text>
      </Text>
    );
  },
  renderToolResultMessage(output, _progress, { verbose }) {
    const verb = output.edit_mode === 'insert' ? 'Inserted' : output.edit_mode === 'delete' ? 'Deleted' : 'Replaced';
    const marked = output.new_source
      .replace(/\s+$/, '')
      .split('\n')
      .map((l) => `${output.edit_mode === 'delete' ? '-' : '+'}${l}`)
      .join('\n');
    return (
      <Box flexDirection="column">
        <Text>
          {verb} {output.cell_type} cell{output.cell_id ? ` ${output.cell_id}` : ''}
        </Text>
        {output.new_source.trim() !== '' ? (
          <OutputLines text={marked} max={10} verbose={verbose} color={output.edit_mode === 'delete' ? 'red' : 'green'} />
        ) : null}
      </Box>
    );
  },
};
