import fs from 'node:fs/promises';
import path from 'node:path';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { GrepTool, type GrepOutput } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

describe('Grep views', () => {
  it('draw the pattern with where it looks, then one line of counts per output mode', async () => {
    const dir = await makeTempDir();
    dirs.push(dir);
    await fs.writeFile(path.join(dir, 'a.txt'), 'needle\nhay\nneedle\n');
    await fs.writeFile(path.join(dir, 'b.txt'), 'needle\n');
    await fs.writeFile(path.join(dir, 'c.txt'), 'hay\n');
    const context = makeContext(dir);
    const views = await GrepTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: dir };
    const frame = async (input: Record<string, unknown>) => {
      const run = await runTool<GrepOutput>(GrepTool, input, context);
      return render(<Box>{views.renderToolResultMessage!(run.data!, [], { ...options, input })}</Box>).lastFrame();
    };
    const input = { pattern: 'needle', glob: '*.txt' };
    expect(render(<Box>{views.renderToolUseMessage!(input, options)}</Box>).lastFrame()).toBe('"needle" *.txt');
    expect(await frame(input)).toBe('Found 2 files');
    expect(await frame({ pattern: 'needle', output_mode: 'count' })).toBe('Found 3 matches in 2 files');
    expect(await frame({ pattern: 'needle', output_mode: 'content' })).toBe('Found 3 lines in 2 files');
  });

  it('while running: the count so far, in the unit of the output mode', async () => {
    const views = await GrepTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: '/', elapsedMs: 1200 };
    const draw = (progress: Parameters<NonNullable<typeof views.renderToolUseProgressMessage>>[0]) =>
      render(<Box>{views.renderToolUseProgressMessage!(progress, options)}</Box>).lastFrame();
    expect(draw([{ type: 'grep_progress', found: 1, unit: 'files' }, { type: 'grep_progress', found: 40, unit: 'files' }])).toBe('Found 40 files so far…');
    expect(draw([{ type: 'grep_progress', found: 1, unit: 'lines' }])).toBe('Found 1 line so far…');
    expect(draw([])).toBe('');
  });
});
