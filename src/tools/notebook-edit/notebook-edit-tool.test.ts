import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { ReadTool } from '../read/read-tool.js';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { NotebookEditTool, type NotebookEditOutput } from './notebook-edit-tool.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A notebook as Jupyter writes it: nbformat 4.5 with cell ids, sorted keys, indent 1, trailing newline. */
function fixture(): Record<string, any> {
  return {
    cells: [
      { cell_type: 'markdown', id: 'intro', metadata: { tags: ['keep'] }, source: ['# Analysis\n', 'Notes'] },
      {
        cell_type: 'code',
        execution_count: 3,
        id: 'load',
        metadata: { collapsed: false },
        outputs: [{ name: 'stdout', output_type: 'stream', text: ['42\n'] }],
        source: ['x = 42\n', 'print(x)'],
      },
      { cell_type: 'code', execution_count: null, id: 'plot', metadata: {}, outputs: [], source: [] },
    ],
    metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

let n = 0;
function writeNotebook(nb: unknown, serialize = (v: unknown) => JSON.stringify(v, null, 1) + '\n'): string {
  const file = path.join(dir, `nb${++n}.ipynb`);
  fs.writeFileSync(file, serialize(nb));
  return file;
}
async function readCtx(file: string): Promise<ToolUseContext> {
  const ctx = makeContext(dir);
  expect((await runTool(ReadTool, { file_path: file }, ctx)).isError).toBe(false);
  return ctx;
}
const nbEdit = (ctx: ToolUseContext, input: Record<string, unknown>) => runTool<NotebookEditOutput>(NotebookEditTool, input, ctx);
const onDisk = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('NotebookEdit', () => {
  it('replaces a code cell, clears its outputs, and leaves everything else byte for byte', async () => {
    const file = writeNotebook(fixture());
    const ctx = await readCtx(file);
    const r = await nbEdit(ctx, { notebook_path: file, cell_id: 'load', new_source: 'x = 43\nprint(x)' });
    expect(r.text).toBe('Updated cell load with x = 43\nprint(x)');
    const expected = fixture();
    expected.cells[1] = { ...expected.cells[1], execution_count: null, outputs: [], source: ['x = 43\n', 'print(x)'] };
    expect(fs.readFileSync(file, 'utf8')).toBe(JSON.stringify(expected, null, 1) + '\n');
    // The record now holds the new notebook: a second edit needs no new Read.
    expect((await nbEdit(ctx, { notebook_path: file, cell_id: 'intro', new_source: '# Title' })).isError).toBe(false);
    expect(onDisk(file).cells[0]).toEqual({ cell_type: 'markdown', id: 'intro', metadata: { tags: ['keep'] }, source: ['# Title'] });
  });

  it('inserts after a cell (or at the top) with sorted keys and a fresh id, and requires cell_type', async () => {
    const file = writeNotebook(fixture());
    const ctx = await readCtx(file);
    const missingType = await nbEdit(ctx, { notebook_path: file, cell_id: 'intro', new_source: 'x', edit_mode: 'insert' });
    expect(missingType.text).toBe('<tool_use_error>Cell type is required when using edit_mode=insert.</tool_use_error>');
    const r = await nbEdit(ctx, { notebook_path: file, cell_id: 'intro', new_source: 'y = 1\n', edit_mode: 'insert', cell_type: 'code' });
    const inserted = onDisk(file).cells[1];
    expect(r.text).toBe(`Inserted cell ${inserted.id} with y = 1\n`);
    expect(inserted.id).toMatch(/^[0-9a-f]{8}$/);
    expect(Object.keys(inserted)).toEqual(['cell_type', 'execution_count', 'id', 'metadata', 'outputs', 'source']);
    expect(inserted.source).toEqual(['y = 1\n']);
    await nbEdit(ctx, { notebook_path: file, new_source: 'Top note', edit_mode: 'insert', cell_type: 'markdown' });
    expect(onDisk(file).cells[0]).toMatchObject({ cell_type: 'markdown', source: ['Top note'] });
    expect(onDisk(file).cells).toHaveLength(5);
  });

  it('deletes a cell', async () => {
    const file = writeNotebook(fixture());
    const r = await nbEdit(await readCtx(file), { notebook_path: file, cell_id: 'plot', new_source: '', edit_mode: 'delete' });
    expect(r.text).toBe('Deleted cell plot');
    expect(onDisk(file).cells.map((c: { id: string }) => c.id)).toEqual(['intro', 'load']);
  });

  it('counts the lines of the cell it changed, for telemetry (replace, insert, delete)', async () => {
    const file = writeNotebook(fixture());
    const ctx = await readCtx(file);
    const lines = (r: { data?: NotebookEditOutput }) => NotebookEditTool.linesChanged?.(r.data!);
    expect(lines(await nbEdit(ctx, { notebook_path: file, cell_id: 'load', new_source: 'x = 43\nprint(x)' }))).toEqual({ added: 1, removed: 1 });
    expect(lines(await nbEdit(ctx, { notebook_path: file, cell_id: 'intro', new_source: 'a\nb\nc\n', edit_mode: 'insert', cell_type: 'code' }))).toEqual({ added: 3, removed: 0 });
    expect(lines(await nbEdit(ctx, { notebook_path: file, cell_id: 'load', new_source: '', edit_mode: 'delete' }))).toEqual({ added: 0, removed: 2 });
  });

  it('changes a cell type on replace, dropping what the new type cannot have', async () => {
    const file = writeNotebook(fixture());
    await nbEdit(await readCtx(file), { notebook_path: file, cell_id: 'load', new_source: 'now prose', cell_type: 'markdown' });
    expect(onDisk(file).cells[1]).toEqual({ cell_type: 'markdown', id: 'load', metadata: { collapsed: false }, source: ['now prose'] });
  });

  it('addresses cells without ids as cell-N and keeps another layout (indent 2, no newline, ASCII escapes)', async () => {
    const nb: Record<string, any> = { ...fixture(), nbformat_minor: 4 };
    nb.cells = nb.cells.map(({ id: _id, ...cell }: Record<string, unknown>) => cell);
    nb.cells[0].source = 'Café ☕';
    const serialize = (v: unknown) => JSON.stringify(v, null, 2).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const file = writeNotebook(nb, serialize);
    const ctx = await readCtx(file);
    const r = await nbEdit(ctx, { notebook_path: file, cell_id: 'cell-2', new_source: 'plot(é)' });
    expect(r.text).toBe('Updated cell cell-2 with plot(é)');
    const expected = structuredClone(nb);
    expected.cells[2].source = ['plot(é)'];
    expect(fs.readFileSync(file, 'utf8')).toBe(serialize(expected));
    expect((await nbEdit(ctx, { notebook_path: file, cell_id: 'cell-9', new_source: 'x' })).text).toBe(
      '<tool_use_error>Cell with index 9 does not exist in notebook.</tool_use_error>',
    );
    expect((await nbEdit(ctx, { notebook_path: file, cell_id: 'nope', new_source: 'x' })).text).toBe(
      '<tool_use_error>Cell with ID "nope" not found in notebook.</tool_use_error>',
    );
  });

  it('requires a full read, refuses a changed notebook, and validates its input', async () => {
    const file = writeNotebook(fixture());
    expect((await nbEdit(makeContext(dir), { notebook_path: file, cell_id: 'load', new_source: 'x' })).text).toBe(
      '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
    );
    const ctx = await readCtx(file);
    const changed = fixture();
    changed.cells[0].source = ['# Changed elsewhere'];
    fs.writeFileSync(file, JSON.stringify(changed, null, 1) + '\n');
    const stale = await nbEdit(ctx, { notebook_path: file, cell_id: 'load', new_source: 'x' });
    expect(stale.text).toMatch(/^<tool_use_error>File has been modified since read, either by the user or by a linter\. Read it again before attempting to write it\.\nWhat changed since your last read:\n/);
    expect(stale.text).toContain('+    "# Changed elsewhere"');
    expect((await nbEdit(ctx, { notebook_path: path.join(dir, 'x.py'), cell_id: 'a', new_source: 'x' })).text).toBe(
      '<tool_use_error>File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.</tool_use_error>',
    );
    expect((await nbEdit(ctx, { notebook_path: file, new_source: 'x' })).text).toBe(
      '<tool_use_error>Cell ID must be specified when not inserting a new cell.</tool_use_error>',
    );
    expect((await nbEdit(ctx, { notebook_path: path.join(dir, 'missing.ipynb'), cell_id: 'a', new_source: 'x' })).text).toBe(
      '<tool_use_error>Notebook file does not exist.</tool_use_error>',
    );
    const broken = path.join(dir, 'broken.ipynb');
    fs.writeFileSync(broken, '{"cells": [');
    const relaxed = makeContext(dir, { settings: { requireReadBeforeWrite: false } });
    expect((await nbEdit(relaxed, { notebook_path: broken, cell_id: 'a', new_source: 'x' })).text).toBe(
      '<tool_use_error>Notebook is not valid JSON.</tool_use_error>',
    );
  });
});
