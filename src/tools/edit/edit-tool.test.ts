import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { ReadTool } from '../read/read-tool.js';
import { WriteTool } from '../write/write-tool.js';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import type { EditOutput } from './edit-output.js';
import { EditTool } from './edit-tool.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

let n = 0;
function write(content: string | Buffer, ext = 'txt'): string {
  const file = path.join(dir, `f${++n}.${ext}`);
  fs.writeFileSync(file, content);
  return file;
}

const edit = (ctx: ToolUseContext, input: Record<string, unknown>) => runTool<EditOutput>(EditTool, input, ctx);
async function readFirst(file: string, ctx = makeContext(dir), extra: Record<string, unknown> = {}): Promise<ToolUseContext> {
  const r = await runTool(ReadTool, { file_path: file, ...extra }, ctx);
  expect(r.isError).toBe(false);
  return ctx;
}

describe('Edit: the basics', () => {
  it('refuses a file that was never read, with Claude Code message', async () => {
    const file = write('a\n');
    const r = await edit(makeContext(dir), { file_path: file, old_string: 'a', new_string: 'b' });
    expect(r.text).toBe('<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>');
    expect(fs.readFileSync(file, 'utf8')).toBe('a\n');
  });

  it('replaces once, says so in Claude Code\'s words, and a second edit works without re-reading', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const file = write(lines.join('\n') + '\n');
    const ctx = await readFirst(file);
    const r = await edit(ctx, { file_path: file, old_string: 'line 10\n', new_string: 'line ten\n' });
    expect(r.isError).toBe(false);
    expect(r.text).toBe(`The file ${file} has been updated successfully. (file state is current in your context — no need to Read it back)`);
    expect(r.data?.structuredPatch).toEqual([
      { oldStart: 7, oldLines: 7, newStart: 7, newLines: 7, lines: [' line 7', ' line 8', ' line 9', '-line 10', '+line ten', ' line 11', ' line 12', ' line 13'] },
    ]);
    const again = await edit(ctx, { file_path: file, old_string: 'line 11', new_string: 'line eleven' });
    expect(again.isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toContain('line ten\nline eleven\nline 12');
  });

  it('rejects a no-op edit before touching anything', async () => {
    const r = await edit(makeContext(dir), { file_path: '/nowhere/x', old_string: 'same', new_string: 'same' });
    expect(r.text).toBe('<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>');
  });

  it("gives Claude Code's not-found and found-N-times messages, each with the string", async () => {
    const file = write('foo\nbar\nfoo\n');
    const ctx = await readFirst(file);
    expect((await edit(ctx, { file_path: file, old_string: 'baz', new_string: 'x' })).text).toBe(
      '<tool_use_error>String to replace not found in file.\nString: baz</tool_use_error>',
    );
    expect((await edit(ctx, { file_path: file, old_string: 'foo', new_string: 'x' })).text).toBe(
      '<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: foo</tool_use_error>',
    );
  });

  it('replace_all replaces every occurrence and says so', async () => {
    const file = write('foo\nbar\nfoo\n');
    const ctx = await readFirst(file);
    const r = await edit(ctx, { file_path: file, old_string: 'foo', new_string: 'qux', replace_all: true });
    expect(r.text).toBe(`The file ${file} has been updated. All occurrences were successfully replaced. (file state is current in your context — no need to Read it back)`);
    expect(fs.readFileSync(file, 'utf8')).toBe('qux\nbar\nqux\n');
    expect(r.data?.replacements).toBe(2);
  });

  it('creates a file with an empty old_string, and refuses that on a non-empty file', async () => {
    const file = path.join(dir, 'new', 'deep', 'made.txt');
    const r = await edit(makeContext(dir), { file_path: file, old_string: '', new_string: 'hello\n' });
    expect(r.text).toBe(`The file ${file} has been updated successfully. (file state is current in your context — no need to Read it back)`);
    expect(fs.readFileSync(file, 'utf8')).toBe('hello\n');
    const again = await edit(makeContext(dir), { file_path: file, old_string: '', new_string: 'other' });
    expect(again.text).toBe('<tool_use_error>Cannot create new file - file already exists.</tool_use_error>');
  });

  it('refuses missing files, directories and notebooks with clear errors', async () => {
    const ctx = makeContext(dir);
    expect((await edit(ctx, { file_path: path.join(dir, 'missing.txt'), old_string: 'a', new_string: 'b' })).text).toBe(
      `<tool_use_error>File does not exist. Note: your current working directory is ${dir}.</tool_use_error>`,
    );
    expect((await edit(ctx, { file_path: dir, old_string: 'a', new_string: 'b' })).text).toBe(
      `<tool_use_error>Cannot edit ${dir}: it is a directory, not a file. Give the path of a file.</tool_use_error>`,
    );
    expect((await edit(ctx, { file_path: path.join(dir, 'x.ipynb'), old_string: 'a', new_string: 'b' })).text).toBe(
      '<tool_use_error>File is a Jupyter Notebook. Use the NotebookEdit to edit this file.</tool_use_error>',
    );
  });

  it('resolves relative paths against the cwd and shows hooks the absolute path', async () => {
    const file = write('rel\n');
    const ctx = await readFirst(file);
    const r = await edit(ctx, { file_path: path.basename(file), old_string: 'rel', new_string: 'abs' });
    expect(r.observable.file_path).toBe(file);
    expect(r.text).toContain(`The file ${file} has been updated successfully.`);
  });
});

