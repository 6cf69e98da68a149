import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterAll, describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import { allowAll, assistantMessage, makeContext, tempSession, toolUse } from '../../../test/helpers/execution.js';
import { makeTestTool } from '../../../test/helpers/tools.js';
import { ToolSearchTool, type ToolSearchOutput } from './index.js';

const session = tempSession('toolgate-toolsearch-views-');
afterAll(() => session.cleanup());
const pool = [ToolSearchTool, makeTestTool('Read'), makeTestTool('NotebookEdit', { shouldDefer: true, searchHint: 'jupyter ipynb cell' }), makeTestTool('Counter', { shouldDefer: true })];
const options = { columns: 80, verbose: false, cwd: '/' };

async function search(query: string): Promise<ToolSearchOutput> {
  const outcome = await runToolUse(toolUse('ToolSearch', { query }), assistantMessage, allowAll, makeContext(pool, session.dir));
  return outcome.output as ToolSearchOutput;
}

describe('ToolSearch views', () => {
  it('draw the query, then the tools loaded, the names not found, or that nothing matched', async () => {
    const views = await ToolSearchTool.loadViews!();
    expect(render(<Box>{views.renderToolUseMessage!({ query: 'select:NotebookEdit' }, options)}</Box>).lastFrame()).toBe('select:NotebookEdit');
    const draw = (output: ToolSearchOutput) => render(<Box>{views.renderToolResultMessage!(output, [], { ...options, input: {} })}</Box>).lastFrame();
    expect(draw(await search('select:NotebookEdit,Counter'))).toBe('Loaded NotebookEdit, Counter');
    expect(draw(await search('select:NotebookEdit,Nope'))).toBe('Loaded NotebookEdit\nNot found: Nope');
    expect(draw(await search('+zzzz'))).toBe('No matches among 2 deferred tools');
  });
});
