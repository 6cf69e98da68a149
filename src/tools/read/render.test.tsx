import fs from 'node:fs/promises';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { Box } from 'ink';
import { afterEach, describe, expect, it } from 'vitest';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import type { ReadOutput } from './read-output.js';
import { ReadTool } from './read-tool.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

describe('Read views', () => {
  it('draw the path relative to the session and one line with the count of lines read', async () => {
    const dir = await makeTempDir();
    dirs.push(dir);
    await fs.mkdir(path.join(dir, 'src'));
    await fs.writeFile(path.join(dir, 'src', 'a.ts'), Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n'));
    const input = { file_path: path.join(dir, 'src', 'a.ts'), offset: 11, limit: 10 };
    const run = await runTool<ReadOutput>(ReadTool, input, makeContext(dir));
    const views = await ReadTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: dir };
    const use = render(<Box>{views.renderToolUseMessage!(input, options)}</Box>);
    expect(use.lastFrame()).toBe('src/a.ts · lines 11-20');
    const result = render(<Box>{views.renderToolResultMessage!(run.data!, [], { ...options, input })}</Box>);
    expect(result.lastFrame()).toBe('Read 10 of 30 lines');
  });
});
