/**
 * Hostile objects from an embedding program, through `createToolRuntime()` with the real Read tool on real files:
 * every tool_use with a usable id gets exactly one tool_result (an `is_error` one naming the problem when it cannot
 * run), text and thinking blocks are skipped, what cannot be answered at all is one `ToolUseBlockError` before
 * anything runs — and nothing ever surfaces as an unhandled rejection or an uncaught exception.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolUseBlockError } from '../execution/block-snapshot.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../tool/tool.js';
import { createToolRuntime } from './create-tool-runtime.js';
import type { ToolRuntime } from './types.js';

let dir: string;
let file: string;
let rt: ToolRuntime;
const escaped: unknown[] = [];
const onRejection = (reason: unknown) => escaped.push(reason);
const onException = (error: unknown) => escaped.push(error);

beforeAll(() => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
});
afterAll(() => {
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
});
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hostile-'));
  file = path.join(dir, 'a.txt');
  writeFileSync(file, 'alpha\n');
  rt = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), settings: { sources: [] }, rules: { allow: ['Bash(touch:*)'] } });
});
afterEach(async () => {
  await rt.dispose();
  rmSync(dir, { recursive: true, force: true });
  // A rejection nobody handled is reported on a later turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  expect(escaped).toEqual([]);
});

let n = 0;
const read = (id = `toolu_h${++n}`): ToolUseBlock => ({ type: 'tool_use', id, name: 'Read', input: { file_path: file } }) as ToolUseBlock;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
const boom = () => {
  throw new Error('hostile getter');
};
function withThrowing<T extends object>(block: T, key: string): T {
  Object.defineProperty(block, key, { get: boom, enumerable: true });
  return block;
}

describe('hostile blocks from an embedding program', () => {
  it('a getter that throws on name or input, a throwing toString/toJSON/toPrimitive, a cyclic input, an input getter: one is_error result each; the good call runs', async () => {
    const cyclic: Record<string, unknown> = { file_path: file };
    cyclic.self = cyclic;
    const inputGetter = withThrowing({ file_path: file } as Record<string, unknown>, 'offset');
    const poisoned = { ...read('toolu_poison'), toString: boom, toJSON: boom, [Symbol.toPrimitive]: boom, valueOf: boom };
    const blocks = [
      withThrowing(read('toolu_badname'), 'name'),
      withThrowing(read('toolu_badinput'), 'input'),
      poisoned,
      { type: 'tool_use', id: 'toolu_cyclic', name: 'Read', input: cyclic },
      { type: 'tool_use', id: 'toolu_getter', name: 'Read', input: inputGetter },
      read('toolu_good'),
    ] as ToolUseBlock[];
    const result = await rt.run({ role: 'assistant', content: blocks });
    expect(result.results.map((r) => r.tool_use_id)).toEqual(['toolu_badname', 'toolu_badinput', 'toolu_poison', 'toolu_cyclic', 'toolu_getter', 'toolu_good']);
    expect(text(result.results[0]!)).toMatch(/tool name could not be read/);
    expect(text(result.results[1]!)).toMatch(/input could not be read/);
    // The poisoned block's own fields are fine: it runs, and nothing calls its toString/toJSON.
    expect(result.results[2]!.is_error).toBeFalsy();
    expect(text(result.results[2]!)).toContain('alpha');
    expect(text(result.results[3]!)).toMatch(/refers to itself at `self`/);
    expect(text(result.results[4]!)).toMatch(/parameter `offset` could not be read/);
    expect(result.results.slice(0, 2).every((r) => r.is_error === true)).toBe(true);
    expect(result.results.slice(3, 5).every((r) => r.is_error === true)).toBe(true);
    expect(text(result.results[5]!)).toContain('alpha');
  });

  it('each field is read once: a getter that would answer differently later cannot change what runs', async () => {
    let reads = 0;
    const other = path.join(dir, 'other.txt');
    writeFileSync(other, 'OTHER\n');
    const block = { type: 'tool_use', id: 'toolu_once', name: 'Read' } as Record<string, unknown>;
    Object.defineProperty(block, 'input', { enumerable: true, get: () => (reads++ === 0 ? { file_path: file } : { file_path: other }) });
    const result = await rt.run([block as unknown as ToolUseBlock]);
    expect(reads).toBe(1);
    expect(text(result.results[0]!)).toContain('alpha');
    expect(text(result.results[0]!)).not.toContain('OTHER');
  });

  it('text, thinking and server-tool blocks are skipped; a block of an unknown kind with an id gets an is_error result', async () => {
    const content = [
      { type: 'thinking', thinking: 'hmm', signature: 'x' },
      { type: 'text', text: 'reading' },
      read('toolu_r1'),
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      { type: 'tool-use', id: 'toolu_typo', name: 'Read', input: { file_path: file } },
      { id: 'toolu_notype', name: 'Read', input: { file_path: file } },
      { type: 'some_future_block' },
    ];
    const result = await rt.run({ role: 'assistant', content } as never);
    expect(result.results.map((r) => r.tool_use_id)).toEqual(['toolu_r1', 'toolu_typo', 'toolu_notype']);
    expect(result.results[0]!.is_error).toBeFalsy();
    expect(text(result.results[1]!)).toMatch(/`type` is "tool-use", so it is not a tool_use; it was not run/);
    expect(text(result.results[2]!)).toMatch(/`type` is missing/);
  });

  it('a repeated id: the first runs, the second is not run; the message keeps one tool_result per id', async () => {
    const result = await rt.run([read('toolu_dup'), read('toolu_dup'), read('toolu_after')]);
    expect(result.outcomes.map((o) => [o.toolUseId, o.isError, o.errorClass])).toEqual([
      ['toolu_dup', false, undefined],
      ['toolu_dup', true, 'duplicate_tool_use_id'],
      ['toolu_after', false, undefined],
    ]);
    expect(result.results.map((r) => r.tool_use_id)).toEqual(['toolu_dup', 'toolu_after']);
    const content = result.message.content as { type: string; text?: string; tool_use_id?: string }[];
    const ids = content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(content.some((b) => b.type === 'text' && /ids must be unique/.test(b.text ?? ''))).toBe(true);
  });

  it('what cannot be answered rejects with one ToolUseBlockError before anything runs', async () => {
    const marker = path.join(dir, 'ran.txt');
    const proxy = new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, getPrototypeOf: boom });
    const write = { type: 'tool_use', id: 'toolu_w', name: 'Bash', input: { command: `touch ${marker}` } };
    const cases: [unknown, RegExp][] = [
      [[write, null], /content\[1\]: it is null/],
      [[write, 42], /content\[1\]: it is a number/],
      [[write, proxy], /content\[1\]: .*could not be read/],
      [[write, { type: 'tool_use', name: 'Read', input: {} }], /`id` is missing/],
      [[write, { type: 'tool_use', id: '', name: 'Read', input: {} }], /`id` is an empty string/],
      [[write, { type: 'tool_use', id: 7, name: 'Read', input: {} }], /`id` is a number/],
      [[write, withThrowing({ type: 'tool_use', name: 'Read' }, 'id')], /`id` could not be read/],
      [{ role: 'assistant', content: [write, withThrowing({}, 'type')] }, /content\[1\]/],
      ['not a message', /must be an object, but it is a string/],
      [null, /must be an object, but it is null/],
      [withThrowing({ role: 'assistant' }, 'content'), /content of the assistant message could not be read/],
      [proxy, /could not be read/],
    ];
    for (const [input, message] of cases) {
      await expect(rt.run(input as never)).rejects.toSatisfy((e: unknown) => e instanceof ToolUseBlockError && e instanceof TypeError && message.test((e as Error).message));
    }
    // Nothing ran: the command beside each bad entry was never started — and it does run when it comes alone.
    expect(existsSync(marker)).toBe(false);
    const alone = await rt.run([write as ToolUseBlock]);
    expect(alone.results[0]!.is_error).toBeFalsy();
    expect(existsSync(marker)).toBe(true);
  });

  it('add(): an unanswerable block throws there and the run goes on; begin() refuses a message that is not an object', async () => {
    const handle = rt.begin({ role: 'assistant', content: [] });
    const events = (async () => {
      const seen = [];
      for await (const event of handle.events()) seen.push(event);
      return seen;
    })();
    handle.add(read('toolu_a1'));
    expect(() => handle.add(null as never)).toThrow(ToolUseBlockError);
    expect(() => handle.add({ type: 'tool_use', id: {}, name: 'Read', input: {} } as never)).toThrow(/`id` is an object/);
    handle.add({ type: 'text', text: 'skipped' } as never);
    handle.add(read('toolu_a2'));
    handle.finish();
    const done = (await events).find((e) => e.type === 'done');
    expect(done?.type === 'done' && done.result.results.map((r) => r.tool_use_id)).toEqual(['toolu_a1', 'toolu_a2']);
    expect(() => rt.begin(undefined as never)).toThrow(ToolUseBlockError);
  });
});
