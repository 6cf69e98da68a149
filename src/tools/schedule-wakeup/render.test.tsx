import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { ScheduleWakeupTool } from './index.js';

describe('ScheduleWakeup views', () => {
  it('draw the delay and reason, then how long it waited and what woke it', async () => {
    const views = await ScheduleWakeupTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: '/' };
    expect(render(<Box>{views.renderToolUseMessage!({ delaySeconds: 90, reason: 'build runs' }, options)}</Box>).lastFrame()).toBe('90s — build runs');
    const data = { scheduledFor: 0, clampedDelaySeconds: 90, wasClamped: false, wokeBy: 'notification' as const, waitedMs: 12_400 };
    expect(render(<Box>{views.renderToolResultMessage!(data, [], { ...options, input: {} })}</Box>).lastFrame()).toBe('Waited 12s (news arrived)');
  });
});
