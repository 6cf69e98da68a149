import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import { toolsToAPI } from '../../tool/api-format.js';
import { getEmptyToolPermissionContext } from '../../tool/permission-types.js';
import type { ToolUseBlock } from '../../tool/tool.js';
import { BASE_TOOL_ENTRIES, getAllBaseTools } from '../../registry/base-tools.js';
import { EditTool } from '../edit/index.js';
import { NotebookEditTool } from '../notebook-edit/index.js';
import { ReadTool } from '../read/index.js';
import { WriteTool } from '../write/index.js';
import { makeContext, makeTempDir } from './test-helpers/run-tool.js';

const tools = [ReadTool, EditTool, WriteTool, NotebookEditTool];

describe('the file tools as the rest of the system sees them', () => {
  it('declare the registry metadata of Claude Code 2.1.328', () => {
    expect(tools.map((t) => [t.name, t.maxResultSizeChars, t.strict ?? false, t.shouldDefer ?? false])).toEqual([
      ['Read', Infinity, true, false],
      ['Edit', 100_000, true, false],
      ['Write', 100_000, true, false],
      ['NotebookEdit', 100_000, false, true],
    ]);
    for (const tool of tools) expect(tool.searchHint?.length).toBeGreaterThan(0);
  });

  it('are read-only and concurrency-safe only for Read', () => {
    const inputs = [
      { file_path: '/a' },
      { file_path: '/a', old_string: 'x', new_string: 'y' },
      { file_path: '/a', content: '' },
      { notebook_path: '/a.ipynb', new_source: '', cell_id: 'c' },
    ];
    expect(tools.map((t, i) => [t.isReadOnly(inputs[i] as never), t.isConcurrencySafe(inputs[i] as never)])).toEqual([
      [true, true],
      [false, false],
      [false, false],
      [false, false],
    ]);
  });

  it('give the permission engine absolute paths, and make the observable input absolute for hooks', () => {
    const ctx = makeContext('/work/project');
    const cases: Array<[typeof tools[number], string]> = [
      [ReadTool, 'file_path'],
      [EditTool, 'file_path'],
      [WriteTool, 'file_path'],
      [NotebookEditTool, 'notebook_path'],
    ];
    for (const [tool, field] of cases) {
      const observable: Record<string, unknown> = { [field]: 'src/../lib/x.ipynb' };
      tool.backfillObservableInput?.(observable, ctx);
      expect(observable[field]).toBe('/work/project/lib/x.ipynb');
      expect(tool.getPath?.(observable as never)).toBe('/work/project/lib/x.ipynb');
      expect(tool.getPath?.({ [field]: '/a/./b/../c.txt' } as never)).toBe('/a/c.txt');
    }
  });

  it('are registered, in order, between Grep and the tools after them', async () => {
    const names = BASE_TOOL_ENTRIES.map((e) => e.name);
    const i = names.indexOf('Read');
    expect(names.slice(i, i + 4)).toEqual(['Read', 'Edit', 'Write', 'NotebookEdit']);
    if (names.includes('Grep')) expect(names.indexOf('Grep')).toBe(i - 1);
    const loaded = await getAllBaseTools({ entries: BASE_TOOL_ENTRIES.filter((e) => names.slice(i, i + 4).includes(e.name)), env: {} });
    expect(loaded).toEqual(tools);
  });

  it('convert to API definitions with strict schemas and their prompts', async () => {
    const defs = await toolsToAPI(tools, { getToolPermissionContext: () => getEmptyToolPermissionContext('/'), model: 'claude-sonnet-4-5' });
    for (const def of defs) {
      expect(def.description?.length).toBeGreaterThan(200);
      expect(def.input_schema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    expect(Object.keys(defs[0]!.input_schema.properties as object)).toEqual(['file_path', 'offset', 'limit', 'pages', 'allow_large']);
    expect((defs[3]!.input_schema as { required?: string[] }).required).toEqual(['notebook_path', 'new_source']);
  });
});

describe('through the real pipeline', () => {
  it('reaches the model with Claude Code texts verbatim, and classifies failures by code', async () => {
    const dir = await makeTempDir();
    try {
      const file = path.join(dir, 'a.txt');
      fs.writeFileSync(file, 'one\n');
      const ctx = makeContext(dir);
      const allow = async (_tool: unknown, input: Record<string, unknown>) => ({ behavior: 'allow' as const, updatedInput: input });
      const run = (id: string, name: string, input: Record<string, unknown>) =>
        runToolUse({ type: 'tool_use', id, name, input } as ToolUseBlock, { role: 'assistant', content: [] }, allow, { ...ctx, options: { ...ctx.options, tools } });
      const edit = await run('toolu_1', 'Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' });
      expect(edit.result).toEqual({
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
        is_error: true,
      });
      expect(edit.errorClass).toBe('Error:NOT_READ');
      const read = await run('toolu_2', 'Read', { file_path: 'a.txt' });
      expect(read.result.content).toBe('1\tone\n2');
      const again = await run('toolu_3', 'Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' });
      expect(again.isError).toBe(false);
      expect(fs.readFileSync(file, 'utf8')).toBe('two\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
