import fs from 'node:fs/promises';
import path from 'node:path';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import type { EditOutput } from './edit-output.js';
import { EditTool } from './edit-tool.js';
import { ReadTool } from '../read/read-tool.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

describe('Edit views', () => {
  it('draw the change as a numbered diff with a summary, and the diff to be in the permission preview', async () => {
    const dir = await makeTempDir();
    dirs.push(dir);
    const file = path.join(dir, 'app.ts');
    await fs.writeFile(file, ['a', 'b', 'c', 'd', 'const x = 1;', 'e', 'f', 'g', 'h'].join('\n'));
    const context = makeContext(dir);
    await runTool(ReadTool, { file_path: file }, context);
    const input = { file_path: file, old_string: 'const x = 1;', new_string: 'const x = 2;\nconst y = 3;' };
    const run = await runTool<EditOutput>(EditTool, input, context);
    expect(run.isError).toBe(false);
    const views = await EditTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: dir };
    expect(render(<Box>{views.renderToolUseMessage!(input, options)}</Box>).lastFrame()).toBe('app.ts');
    const frame = render(<Box>{views.renderToolResultMessage!(run.data!, [], { ...options, input })}</Box>).lastFrame()!;
    expect(frame.split('\n')).toEqual([
      'Added 2 lines, removed 1 line',
      '2  b',
      '3  c',
      '4  d',
      '5 -const x = 1;',
      '5 +const x = 2;',
      '6 +const y = 3;',
      '7  e',
      '8  f',
      '9  g',
    ]);
    const preview = render(<Box>{views.renderPermissionPreview!(input, options)}</Box>).lastFrame()!;
    expect(preview.split('\n')).toEqual(['-const x = 1;', '+const x = 2;', '+const y = 3;']);
  });
});
