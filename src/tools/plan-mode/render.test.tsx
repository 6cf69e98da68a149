import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterAll, describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { createPermissionContext } from '../../permissions/permission-context.js';
import type { ToolQuestionAnswer } from '../shared/questions.js';
import { assistantMessage, makeContext, tempSession, toolUse } from '../../../test/helpers/execution.js';
import { ExitPlanModeTool, type ExitPlanModeOutput } from './index.js';


const session = tempSession('toolgate-plan-views-');
afterAll(() => session.cleanup());
const options = { columns: 80, verbose: false, cwd: '/' };
const plan = '# Rename the flag\n\n1. Find every use\n2. Rename it\n3. Run the tests\n4. Update the docs\n5. Tell the team';

async function present(answer: ToolQuestionAnswer) {
  const permissionContext = createPermissionContext({ cwd: session.dir, homeDir: session.dir, mode: 'plan' });
  const context = makeContext([ExitPlanModeTool], session.dir, { permissionContext, ui: { askQuestion: async () => answer } });
  return runToolUse(toolUse('ExitPlanMode', { plan }), assistantMessage, createCanUseTool(), context);
}

describe('ExitPlanMode views', () => {
  it('an approved plan: approved, the mode now in force, the first lines of the plan', async () => {
    const outcome = await present({ action: 'accept' });
    expect(outcome.isError).toBe(false);
    const views = await ExitPlanModeTool.loadViews!();
    expect(views.renderToolUseMessage!({ plan }, options)).toBeNull();
    expect(ExitPlanModeTool.renderToolUseMessage({ plan })).toBe('Rename the flag');
    const frame = render(<Box>{views.renderToolResultMessage!(outcome.output as ExitPlanModeOutput, [], { ...options, input: { plan } })}</Box>).lastFrame()!;
    expect(frame.split('\n')).toEqual(['Plan approved · mode: default', '# Rename the flag', '', '1. Find every use', '2. Rename it', '… +3 lines']);
  });

  it('a refused plan: the person\'s feedback, plan mode on, and the model gets an error that carries the feedback', async () => {
    const outcome = await present({ action: 'decline', message: 'add tests first' });
    expect(outcome.isError).toBe(true);
    expect(JSON.stringify(outcome.result.content)).toContain('Their feedback: add tests first');
    const output = outcome.output as ExitPlanModeOutput;
    expect(output).toMatchObject({ approved: false, restoredMode: 'plan', feedback: 'add tests first' });
    const views = await ExitPlanModeTool.loadViews!();
    const frame = render(<Box>{views.renderToolResultMessage!(output, [], { ...options, verbose: true, input: { plan } })}</Box>).lastFrame()!;
    expect(frame.split('\n')[0]).toBe('Plan refused: add tests first · plan mode stays on');
    expect(frame).toContain('5. Tell the team');
    expect(ExitPlanModeTool.renderToolResultMessage!(output)).toBe('Plan refused: add tests first; plan mode stays on');
  });
});
