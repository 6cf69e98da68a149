import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { makeTestTool } from '../../test/helpers/tools.js';
import { allowAll, makeContext, tempSession, toolUse, type TempSession } from '../../test/helpers/execution.js';
import { partitionToolCalls, runTools, toolUseBlocksOf } from './orchestration.js';

let session: TempSession;
beforeEach(() => {
  session = tempSession();
});
afterEach(() => session.cleanup());

const read = makeTestTool('Read', { isConcurrencySafe: () => true, isReadOnly: () => true });
const write = makeTestTool('Write');
const tools = [read, write];

describe('partitionToolCalls', () => {
  it('groups consecutive concurrency-safe calls; every other call is a batch of its own', () => {
    const blocks = [
      toolUse('Read', { value: 'a' }),
      toolUse('Read', { value: 'b' }),
      toolUse('Write', { value: 'c' }),
      toolUse('Write', { value: 'd' }),
      toolUse('Read', { value: 'e' }),
      toolUse('Read', { value: 42 }), // does not parse: runs alone
      toolUse('Nope', {}), // unknown: only an error, blocks nobody
    ];
    const batches = partitionToolCalls(blocks, tools);
    expect(batches.map((b) => [b.isConcurrencySafe, b.blocks.map((x) => x.id)])).toEqual([
      [true, [blocks[0]!.id, blocks[1]!.id]],
      [false, [blocks[2]!.id]],
      [false, [blocks[3]!.id]],
      [true, [blocks[4]!.id]],
      [false, [blocks[5]!.id]],
      [true, [blocks[6]!.id]],
    ]);
  });
});

describe('runTools', () => {
  it('runs a complete message with the executor’s semantics and returns the updated context', async () => {
    const running = { now: 0, max: 0 };
    const track = (name: string, safe: boolean) =>
      makeTestTool(name, {
        isConcurrencySafe: () => safe,
        call: async (input) => {
          running.max = Math.max(running.max, ++running.now);
          await new Promise<void>((resolve) => setImmediate(resolve));
          running.now--;
          return { data: `${name}:${input.value}`, contextModifier: (c: ToolUseContext) => ({ ...c, options: { ...c.options, betas: [...(c.options.betas ?? []), String(input.value)] } }) };
        },
      });
    const pool = [track('Read', true), track('Write', false)];
    const message = {
      role: 'assistant' as const,
      content: [
        { type: 'text' as const, text: 'Reading two files, then writing.' },
        toolUse('Read', { value: 'a' }, 'r1'),
        toolUse('Read', { value: 'b' }, 'r2'),
        toolUse('Write', { value: 'c' }, 'w1'),
      ],
    };
    const blocks = toolUseBlocksOf(message);
    expect(blocks.map((b) => b.id)).toEqual(['r1', 'r2', 'w1']);
    const gen = runTools(blocks, message, allowAll, makeContext(pool, session.dir));
    const ids: string[] = [];
    let step = await gen.next();
    while (!step.done) {
      if (step.value.type === 'result') ids.push(step.value.toolUseId);
      step = await gen.next();
    }
    expect(ids).toEqual(['r1', 'r2', 'w1']);
    expect(running.max).toBe(2);
    expect(step.value.options.betas).toEqual(['a', 'b', 'c']);
  });

  it('finds no tool_use blocks in a text-only message', () => {
    expect(toolUseBlocksOf({ role: 'assistant', content: 'just text' })).toEqual([]);
  });
});
