import fs from 'node:fs/promises';
import path from 'node:path';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ReadTool } from '../read/read-tool.js';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { WriteTool, type WriteOutput } from './write-tool.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

describe('Write views', () => {
  it('draw a new file as its first lines and an overwrite as a diff; the preview diffs against the disk', async () => {
    const dir = await makeTempDir();
    dirs.push(dir);
    const file = path.join(dir, 'notes.md');
    const context = makeContext(dir);
    const views = await WriteTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: dir };

    const create = { file_path: file, content: 'one\ntwo\n' };
    expect(render(<Box>{views.renderPermissionPreview!(create, options)}</Box>).lastFrame()).toBe('one\ntwo');
    const created = await runTool<WriteOutput>(WriteTool, create, context);
    expect(render(<Box>{views.renderToolResultMessage!(created.data!, [], { ...options, input: create })}</Box>).lastFrame()).toBe(
      'Wrote 2 lines to notes.md\none\ntwo',
    );

    await runTool(ReadTool, { file_path: file }, context);
    const update = { file_path: file, content: 'one\nTWO\n' };
    expect(render(<Box>{views.renderPermissionPreview!(update, options)}</Box>).lastFrame()).toBe('1  one\n2 -two\n2 +TWO');
    const updated = await runTool<WriteOutput>(WriteTool, update, context);
    expect(render(<Box>{views.renderToolResultMessage!(updated.data!, [], { ...options, input: update })}</Box>).lastFrame()).toBe(
      'Added 1 line, removed 1 line\n1  one\n2 -two\n2 +TWO',
    );
  });
});
