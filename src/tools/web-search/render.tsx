/** WebSearch in a terminal: the query (and its domain filter); once done, how many results in how long, and any error. */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { plural } from '../shared/views.js';
import type { WebSearchInput, WebSearchOutput } from './index.js';

export function countResults(output: WebSearchOutput): number {
  return output.results.reduce((n, r) => n + (typeof r === 'string' ? 0 : r.content.length), 0);
}

export const webSearchViews: ToolViews<WebSearchInput, WebSearchOutput> = {
  renderToolUseMessage(input) {
    const only = input.allowed_domains?.length ? ` · only ${input.allowed_domains.join(', ')}` : '';
    const not = input.blocked_domains?.length ? ` · not ${input.blocked_domains.join(', ')}` : '';
    return (
      <Text>
        "{input.query ?? ''}"<Text dimColor>{only + not}</Text>
      </Text>
    );
  },
  renderToolResultMessage(output, _progress, { verbose }) {
    const errors = output.results.filter((r): r is string => typeof r === 'string' && r.startsWith('Search error:'));
    const hits = output.results.flatMap((r) => (typeof r === 'string' ? [] : r.content));
    return (
      <Box flexDirection="column">
        <Text>
          {plural(countResults(output), 'result')}
          <Text dimColor> · {output.durationSeconds.toFixed(1)}s</Text>
        </Text>
        {errors.map((e, i) => (
          <Text key={i} color="red">
            {e}
          </Text>
        ))}
        {verbose
          ? hits.map((h, i) => (
              <Text key={i} dimColor wrap="truncate-end">
                {h.title} · {h.url}
              </Text>
            ))
          : null}
      </Box>
    );
  },
};
