// A command that starts by sleeping 2 s or more is refused at once — through the real pipeline, with real bash for
// what passes — when Monitor is in the pool; the refusal names Monitor and ScheduleWakeup.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import type { AnyTool, ToolUseBlock } from '../../tool/tool.js';
import { toolResultText } from '../../tool/tool-result.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { MonitorTool } from '../monitor/index.js';
import { ScheduleWakeupTool } from '../schedule-wakeup/index.js';
import { BashTool } from './index.js';
import { leadingSleep } from './leading-sleep.js';
import { allowAll, makeProject, type TestProject } from './test-helpers/project.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

let n = 0;
async function run(input: Record<string, unknown>, tools: readonly AnyTool[]) {
  const block = { type: 'tool_use', id: `toolu_sleep_${++n}`, name: 'Bash', input } as ToolUseBlock;
  const context: ToolUseContext = { ...project.context, options: { ...project.context.options, tools } };
  const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, allowAll, context);
  return { outcome, text: toolResultText(outcome.result) };
}

const pool = [BashTool, MonitorTool, ScheduleWakeupTool] as AnyTool[];

describe('a leading sleep in Bash', () => {
  it.each(['sleep 5', 'sleep 2', '  sleep 30\n', 'sleep 2.5; echo done', 'sleep 5 && curl http://127.0.0.1:9/', 'sleep 1m || true', 'sleep 3s'])(
    'refuses %j before it runs, pointing at Monitor and ScheduleWakeup',
    async (command) => {
      const { outcome, text } = await run({ command }, pool);
      expect(outcome.stage).toBe('validation');
      expect(outcome.isError).toBe(true);
      expect(text).toContain('Monitor');
      expect(text).toContain('ScheduleWakeup');
      expect(text).toContain('run_in_background');
    },
  );

  it('says what followed the sleep', async () => {
    const { text } = await run({ command: 'sleep 5 && echo polled' }, pool);
    expect(text).toContain('before: echo polled');
  });

  it.each([
    ['a short pause', 'sleep 1; echo ok', 'ok'],
    ['a fractional short pause', 'sleep 0.5 && echo ok', 'ok'],
    ['a sleep later in the command', 'echo ok; sleep 2', 'ok'],
    ['a sleep inside a loop', 'for i in 1; do sleep 2; done; echo ok', 'ok'],
    ['a sleep sent to the background', 'sleep 3 & echo ok', 'ok'],
    ['a sleep piped on', 'sleep 2 | cat; echo ok', 'ok'],
    ['a word that only starts like sleep', 'echo sleepy 5', 'sleepy 5'],
  ])('runs %s (%j)', async (_what, command, printed) => {
    const { outcome, text } = await run({ command }, pool);
    expect(outcome.stage).not.toBe('validation');
    expect(outcome.isError).toBe(false);
    expect(text).toContain(printed);
  }, 20_000);

  it('runs a leading sleep in the background (run_in_background)', async () => {
    const { outcome, text } = await run({ command: 'sleep 3', run_in_background: true }, pool);
    expect(outcome.isError).toBe(false);
    expect(text).toContain('running in background');
  });

  it('is not refused when no Monitor is in the pool (the seeds: only when it is available)', async () => {
    expect((await run({ command: 'sleep 2; echo waited' }, [BashTool as AnyTool])).text).toContain('waited');
  }, 20_000);

  it('names only the tools the pool has', async () => {
    const { text } = await run({ command: 'sleep 9' }, [BashTool, MonitorTool] as AnyTool[]);
    expect(text).toContain('Monitor');
    expect(text).not.toContain('ScheduleWakeup');
  });

  it('reads units as sleep does', () => {
    expect(leadingSleep('sleep 2m')?.seconds).toBe(120);
    expect(leadingSleep('sleep .5')).toBeUndefined();
    expect(leadingSleep('sleep 1.99')).toBeUndefined();
    expect(leadingSleep('sleep "$T"')).toBeUndefined();
  });
});
