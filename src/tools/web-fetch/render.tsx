/** WebFetch in a terminal: the URL; once fetched, the status, the page's size and how long it took. */
import { Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { formatSize } from '../shared/units.js';
import type { WebFetchInput, WebFetchOutput } from './index.js';

export const webFetchViews: ToolViews<WebFetchInput, WebFetchOutput> = {
  renderToolUseMessage(input, { verbose }) {
    return (
      <Text>
        {input.url ?? ''}
        {verbose && input.prompt ? <Text dimColor> · {input.prompt}</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(output, _progress, { input }) {
    const redirected = output.bytes === 0 && output.code >= 300 && output.code < 400;
    const status = `${output.code}${output.codeText ? ` ${output.codeText}` : ''}`;
    return (
      <Text>
        <Text color={output.code >= 400 ? 'red' : redirected ? 'yellow' : 'green'}>{status}</Text>
        {redirected ? <Text dimColor> · redirects to another host, not followed</Text> : <Text dimColor> · {formatSize(output.bytes)}</Text>}
        <Text dimColor> · {(output.durationMs / 1000).toFixed(1)}s</Text>
        {input.url !== undefined && output.url !== input.url ? <Text dimColor> · from {output.url}</Text> : null}
      </Text>
    );
  },
};
