/** ListMcpResources in a terminal: the server asked (or all); once listed, how many resources, and any server that failed. */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { plural } from '../shared/views.js';
import type { ListMcpResourcesData } from './index.js';

export const listMcpResourcesViews: ToolViews<{ server?: string }, ListMcpResourcesData> = {
  renderToolUseMessage(input) {
    return <Text>{input.server ?? 'all servers'}</Text>;
  },
  renderToolResultMessage(output, _progress, { verbose }) {
    const servers = new Set(output.resources.map((r) => r.server));
    return (
      <Box flexDirection="column">
        <Text>
          {plural(output.resources.length, 'resource')}
          {servers.size > 1 ? <Text dimColor> from {servers.size} servers</Text> : null}
        </Text>
        {verbose
          ? output.resources.map((r) => (
              <Text key={`${r.server} ${r.uri}`} dimColor wrap="truncate-end">
                {r.server}: {r.uri}
              </Text>
            ))
          : null}
        {output.errors.map((e) => (
          <Text key={e.server} color="red">
            {e.server}: {e.error}
          </Text>
        ))}
      </Box>
    );
  },
};
