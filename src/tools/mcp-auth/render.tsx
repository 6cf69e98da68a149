/** The sign-in tool in a terminal: which server, then the page to open (shown as text, never opened) or what failed. */
import { Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { McpAuthInput, McpAuthOutput } from './index.js';

export const mcpAuthViews: ToolViews<McpAuthInput, McpAuthOutput> = {
  renderToolUseMessage() {
    return <Text>sign in</Text>;
  },
  renderToolResultMessage(output) {
    if (output.status !== 'auth_url') return <Text color="red">{output.message}</Text>;
    if (!output.authUrl) return <Text>Signed in to {output.serverName}</Text>;
    return (
      <Text>
        Open this page to sign in to {output.serverName}: <Text color="cyan">{output.authUrl}</Text>
      </Text>
    );
  },
};
