/**
 * Bash in a terminal: the command; while it runs, the last lines of its output with the elapsed time and size; when
 * done, the head of the output, the exit status and whatever toolgate noted (timeout, background, sandbox).
 */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { formatElapsed, formatSize } from '../shared/units.js';
import { OutputLines } from '../shared/views.js';
import type { BashOutput } from './bash-output.js';
import type { BashToolInput } from './index.js';
import type { BashProgress } from './run-bash.js';

const TAIL_LINES = 5;

export const bashViews: ToolViews<BashToolInput, BashOutput, BashProgress> = {
  renderToolUseMessage(input, { verbose }) {
    const command = input.command ?? '';
    const flat = verbose ? command : command.replace(/\s*\n\s*/g, ' ⏎ ');
    const flags = [input.run_in_background ? 'background' : '', input.dangerouslyDisableSandbox ? 'unsandboxed' : ''].filter(Boolean);
    return (
      <Text>
        {flat}
        {flags.length > 0 ? <Text color="yellow"> ({flags.join(', ')})</Text> : null}
      </Text>
    );
  },
  renderToolUseProgressMessage(progress, { elapsedMs }) {
    const last = progress.at(-1);
    const size = last !== undefined && last.totalBytes > 0 ? ` · ${formatSize(last.totalBytes)}` : '';
    return (
      <Box flexDirection="column">
        {last !== undefined && last.output.trim() !== '' ? (
          <Text dimColor>{last.output.replace(/\s+$/, '').split('\n').slice(-TAIL_LINES).join('\n')}</Text>
        ) : null}
        <Text dimColor>
          Running… {formatElapsed(elapsedMs)}
          {size}
        </Text>
      </Box>
    );
  },
  renderToolResultMessage(output, _progress, { verbose }) {
    if (output.backgroundTaskId !== undefined) {
      return <Text>Running in the background as <Text bold>{output.backgroundTaskId}</Text></Text>;
    }
    const status: string[] = [];
    if (output.interrupted) status.push('Interrupted');
    if (output.timedOutAfterMs !== undefined) status.push(`timed out after ${formatElapsed(output.timedOutAfterMs)}`);
    if (output.exitCode !== null && output.exitCode !== 0) status.push(`exit code ${output.exitCode}`);
    if (output.signal) status.push(`signal ${output.signal}`);
    if (output.returnCodeInterpretation) status.push(output.returnCodeInterpretation);
    const empty = output.stdout.trim() === '' && !output.isImage;
    return (
      <Box flexDirection="column">
        {output.isImage ? <Text>[image]</Text> : null}
        {empty && status.length === 0 ? <Text dimColor>(no output)</Text> : null}
        <OutputLines text={output.stdout} max={TAIL_LINES} verbose={verbose} />
        {output.stderr.trim() !== '' ? <Text dimColor>{output.stderr.trim()}</Text> : null}
        {status.length > 0 ? <Text color={output.isError ? 'red' : 'yellow'}>{status.join(' · ')}</Text> : null}
        {output.truncated && output.outputFile ? <Text dimColor>Full output: {output.outputFile}</Text> : null}
      </Box>
    );
  },
  renderPermissionPreview(input) {
    return (
      <Box flexDirection="column">
        <Text bold>{input.command ?? ''}</Text>
        {input.description ? <Text dimColor>{input.description}</Text> : null}
      </Box>
    );
  },
};
