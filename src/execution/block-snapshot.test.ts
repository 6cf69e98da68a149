import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { allowAll, assistantMessage, makeContext, tempSession, type TempSession } from '../../test/helpers/execution.js';
import { buildTool } from '../tool/build-tool.js';
import type { ToolUseBlock } from '../tool/tool.js';
import { plainCopy, snapshotAssistantMessage, snapshotContentBlock, ToolUseBlockError } from './block-snapshot.js';
import { runToolUse } from './pipeline.js';
import { StreamingToolExecutor } from './streaming-tool-executor.js';

let session: TempSession;
const escaped: unknown[] = [];
const onRejection = (reason: unknown) => escaped.push(reason);
beforeAll(() => {
  session = tempSession('toolgate-snapshot-');
  process.on('unhandledRejection', onRejection);
});
afterAll(() => {
  process.off('unhandledRejection', onRejection);
  session.cleanup();
});

const boom = () => {
  throw new Error('hostile');
};
const calls: unknown[] = [];
const echo = buildTool({
  name: 'Echo',
  inputSchema: z.strictObject({ say: z.string() }),
  maxResultSizeChars: 10_000,
  prompt: async () => '',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async (input) => (calls.push(input), { data: `said ${input.say}` }),
});

describe('snapshotContentBlock', () => {
  it('copies the input as plain JSON, read once; keeps an own __proto__ key as a key, never as a prototype', () => {
    const input = JSON.parse('{"say":"hi","__proto__":{"polluted":true},"nested":[1,{"a":null}]}') as Record<string, unknown>;
    const snap = snapshotContentBlock({ type: 'tool_use', id: 't1', name: 'Echo', input });
    expect(snap.kind).toBe('tool_use');
    const copy = (snap as { block: ToolUseBlock }).block.input as Record<string, unknown>;
    expect(copy).not.toBe(input);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['say', '__proto__', 'nested']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Snapshotting a snapshot is the identity.
    expect(snapshotContentBlock((snap as { block: ToolUseBlock }).block)).toEqual(snap);
  });

  it('refuses what is not plain JSON, naming where', () => {
    expect(plainCopy({ a: [1, () => 1] })).toEqual({ ok: false, problem: 'The input holds a function at `a[1]`; it must be plain JSON.' });
    expect(plainCopy({ n: 10n })).toMatchObject({ ok: false, problem: expect.stringMatching(/a bigint at `n`/) });
    const shared = { x: 1 };
    expect(plainCopy({ a: shared, b: shared })).toEqual({ ok: true, value: { a: { x: 1 }, b: { x: 1 } } }); // shared is not cyclic
    expect(plainCopy(new Proxy({}, { ownKeys: boom }))).toEqual({ ok: false, problem: 'The input could not be read at the top level.' });
  });

  it('a message: text skipped, unanswerable entries named by index in one TypeError', () => {
    const block = { type: 'tool_use', id: 't', name: 'Echo', input: {} };
    const { message, entries } = snapshotAssistantMessage({ role: 'assistant', id: 'msg_1', content: [{ type: 'text', text: 'x' }, block] });
    expect(entries.map((e) => e.kind)).toEqual(['skip', 'tool_use']);
    expect(message).toMatchObject({ role: 'assistant', id: 'msg_1', content: [{ id: 't' }] });
    expect((message.content as unknown[])[0]).not.toBe(block); // a copy: the caller's object is not read again
    expect(() => snapshotAssistantMessage({ content: [null, { type: 'tool_use', id: '' }] })).toThrow(
      /content\[0\]: it is null, not a content block; content\[1\]: its `id` is an empty string/,
    );
    expect(() => snapshotAssistantMessage({ content: 5 })).toThrow(ToolUseBlockError);
    expect(snapshotAssistantMessage({ content: 'just text' }).entries).toEqual([]);
  });
});

describe('the executor and the pipeline with hostile blocks', () => {
  it('addTool: unanswerable throws synchronously and queues nothing; problems and repeated ids get one is_error result each', async () => {
    calls.length = 0;
    const context = makeContext([echo], session.dir);
    const executor = new StreamingToolExecutor([echo], allowAll, context);
    const hostile = new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom });
    expect(() => executor.addTool(hostile as ToolUseBlock, assistantMessage)).toThrow(ToolUseBlockError);
    expect(() => executor.addTool(null as never, assistantMessage)).toThrow(TypeError);
    const badInput = { type: 'tool_use', id: 'b', name: 'Echo' };
    Object.defineProperty(badInput, 'input', { get: boom });
    const blocks = [
      { type: 'tool_use', id: 'a', name: 'Echo', input: { say: 'one' } },
      { type: 'text', text: 'not answered' },
      badInput,
      { type: 'tool_use', id: 'a', name: 'Echo', input: { say: 'again' } },
      { type: 'tool_use', id: 'c', name: 'Echo', input: { say: 'three' } },
    ];
    for (const block of blocks) executor.addTool(block as ToolUseBlock, assistantMessage);
    const results = [];
    for await (const update of executor.getRemainingResults()) if (update.type === 'result') results.push(update.outcome);
    expect(results.map((o) => [o.toolUseId, o.isError, o.errorClass])).toEqual([
      ['a', false, undefined],
      ['b', true, 'invalid_block'],
      ['a', true, 'duplicate_tool_use_id'],
      ['c', false, undefined],
    ]);
    expect(calls).toEqual([{ say: 'one' }, { say: 'three' }]);
    expect(escaped).toEqual([]);
  });

  it('runToolUse never throws, whatever it is given', async () => {
    const context = makeContext([echo], session.dir);
    const weirdId = { toString: boom, [Symbol.toPrimitive]: boom };
    const inputs: unknown[] = [null, 3, new Proxy({}, { get: boom }), { type: 'tool_use', id: weirdId, name: 'Echo', input: { say: 'x' } }, { type: 'text', text: 'x' }];
    for (const block of inputs) {
      const outcome = await runToolUse(block as ToolUseBlock, assistantMessage, allowAll, context);
      expect(outcome.isError).toBe(true);
      expect(outcome.errorClass).toBe('invalid_block');
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped).toEqual([]);
  });
});
