/** ReadMcpResource in a terminal: the server and URI; once read, what came back (text size, images, saved blobs). */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { formatSize } from '../shared/units.js';
import { plural } from '../shared/views.js';
import type { ReadMcpResourceData } from './index.js';

export const readMcpResourceViews: ToolViews<{ server?: string; uri?: string }, ReadMcpResourceData> = {
  renderToolUseMessage(input) {
    return (
      <Text>
        {input.server ?? ''} <Text dimColor>{input.uri ?? ''}</Text>
      </Text>
    );
  },
  renderToolResultMessage(output) {
    const chars = output.contents.reduce((n, c) => n + (c.text?.length ?? 0), 0);
    const images = output.contents.filter((c) => c.image !== undefined).length;
    const saved = output.contents.filter((c) => c.blobSavedTo !== undefined);
    const parts = [plural(output.contents.length, 'part'), ...(chars > 0 ? [`${formatSize(chars)} of text`] : []), ...(images > 0 ? [plural(images, 'image')] : [])];
    return (
      <Box flexDirection="column">
        <Text>Read {parts.join(' · ')}</Text>
        {saved.map((c) => (
          <Text key={c.blobSavedTo} dimColor>
            saved to {c.blobSavedTo}
            {c.bytes !== undefined ? ` (${formatSize(c.bytes)})` : ''}
          </Text>
        ))}
      </Box>
    );
  },
};
