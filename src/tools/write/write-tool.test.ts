import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { EditTool } from '../edit/edit-tool.js';
import { ReadTool } from '../read/read-tool.js';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { WriteTool, type WriteOutput } from './write-tool.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function existing(content: string | Buffer): string {
  const file = path.join(dir, `w${++n}.txt`);
  fs.writeFileSync(file, content);
  return file;
}
const write = (ctx: ToolUseContext, input: Record<string, unknown>) => runTool<WriteOutput>(WriteTool, input, ctx);
async function readCtx(file: string, extra: Record<string, unknown> = {}, ctx = makeContext(dir)): Promise<ToolUseContext> {
  expect((await runTool(ReadTool, { file_path: file, ...extra }, ctx)).isError).toBe(false);
  return ctx;
}

describe('Write', () => {
  it('creates a new file, and its parent directories', async () => {
    const file = path.join(dir, 'a', 'b', 'new.txt');
    const r = await write(makeContext(dir), { file_path: file, content: 'fresh\n' });
    expect(r.text).toBe(`File created successfully at: ${file} (file state is current in your context — no need to Read it back)`);
    expect(fs.readFileSync(file, 'utf8')).toBe('fresh\n');
    expect(r.data?.type).toBe('create');
  });

  it('updates a fully read file and says so in Claude Code\'s words', async () => {
    const file = existing('one\ntwo\nthree\n');
    const ctx = await readCtx(file);
    const r = await write(ctx, { file_path: file, content: 'one\nTWO\nthree\n' });
    expect(r.text).toBe(`The file ${file} has been updated successfully. (file state is current in your context — no need to Read it back)`);
    expect(r.data?.structuredPatch).toEqual([{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' one', '-two', '+TWO', ' three'] }]);
    expect(r.data?.originalFile).toBe('one\ntwo\nthree\n');
    // The record now holds what was written: an Edit right after needs no new Read.
    expect((await runTool(EditTool, { file_path: file, old_string: 'TWO', new_string: 'zwei' }, ctx)).isError).toBe(false);
  });

  it('refuses an existing file that was not read, or only partly read', async () => {
    const file = existing(Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n'));
    const unread = await write(makeContext(dir), { file_path: file, content: 'x' });
    expect(unread.text).toBe('<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>');
    const partial = await write(await readCtx(file, { offset: 5, limit: 3 }), { file_path: file, content: 'x' });
    expect(partial.text).toBe(
      '<tool_use_error>File has not been read yet. Read it first before writing to it. A partial read does not count: read the rest with offset/limit (windows add up; once every line has been read, the file counts as read). You have seen lines 5-7 of 30 of this version of the file.</tool_use_error>',
    );
    expect(fs.readFileSync(file, 'utf8').startsWith('l0\nl1')).toBe(true);
  });

  it('refuses a file changed since it was read, showing the change', async () => {
    const file = existing('v1\n');
    const ctx = await readCtx(file);
    fs.writeFileSync(file, 'v2 from someone else\n');
    const r = await write(ctx, { file_path: file, content: 'mine\n' });
    expect(r.text).toBe(
      '<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.\n' +
        `What changed since your last read:\n--- ${file}\tas you last read it\n+++ ${file}\tnow on disk\n@@ -1,1 +1,1 @@\n-v1\n+v2 from someone else</tool_use_error>`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('v2 from someone else\n');
  });

  it('keeps CRLF, the BOM and the mode of the file it replaces', async () => {
    const file = existing(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\r\nb\r\n')]));
    fs.chmodSync(file, 0o640);
    const r = await write(await readCtx(file), { file_path: file, content: 'x\ny\nz\n' });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(file)).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\r\ny\r\nz\r\n')]));
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  });

  it('refuses directories and bad paths', async () => {
    expect((await write(makeContext(dir), { file_path: dir, content: 'x' })).text).toContain(`Cannot write ${dir}: it is a directory`);
    expect((await write(makeContext(dir), { file_path: '', content: 'x' })).text).toBe('<tool_use_error>file_path must not be empty.</tool_use_error>');
  });

  it('refuses a FIFO and a device at once instead of blocking on them', async () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    expect((await write(makeContext(dir), { file_path: fifo, content: 'x' })).text).toBe(
      `<tool_use_error>Cannot write ${fifo}: it is a FIFO (named pipe), not a regular file. Only regular files can be changed with this tool.</tool_use_error>`,
    );
    const edit = await runTool(EditTool, { file_path: '/dev/zero', old_string: 'a', new_string: 'b' }, makeContext(dir));
    expect(edit.text).toBe(
      '<tool_use_error>Cannot edit /dev/zero: it is a character device, not a regular file. Only regular files can be changed with this tool.</tool_use_error>',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports an identical rewrite as any update (as Claude Code)', async () => {
    const file = existing('same\n');
    const r = await write(await readCtx(file), { file_path: file, content: 'same\n' });
    expect(r.text).toBe(`The file ${file} has been updated successfully. (file state is current in your context — no need to Read it back)`);
  });
});
