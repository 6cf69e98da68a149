/** Grep in a terminal: the pattern and where, then one line of counts (the lines themselves when verbose). */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { displayPath, plural } from '../shared/views.js';
import type { GrepInput, GrepOutput, GrepProgress } from './index.js';

export const grepViews: ToolViews<GrepInput, GrepOutput, GrepProgress> = {
  renderToolUseMessage(input, { cwd }) {
    const where = [input.path !== undefined ? `in ${displayPath(input.path, cwd)}` : '', input.glob ?? '', input.type ? `type ${input.type}` : '']
      .filter(Boolean)
      .join(' · ');
    return (
      <Text>
        &quot;{input.pattern ?? ''}&quot;
        {where ? <Text dimColor> {where}</Text> : null}
      </Text>
    );
  },
  renderToolUseProgressMessage(progress) {
    const last = progress.at(-1);
    if (last === undefined) return null;
    return <Text dimColor>Found {plural(last.found, last.unit === 'lines' ? 'line' : 'file')} so far…</Text>;
  },
  renderToolResultMessage(output, _progress, { verbose, cwd }) {
    let summary: string;
    if (output.mode === 'content') {
      const files = new Set((output.content ?? '').split('\n').map((l) => /^(.+?):\d+[:-]/.exec(l)?.[1]).filter(Boolean)).size;
      summary = `Found ${plural(output.numLines ?? 0, 'line')}${files > 0 ? ` in ${plural(files, 'file')}` : ''}`;
    } else if (output.mode === 'count') {
      summary = `Found ${plural(output.numMatches ?? 0, 'match', 'matches')} in ${plural(output.numFiles, 'file')}`;
    } else {
      summary = `Found ${plural(output.totalFiles ?? output.numFiles, 'file')}`;
    }
    const body = output.mode === 'files_with_matches' ? output.filenames.map((f) => displayPath(f, cwd)).join('\n') : (output.content ?? '');
    return (
      <Box flexDirection="column">
        <Text>
          {summary}
          {output.timedOut ? <Text color="yellow"> (stopped at the time limit)</Text> : null}
          {output.appliedLimit !== undefined ? <Text dimColor> · more on the next page</Text> : null}
        </Text>
        {verbose && body ? <Text dimColor>{body}</Text> : null}
      </Box>
    );
  },
};
