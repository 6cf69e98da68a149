/**
 * ExitPlanMode in a terminal: the plan's title on the call line; once answered, approved (and the mode now in force)
 * or refused with the person's feedback, then the first lines of the plan (all of it when verbose).
 */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import { OutputLines } from '../shared/views.js';
import type { ExitPlanModeOutput } from './index.js';

const PLAN_LINES = 4;

export const exitPlanModeViews: ToolViews<{ plan?: string }, ExitPlanModeOutput> = {
  // The call line says nothing the result does not: the plan itself follows once answered.
  renderToolUseMessage: () => null,
  renderToolResultMessage(output, _progress, { verbose }) {
    return (
      <Box flexDirection="column">
        {output.approved ? (
          <Text>
            <Text color="green">Plan approved</Text>
            <Text dimColor> · mode: {output.restoredMode}</Text>
          </Text>
        ) : (
          <Text>
            <Text color="yellow">Plan refused</Text>
            {output.feedback ? <Text>: {output.feedback}</Text> : null}
            <Text dimColor> · plan mode stays on</Text>
          </Text>
        )}
        <OutputLines text={output.plan} max={PLAN_LINES} verbose={verbose} color="gray" />
      </Box>
    );
  },
};
