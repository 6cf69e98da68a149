/** Edit in a terminal: the path, then the change as a coloured diff (and, in the permission dialog, the diff to be). */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { patchBetween } from '../shared/patch.js';
import { changeSummary, DiffView, displayPath } from '../shared/views.js';
import type { EditOutput } from './edit-output.js';
import type { EditInput } from './edit-tool.js';

export const editViews: ToolViews<EditInput, EditOutput> = {
  renderToolUseMessage(input, { cwd }) {
    return (
      <Text>
        {displayPath(input.file_path, cwd)}
        {input.replace_all ? <Text dimColor> · all occurrences</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output, _progress, { verbose, columns, cwd }) {
    if (output.created) return <Text>Created {displayPath(output.filePath, cwd)}</Text>;
    return (
      <Box flexDirection="column">
        <Text>
          {changeSummary(output.structuredPatch)}
          {output.replacements > 1 ? <Text dimColor> ({output.replacements} replacements)</Text> : null}
        </Text>
        <DiffView hunks={output.structuredPatch} verbose={verbose} columns={columns} />
      </Box>
    );
  },
  renderPermissionPreview(input, { verbose, columns }) {
    if (input.old_string === undefined || input.new_string === undefined) return null;
    return <DiffView hunks={patchBetween(`${input.old_string}\n`, `${input.new_string}\n`)} verbose={verbose} columns={columns} numbered={false} />;
  },
};
