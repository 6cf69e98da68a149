/** Write in a terminal: the path, then what the file became (a diff for an update, the first lines for a new file). */
import { readFileSync, statSync } from 'node:fs';
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { patchBetween } from '../shared/patch.js';
import { changeSummary, DiffView, displayPath, OutputLines, plural } from '../shared/views.js';
import type { WriteInput, WriteOutput } from './write-tool.js';

const PREVIEW_MAX_BYTES = 256 * 1024;

function lineCount(text: string): number {
  return text === '' ? 0 : text.replace(/\n$/, '').split('\n').length;
}

export const writeViews: ToolViews<WriteInput, WriteOutput> = {
  renderToolUseMessage(input, { cwd }) {
    return <Text>{displayPath(input.file_path, cwd)}</Text>;
  },
  renderToolResultMessage(output, _progress, { verbose, columns, cwd }) {
    if (output.type === 'create') {
      return (
        <Box flexDirection="column">
          <Text>
            Wrote {plural(lineCount(output.content), 'line')} to {displayPath(output.filePath, cwd)}
          </Text>
          <OutputLines text={output.content} max={8} verbose={verbose} color="green" />
        </Box>
      );
    }
    return (
      <Box flexDirection="column">
        <Text>{changeSummary(output.structuredPatch)}</Text>
        <DiffView hunks={output.structuredPatch} verbose={verbose} columns={columns} />
      </Box>
    );
  },
  // The dialog shows what the file would become: a diff against what is on disk now, or the new file's first lines.
  renderPermissionPreview(input, { verbose, columns }) {
    if (input.file_path === undefined || input.content === undefined) return null;
    let before: string | undefined;
    try {
      if (statSync(input.file_path).size <= PREVIEW_MAX_BYTES) before = readFileSync(input.file_path, 'utf8');
    } catch {
      before = undefined;
    }
    if (before === undefined) return <OutputLines text={input.content} max={12} verbose={verbose} color="green" />;
    return <DiffView hunks={patchBetween(before, input.content)} verbose={verbose} columns={columns} />;
  },
};
