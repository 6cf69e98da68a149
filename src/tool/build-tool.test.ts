import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool, ToolDefinitionError } from './build-tool.js';
import { createToolUseContext } from './tool-use-context.js';
import { getEmptyToolPermissionContext } from './permission-types.js';

const minimal = () =>
  buildTool({
    name: 'Minimal',
    inputSchema: z.object({ path: z.string() }),
    maxResultSizeChars: 1000,
    prompt: async () => 'A minimal tool.',
    call: async (input) => ({ data: { seen: input.path } }),
  });

describe('buildTool defaults (fail-closed)', () => {
  const tool = minimal();
  const input = { path: '/x' };
  const ctx = createToolUseContext({ tools: [], permissionContext: getEmptyToolPermissionContext('/tmp'), sessionDir: '/tmp/s' });

  it('is enabled', () => expect(tool.isEnabled()).toBe(true));
  it('is not concurrency-safe', () => expect(tool.isConcurrencySafe(input)).toBe(false));
  it('is not read-only', () => expect(tool.isReadOnly(input)).toBe(false));
  it('is not destructive', () => expect(tool.isDestructive(input)).toBe(false));
  it('has no tool-specific objection: allow with the input unchanged', async () => {
    await expect(tool.checkPermissions(input, ctx)).resolves.toEqual({ behavior: 'allow', updatedInput: input });
  });
  it('gives the classifier nothing', () => expect(tool.toAutoClassifierInput(input)).toBe(''));
  it('shows its name to users', () => expect(tool.userFacingName()).toBe('Minimal'));
  it('renders a tool use as compact JSON', () => expect(tool.renderToolUseMessage(input)).toBe('{ "path": "/x" }'));
  it('maps non-string output to JSON text', () => {
    expect(tool.mapToolResultToToolResultBlockParam({ seen: '/x' }, 'id1')).toEqual({
      type: 'tool_result',
      tool_use_id: 'id1',
      content: '{\n  "seen": "/x"\n}',
    });
  });
  it('lets the definition override every default', () => {
    const t = buildTool({
      name: 'Safe',
      inputSchema: z.object({}),
      maxResultSizeChars: 10,
      prompt: async () => 'p',
      call: async () => ({ data: 'x' }),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      isEnabled: () => false,
      userFacingName: () => 'Safe thing',
    });
    expect([t.isConcurrencySafe({}), t.isReadOnly({}), t.isEnabled(), t.userFacingName()]).toEqual([true, true, false, 'Safe thing']);
  });
});

describe('buildTool rejects incomplete definitions at run time, naming the member', () => {
  const base = { name: 'T', inputSchema: z.object({}), maxResultSizeChars: 10, prompt: async () => 'p', call: async () => ({ data: 1 }) };
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['name', { ...base, name: undefined }, /missing required member "name"/],
    ['empty name', { ...base, name: '' }, /missing required member "name"/],
    ['bad name', { ...base, name: 'has space' }, /invalid name/],
    ['schema', { ...base, inputSchema: undefined }, /tool "T" is missing required member "inputSchema"/],
    ['non-object schema', { ...base, inputSchema: z.string() }, /not a Zod object schema/],
    ['call', { ...base, call: undefined }, /tool "T" is missing required member "call"/],
    ['prompt', { ...base, prompt: undefined }, /missing required member "prompt"/],
    ['maxResultSizeChars', { ...base, maxResultSizeChars: undefined }, /missing required member "maxResultSizeChars"/],
    ['JSON schema root', { ...base, inputSchema: undefined, inputJSONSchema: { type: 'array' } }, /root is not/],
  ];
  for (const [label, def, message] of cases) {
    it(`without ${label}`, () => {
      expect(() => buildTool(def as never)).toThrow(ToolDefinitionError);
      expect(() => buildTool(def as never)).toThrow(message);
    });
  }
});

describe('buildTool with a JSON Schema only (MCP tools)', () => {
  it('accepts any object input and keeps the JSON Schema', () => {
    const t = buildTool({
      name: 'mcp__s__t',
      inputJSONSchema: { type: 'object', properties: { q: { type: 'string' } } },
      maxResultSizeChars: 100,
      prompt: async () => 'p',
      call: async () => ({ data: 'ok' }),
    });
    expect(t.inputSchema.safeParse({ q: 'x', extra: 1 })).toEqual({ success: true, data: { q: 'x', extra: 1 } });
    expect(t.inputSchema.safeParse('nope').success).toBe(false);
    expect(t.inputJSONSchema).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
  });
});
