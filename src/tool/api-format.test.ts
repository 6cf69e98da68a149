import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from './build-tool.js';
import { INPUT_EXAMPLES_BETA, modelSupportsStrictTools, strictInputSchema, toolToAPI, zodToInputJSONSchema } from './api-format.js';
import { getEmptyToolPermissionContext } from './permission-types.js';
import { makeMcpTestTool, makeTestTool } from '../../test/helpers/tools.js';

const ctx = getEmptyToolPermissionContext('/work');
const opts = { getToolPermissionContext: () => ctx, tools: [], model: 'claude-sonnet-4-5' };

const schema = z.object({
  file_path: z.string().describe('The absolute path to the file'),
  offset: z.number().int().optional().describe('Line to start at'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence'),
});

describe('zodToInputJSONSchema', () => {
  it('gives an object root, no $schema, descriptions, and input-side optionality for defaults', () => {
    expect(zodToInputJSONSchema(schema)).toEqual({
      type: 'object',
      properties: {
        file_path: { type: 'string', description: 'The absolute path to the file' },
        offset: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991, description: 'Line to start at' },
        replace_all: { type: 'boolean', default: false, description: 'Replace every occurrence' },
      },
      required: ['file_path'],
    });
  });
  it('marks strict objects as closed', () => {
    expect(zodToInputJSONSchema(z.strictObject({ a: z.string() }))).toMatchObject({ additionalProperties: false });
  });
});

describe('toolToAPI', () => {
  const tool = buildTool({
    name: 'Read',
    inputSchema: schema,
    maxResultSizeChars: Infinity,
    strict: true,
    inputExamples: [{ file_path: '/a.ts' }],
    prompt: async (o) => `Reads files. ${o.tools.length} tools; cwd ${o.getToolPermissionContext().cwd}`,
    call: async () => ({ data: '' }),
  });

  it('builds name, description from the prompt (which sees context and tools), and schema', async () => {
    const def = await toolToAPI(tool, { ...opts, tools: [tool] });
    expect(def.name).toBe('Read');
    expect(def.description).toBe('Reads files. 1 tools; cwd /work');
    // A strict tool goes out in strict mode's subset: closed, no bounds strict mode rejects.
    expect(def.input_schema).toEqual(strictInputSchema(zodToInputJSONSchema(schema)).ok && (strictInputSchema(zodToInputJSONSchema(schema)) as { schema: unknown }).schema);
    expect(def.input_schema).toMatchObject({ additionalProperties: false, properties: { file_path: zodToInputJSONSchema(schema).properties!.file_path } });
    expect((await toolToAPI(tool, { ...opts, tools: [tool], strictTools: false })).input_schema).toEqual(zodToInputJSONSchema(schema));
    expect(def).not.toHaveProperty('input_examples');
    expect(def).not.toHaveProperty('defer_loading');
  });

  it('sets strict only when the tool asks and the model supports it', async () => {
    expect((await toolToAPI(tool, opts)).strict).toBe(true);
    expect(await toolToAPI(tool, { ...opts, model: 'claude-3-5-haiku-20241022' })).not.toHaveProperty('strict');
    expect(await toolToAPI(tool, { ...opts, strictTools: false })).not.toHaveProperty('strict');
    expect(await toolToAPI(makeTestTool('Plain'), opts)).not.toHaveProperty('strict');
  });

  it('sends input_examples only under the beta', async () => {
    const def = await toolToAPI(tool, { ...opts, betas: [INPUT_EXAMPLES_BETA] });
    expect(def.input_examples).toEqual([{ file_path: '/a.ts' }]);
  });

  it('sends an MCP tool’s JSON Schema as given, deferred only when ToolSearch is in the pool', async () => {
    const mcp = makeMcpTestTool('github', 'search');
    const search = makeTestTool('ToolSearch');
    expect((await toolToAPI(mcp, opts)).input_schema).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
    expect(await toolToAPI(mcp, { ...opts, tools: [mcp] })).not.toHaveProperty('defer_loading');
    expect((await toolToAPI(mcp, { ...opts, tools: [search, mcp] })).defer_loading).toBe(true);
  });

  it('defers shouldDefer tools but never alwaysLoad ones', async () => {
    const search = makeTestTool('ToolSearch');
    const deferred = makeTestTool('Notebook', { shouldDefer: true });
    const pinned = makeTestTool('Pinned', { shouldDefer: true, alwaysLoad: true });
    const tools = [search, deferred, pinned];
    expect((await toolToAPI(deferred, { ...opts, tools })).defer_loading).toBe(true);
    expect(await toolToAPI(pinned, { ...opts, tools })).not.toHaveProperty('defer_loading');
    expect(await toolToAPI(search, { ...opts, tools })).not.toHaveProperty('defer_loading');
  });
});

describe('modelSupportsStrictTools', () => {
  it.each([
    ['claude-sonnet-4-5', true],
    ['claude-sonnet-4-5-20250929', true],
    ['claude-opus-4-1', true],
    ['claude-haiku-4-5', true],
    ['claude-opus-5', true],
    ['claude-sonnet-4-20250514', false],
    ['claude-3-7-sonnet-latest', false],
    ['gpt-4o', false],
    [undefined, false],
  ])('%s → %s', (model, expected) => expect(modelSupportsStrictTools(model)).toBe(expected));
});
