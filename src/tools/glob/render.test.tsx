import fs from 'node:fs/promises';
import path from 'node:path';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { GlobTool, type GlobOutput } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

describe('Glob views', () => {
  it('draw the pattern and one line with the count; verbose lists the files relative to the session', async () => {
    const dir = await makeTempDir();
    dirs.push(dir);
    for (const f of ['a.ts', 'b.ts', 'c.md']) await fs.writeFile(path.join(dir, f), 'x');
    const input = { pattern: '*.ts' };
    const run = await runTool<GlobOutput>(GlobTool, input, makeContext(dir));
    const views = await GlobTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: dir };
    expect(render(<Box>{views.renderToolUseMessage!(input, options)}</Box>).lastFrame()).toBe('*.ts');
    expect(render(<Box>{views.renderToolResultMessage!(run.data!, [], { ...options, input })}</Box>).lastFrame()).toBe('Found 2 files');
    const verbose = render(<Box>{views.renderToolResultMessage!(run.data!, [], { ...options, verbose: true, input })}</Box>).lastFrame()!;
    expect(verbose.split('\n').slice(1).sort()).toEqual(['a.ts', 'b.ts']);
  });
});
