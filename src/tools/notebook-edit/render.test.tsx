import fs from 'node:fs/promises';
import path from 'node:path';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ReadTool } from '../read/read-tool.js';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { NotebookEditTool, type NotebookEditOutput } from './notebook-edit-tool.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

describe('NotebookEdit views', () => {
  it('draw the notebook and cell, then the new source as added lines', async () => {
    const dir = await makeTempDir();
    dirs.push(dir);
    const file = path.join(dir, 'nb.ipynb');
    const notebook = {
      cells: [{ cell_type: 'code', id: 'c1', metadata: {}, execution_count: null, outputs: [], source: ['print(1)'] }],
      metadata: { language_info: { name: 'python' } },
      nbformat: 4,
      nbformat_minor: 5,
    };
    await fs.writeFile(file, JSON.stringify(notebook));
    const context = makeContext(dir);
    await runTool(ReadTool, { file_path: file }, context);
    const input = { notebook_path: file, cell_id: 'c1', new_source: 'x = 2\nprint(x)' };
    const run = await runTool<NotebookEditOutput>(NotebookEditTool, input, context);
    expect(run.isError).toBe(false);
    const views = await NotebookEditTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: dir };
    expect(render(<Box>{views.renderToolUseMessage!(input, options)}</Box>).lastFrame()).toBe('nb.ipynb · c1');
    expect(render(<Box>{views.renderToolResultMessage!(run.data!, [], { ...options, input })}</Box>).lastFrame()).toBe(
      'Replaced code cell c1\n+x = 2\n+print(x)',
    );
  });
});
