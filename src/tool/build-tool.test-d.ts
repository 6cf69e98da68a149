import { expectTypeOf, test } from 'vitest';
import * as z from 'zod';
import { buildTool } from './build-tool.js';
import type { Tool } from './tool.js';

const schema = z.object({ file_path: z.string(), limit: z.number().optional() });

test('a complete definition yields a Tool with inferred input and output', () => {
  const tool = buildTool({
    name: 'Read',
    inputSchema: schema,
    maxResultSizeChars: Infinity,
    prompt: async () => 'p',
    call: async (input) => ({ data: { lines: input.file_path.length } }),
  });
  expectTypeOf(tool).toMatchTypeOf<Tool<typeof schema, { lines: number }>>();
  expectTypeOf(tool.isReadOnly).parameter(0).toEqualTypeOf<{ file_path: string; limit?: number | undefined }>();
});

test('forgetting a required member does not compile', () => {
  // @ts-expect-error -- no name
  buildTool({ inputSchema: schema, maxResultSizeChars: 1, prompt: async () => 'p', call: async () => ({ data: 1 }) });
  // @ts-expect-error -- no inputSchema (and no inputJSONSchema)
  buildTool({ name: 'T', maxResultSizeChars: 1, prompt: async () => 'p', call: async () => ({ data: 1 }) });
  // @ts-expect-error -- no call
  buildTool({ name: 'T', inputSchema: schema, maxResultSizeChars: 1, prompt: async () => 'p' });
  // @ts-expect-error -- no prompt
  buildTool({ name: 'T', inputSchema: schema, maxResultSizeChars: 1, call: async () => ({ data: 1 }) });
  // @ts-expect-error -- no maxResultSizeChars
  buildTool({ name: 'T', inputSchema: schema, prompt: async () => 'p', call: async () => ({ data: 1 }) });
});

test('a defaulted member must still have the right type when given', () => {
  buildTool({
    name: 'T',
    inputSchema: schema,
    maxResultSizeChars: 1,
    prompt: async () => 'p',
    call: async () => ({ data: 1 }),
    // @ts-expect-error -- isReadOnly returns a boolean
    isReadOnly: () => 'yes',
  });
});
