/**
 * 10,000 malformed or hostile tool_use blocks (fixed seed): wrong JSON types, huge strings, prototype-pollution keys,
 * deep nesting, non-objects, unknown and absurd tool names. Each is built to be invalid, so the property is strict:
 * no throw escapes, every block gets exactly one `is_error` result, in order, and nothing reaches Object.prototype.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as z from 'zod';
import { StreamingToolExecutor, type ExecutorUpdate } from '../src/execution/streaming-tool-executor.js';
import { buildTool } from '../src/tool/build-tool.js';
import type { AnyTool, ToolUseBlock } from '../src/tool/tool.js';
import { allowAll, assistantMessage, makeContext, tempSession, type TempSession } from './helpers/execution.js';
import { makeMcpTestTool, makeTestTool } from './helpers/tools.js';

let session: TempSession;
beforeAll(() => {
  session = tempSession('toolgate-fuzz-');
});
afterAll(() => session.cleanup());

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let ran = 0;
const ranTool = () => {
  ran++;
  return { data: 'ran' };
};

const readTool = buildTool({
  name: 'Read',
  inputSchema: z.strictObject({
    file_path: z.string().min(1),
    offset: z.number().int().nonnegative().optional(),
    limit: z.number().int().positive().optional(),
  }),
  maxResultSizeChars: Infinity,
  prompt: async () => '',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async () => ranTool(),
});
const bashTool = buildTool({
  name: 'Bash',
  inputSchema: z.strictObject({ command: z.string().min(1), timeout: z.number().int().max(600_000).optional() }),
  maxResultSizeChars: 30_000,
  prompt: async () => '',
  call: async () => ranTool(),
});
const deferredTool = buildTool({
  name: 'NotebookEdit',
  shouldDefer: true,
  inputSchema: z.strictObject({ cell: z.number().int(), source: z.string() }),
  maxResultSizeChars: 10_000,
  prompt: async () => '',
  call: async () => ranTool(),
});
const mcpTool = makeMcpTestTool('srv', 'query');
const tools: AnyTool[] = [readTool, bashTool, deferredTool, makeTestTool('ToolSearch'), mcpTool];

const HUGE = ['x'.repeat(100_000), 'é'.repeat(300_000), '\u0000'.repeat(50_000)];

function generate(rand: () => number, i: number): ToolUseBlock {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  // Never a string: these go where the schema wants one.
  const wrong = (): unknown => pick([null, true, 12.5, -1, [], [1, 'a'], [HUGE[0]], {}, { a: { b: [] } }, Number.NaN, 2 ** 80]);
  const nonObject = (): unknown => pick([null, undefined, 0, 'input', [], [{}], true, HUGE[1]]);
  const deep = (): unknown => {
    let v: unknown = 'bottom';
    for (let d = 0; d < 80 + Math.floor(rand() * 40); d++) v = { d: v };
    return v;
  };
  const id = `toolu_${i}`;
  const kind = Math.floor(rand() * 12);
  switch (kind) {
    case 0: // unknown or absurd tool names
      return { type: 'tool_use', id, name: pick(['Nope', '', 'read', '__proto__', 'constructor', 'toString', 'mcp__srv__other', HUGE[0], 'Bash\u0000']), input: {} } as ToolUseBlock;
    case 1: // names that are not strings
      return { type: 'tool_use', id, name: pick([null, 42, {}, ['Read']]) as unknown as string, input: { file_path: '/a' } } as ToolUseBlock;
    case 2: // inputs that are not objects, for every tool including the MCP one that accepts any object
      return { type: 'tool_use', id, name: pick(['Read', 'Bash', 'NotebookEdit', mcpTool.name]), input: nonObject() } as ToolUseBlock;
    case 3: // a required parameter of the wrong type
      return { type: 'tool_use', id, name: 'Read', input: { file_path: wrong() } } as ToolUseBlock;
    case 4: // a required parameter missing, with random extra keys
      return { type: 'tool_use', id, name: 'Bash', input: { [`k${Math.floor(rand() * 1e6)}`]: wrong() } } as ToolUseBlock;
    case 5: // unknown parameters carrying huge strings
      return { type: 'tool_use', id, name: 'Bash', input: { command: 'ls', extra: pick(HUGE) } } as ToolUseBlock;
    case 6: // prototype pollution through JSON, at the top and nested, for strict and loose schemas
      return {
        type: 'tool_use',
        id,
        name: pick(['Read', mcpTool.name]),
        input: JSON.parse(pick([
          '{"file_path":"/a","__proto__":{"polluted":true}}',
          '{"q":"x","nested":{"__proto__":{"polluted":true}}}',
          '{"q":"x","constructor":{"prototype":{"polluted":true}}}',
          '{"q":[{"a":{"prototype":{"polluted":true}}}]}',
        ])),
      } as ToolUseBlock;
    case 7: // nesting past the limit
      return { type: 'tool_use', id, name: mcpTool.name, input: { q: deep() } } as ToolUseBlock;
    case 8: // numbers that are not what the schema wants
      return { type: 'tool_use', id, name: 'Read', input: { file_path: '/a', limit: pick([0, -3, 1.5, Number.POSITIVE_INFINITY, Number.NaN, '10', HUGE[0]]) } } as ToolUseBlock;
    case 9: // a deferred tool called with stringly-typed parameters (never loaded through ToolSearch)
      return { type: 'tool_use', id, name: 'NotebookEdit', input: { cell: String(Math.floor(rand() * 10)), source: 'x' } } as ToolUseBlock;
    case 10: // empty strings where min(1) applies, and timeouts beyond the maximum
      return { type: 'tool_use', id, name: 'Bash', input: pick([{ command: '' }, { command: 'ls', timeout: 10_000_000 }, { command: 'ls', timeout: -5.5 }]) } as ToolUseBlock;
    default: // a block whose input key is missing entirely
      return { type: 'tool_use', id, name: pick(['Read', 'Bash']) } as unknown as ToolUseBlock;
  }
}

it('10,000 hostile tool_use blocks: no throw escapes, one is_error result each, in order', async () => {
  const rand = mulberry32(0x5eed);
  const blocks = Array.from({ length: 10_000 }, (_, i) => generate(rand, i));
  const context = makeContext(tools, session.dir);
  const executor = new StreamingToolExecutor(tools, allowAll, context);
  for (const block of blocks) executor.addTool(block, assistantMessage);
  const results: Extract<ExecutorUpdate, { type: 'result' }>[] = [];
  for await (const update of executor.getRemainingResults()) if (update.type === 'result') results.push(update);

  expect(results).toHaveLength(blocks.length);
  expect(results.map((r) => r.toolUseId)).toEqual(blocks.map((b) => b.id));
  const notErrors = results.filter((r) => !r.outcome.isError || r.outcome.result.is_error !== true);
  expect(notErrors.map((r) => r.toolUseId)).toEqual([]);
  for (const r of results) {
    expect(r.outcome.result.tool_use_id).toBe(r.toolUseId);
    expect(String(r.outcome.result.content)).toMatch(/^<tool_use_error>/);
  }
  expect(ran).toBe(0);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
}, 30_000);
