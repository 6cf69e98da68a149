import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { BashOutput } from './bash-output.js';
import { BashTool } from './index.js';
import type { BashProgress } from './run-bash.js';
import { callTool, makeProject, type TestProject } from './test-helpers/project.js';

const projects: TestProject[] = [];
afterEach(async () => {
  for (const p of projects.splice(0)) await p.cleanup();
});

describe('Bash views', () => {
  it('draw the command, a live tail of the output with the elapsed time, then the head of the output and the exit code', async () => {
    const project = makeProject();
    projects.push(project);
    const input = { command: 'for i in $(seq 1 12); do echo "row $i"; sleep 0.02; done; exit 3' };
    const run = await callTool<BashOutput>(BashTool, input, project.context);
    const views = await BashTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: project.dir };
    expect(render(<Box>{views.renderToolUseMessage!(input, options)}</Box>).lastFrame()).toBe(input.command);

    const progress = run.progress.map((p) => p.data as BashProgress);
    expect(progress.length).toBeGreaterThan(0);
    const live = render(<Box>{views.renderToolUseProgressMessage!(progress, { ...options, elapsedMs: 65_000 })}</Box>).lastFrame()!;
    const lines = live.split('\n');
    expect(lines.at(-1)).toMatch(/^Running… 1m 05s · \d+ B$/);
    expect(lines.length).toBeLessThanOrEqual(6);
    expect(lines.at(-2)).toMatch(/^row \d+$/);

    const done = render(<Box>{views.renderToolResultMessage!(run.data, progress, { ...options, input })}</Box>).lastFrame()!;
    expect(done.split('\n')).toEqual(['row 1', 'row 2', 'row 3', 'row 4', 'row 5', '… +7 lines', 'exit code 3']);
  });

  it('say when a command produced nothing, and show the whole command in the permission preview', async () => {
    const views = await BashTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: '/' };
    const output: BashOutput = { stdout: '', stderr: '', exitCode: 0, interrupted: false, isError: false };
    expect(render(<Box>{views.renderToolResultMessage!(output, [], { ...options, input: {} })}</Box>).lastFrame()).toBe('(no output)');
    const preview = render(<Box>{views.renderPermissionPreview!({ command: 'rm -rf build\nls', description: 'Clean' }, options)}</Box>);
    expect(preview.lastFrame()).toBe('rm -rf build\nls\nClean');
  });
});
