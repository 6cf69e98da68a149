import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterAll, describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { assistantMessage, makeContext, tempSession, toolUse } from '../../../test/helpers/execution.js';
import { AskUserQuestionTool, type AskUserQuestionOutput } from './index.js';

const session = tempSession('toolgate-ask-views-');
afterAll(() => session.cleanup());
const options = { columns: 80, verbose: false, cwd: '/' };

describe('AskUserQuestion views', () => {
  it('draw the questions\' tags on the call line, then each question with the answer the person chose', async () => {
    const input = {
      questions: [
        { question: 'Which database?', header: 'Database', options: [{ label: 'Postgres', description: 'a' }, { label: 'SQLite', description: 'b' }], multiSelect: false },
        { question: 'Which checks?', header: 'Checks', options: [{ label: 'Lint', description: 'c' }, { label: 'Tests', description: 'd' }], multiSelect: true },
      ],
    };
    const context = makeContext([AskUserQuestionTool], session.dir, {
      ui: { askQuestion: async () => ({ action: 'accept', answers: { 'Which database?': 'SQLite', 'Which checks?': 'Lint, Tests' } }) },
    });
    const outcome = await runToolUse(toolUse('AskUserQuestion', input), assistantMessage, createCanUseTool(), context);
    expect(outcome.isError).toBe(false);
    const views = await AskUserQuestionTool.loadViews!();
    expect(render(<Box>{views.renderToolUseMessage!(input, options)}</Box>).lastFrame()).toBe('Database, Checks');
    const output = outcome.output as AskUserQuestionOutput;
    const frame = render(<Box>{views.renderToolResultMessage!(output, [], { ...options, input })}</Box>).lastFrame();
    expect(frame).toBe('Which database? → SQLite\nWhich checks? → Lint, Tests');
    expect(AskUserQuestionTool.renderToolResultMessage!(output)).toBe(frame);
    const partial = render(<Box>{views.renderToolResultMessage!({ ...output, answers: {} }, [], { ...options, input })}</Box>).lastFrame();
    expect(partial).toBe('Which database? → (no answer)\nWhich checks? → (no answer)');
  });
});
