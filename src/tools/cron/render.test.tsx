import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { CronCreateTool, CronDeleteTool, CronListTool } from './index.js';

const options = { columns: 80, verbose: false, cwd: '/' };
const frame = (node: React.ReactNode) => render(<Box>{node}</Box>).lastFrame();

describe('Cron views', () => {
  it('draw the expression, the schedule in words, the list and the deletion', async () => {
    const create = await CronCreateTool.loadViews!();
    expect(frame(create.renderToolUseMessage!({ cron: '*/5 * * * *', durable: true }, options))).toBe('*/5 * * * * (durable)');
    expect(frame(create.renderToolResultMessage!({ id: 'ab12', humanSchedule: 'every 5 minutes', recurring: true }, [], { ...options, input: {} }))).toBe('ab12 every 5 minutes');
    const list = await CronListTool.loadViews!();
    const job = { id: 'ab12', cron: '*/5 * * * *', humanSchedule: 'every 5 minutes', prompt: 'check CI', recurring: true, durable: false };
    expect(frame(list.renderToolResultMessage!({ jobs: [job] }, [], { ...options, input: {} }))).toBe('ab12 every 5 minutes check CI');
    expect(frame(list.renderToolResultMessage!({ jobs: [] }, [], { ...options, input: {} }))).toBe('No scheduled tasks');
    const del = await CronDeleteTool.loadViews!();
    expect(frame(del.renderToolResultMessage!({ id: 'ab12' }, [], { ...options, input: {} }))).toBe('Deleted ab12');
  });
});