describe('Edit: what counts as a read', () => {
  it('refuses after one window (offset/limit); accepts once windows of the same version cover every line', async () => {
    const file = write(Array.from({ length: 400 }, (_, i) => `entry ${i + 1} with padding text`).join('\n') + '\n');
    const windowCtx = await readFirst(file, makeContext(dir), { offset: 390, limit: 5 });
    const refused = await edit(windowCtx, { file_path: file, old_string: 'entry 392 ', new_string: 'entry #392 ' });
    expect(refused.text).toBe(
      '<tool_use_error>File has not been read yet. Read it first before writing to it. A partial read does not count: read the rest with offset/limit (windows add up; once every line has been read, the file counts as read). You have seen lines 390-394 of 401 of this version of the file.</tool_use_error>',
    );
    await readFirst(file, windowCtx, { offset: 1, limit: 389 });
    expect(windowCtx.readFileState.get(file)?.partial).toBe(true);
    await readFirst(file, windowCtx, { offset: 395, limit: 100 });
    expect(windowCtx.readFileState.get(file)?.partial).toBe(false);
    expect((await edit(windowCtx, { file_path: file, old_string: 'entry 392 ', new_string: 'entry #392 ' })).isError).toBe(false);

    vi.stubEnv('TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS', '200');
    const cappedCtx = await readFirst(file);
    expect(cappedCtx.readFileState.get(file)?.truncatedByTokenCap).toBe(true);
    expect((await edit(cappedCtx, { file_path: file, old_string: 'entry 1 ', new_string: 'entry #1 ' })).text).toBe(
      '<tool_use_error>File has not been read yet. Read it first before writing to it. A partial read does not count: read the rest with offset/limit (windows add up; once every line has been read, the file counts as read). You have seen lines 1-27 of 401 of this version of the file.</tool_use_error>',
    );
  });

  it('can be relaxed with requireReadBeforeWrite: false', async () => {
    const file = write('unread\n');
    const ctx = makeContext(dir, { settings: { requireReadBeforeWrite: false } });
    expect((await edit(ctx, { file_path: file, old_string: 'unread', new_string: 'edited' })).isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('edited\n');
  });
});

describe('Edit after an external change', () => {
  it('goes ahead when old_string still matches exactly once, and says the file had other changes', async () => {
    const file = write('alpha\nbeta\ngamma\n');
    const ctx = await readFirst(file);
    fs.writeFileSync(file, 'ALPHA (changed by a formatter)\nbeta\ngamma\n');
    const r = await edit(ctx, { file_path: file, old_string: 'gamma', new_string: 'delta' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain(
      `The file ${file} has been updated successfully. (note: the file had been modified on disk since you last read it — the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('ALPHA (changed by a formatter)\nbeta\ndelta\n');
    expect(ctx.readFileState.get(file)?.unseenChanges).toBe(true);
  });

  // The class: after a read of the whole file, no later refusal says the file was not (fully) read.
  it('Read, external change, Edit, Edit: both apply, and nothing claims the file was not read', async () => {
    const file = write('alpha\nbeta\ngamma\ndelta\n');
    const ctx = await readFirst(file);
    fs.writeFileSync(file, 'ALPHA\nbeta\ngamma\ndelta\n');
    const first = await edit(ctx, { file_path: file, old_string: 'beta', new_string: 'BETA' });
    const second = await edit(ctx, { file_path: file, old_string: 'gamma', new_string: 'GAMMA' });
    const third = await edit(ctx, { file_path: file, old_string: 'delta', new_string: 'DELTA', replace_all: true });
    for (const r of [first, second, third]) {
      expect(r.isError).toBe(false);
      expect(r.text).not.toContain('has not been read');
      expect(r.text).toContain('the file contains other changes not in your context');
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('ALPHA\nBETA\nGAMMA\nDELTA\n');
  });

  it('a second external change between the Edits is judged afresh: refused as stale when old_string no longer matches once', async () => {
    const file = write('one\ntwo\nthree\n');
    const ctx = await readFirst(file);
    fs.writeFileSync(file, 'ONE\ntwo\nthree\n');
    expect((await edit(ctx, { file_path: file, old_string: 'two', new_string: '2' })).isError).toBe(false);
    fs.writeFileSync(file, 'ONE\n2\n');
    const r = await edit(ctx, { file_path: file, old_string: 'three', new_string: '3' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('File has been modified since read');
    expect(r.text).toContain('-three');
    expect(r.text).not.toContain('has not been read');
  });

  it('a window read of a version the model edited keeps it read; Write after unseen changes is refused as stale, not as unread', async () => {
    const file = write(Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const ctx = await readFirst(file);
    expect((await edit(ctx, { file_path: file, old_string: 'line 3\n', new_string: 'line three\n' })).isError).toBe(false);
    await readFirst(file, ctx, { offset: 40, limit: 5 });
    expect((await edit(ctx, { file_path: file, old_string: 'line 42\n', new_string: 'line forty-two\n' })).isError).toBe(false);

    fs.appendFileSync(file, 'appended by someone else\n');
    expect((await edit(ctx, { file_path: file, old_string: 'line 1\n', new_string: 'line one\n' })).isError).toBe(false);
    const write1 = await runTool(WriteTool, { file_path: file, content: 'replaced\n' }, ctx);
    expect(write1.isError).toBe(true);
    expect(write1.text).toContain('File has been modified since read');
    expect(write1.text).toContain('An earlier Edit applied over changes made on disk that you have not read');
    expect(write1.text).not.toContain('has not been read');
    // A window does not show the unseen change; the whole file does.
    await readFirst(file, ctx, { offset: 1, limit: 10 });
    expect((await runTool(WriteTool, { file_path: file, content: 'replaced\n' }, ctx)).isError).toBe(true);
    await readFirst(file, ctx);
    expect((await runTool(WriteTool, { file_path: file, content: 'replaced\n' }, ctx)).isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('replaced\n');
  });

  it('is refused, showing what changed, when old_string no longer matches once', async () => {
    const file = write('one\ntwo\nthree\n');
    const ctx = await readFirst(file);
    fs.writeFileSync(file, 'one\n2\nthree\n');
    const r = await edit(ctx, { file_path: file, old_string: 'two', new_string: 'TWO' });
    expect(r.text).toBe(
      '<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it. old_string is not in the current file.\n' +
        'What changed since your last read:\n' +
        `--- ${file}\tas you last read it\n+++ ${file}\tnow on disk\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three</tool_use_error>`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('one\n2\nthree\n');
  });

  it('ignores a rewrite that changed the mtime but not the bytes', async () => {
    const file = write('same\n');
    const ctx = await readFirst(file);
    fs.writeFileSync(file, 'same\n');
    fs.utimesSync(file, new Date(), new Date(Date.now() + 60_000));
    const r = await edit(ctx, { file_path: file, old_string: 'same', new_string: 'new' });
    expect(r.isError).toBe(false);
    expect(r.data?.changedSinceRead).toBe(false);
  });
});
