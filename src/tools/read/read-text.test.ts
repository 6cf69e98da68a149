import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sha256 } from '../shared/hash.js';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { ReadTool } from './read-tool.js';
import type { ReadOutput } from './read-output.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

const read = (input: Record<string, unknown>, ctx = makeContext(dir)) => runTool<ReadOutput>(ReadTool, input, ctx);

describe('Read: text', () => {
  it('numbers lines from 1 as N<TAB>text, the line after a final line break as its number alone, and records a full read', async () => {
    const file = write('a.txt', 'alpha\nbeta\n\ngamma\n');
    const ctx = makeContext(dir);
    const r = await read({ file_path: file }, ctx);
    expect(r.isError).toBe(false);
    expect(r.text).toBe('1\talpha\n2\tbeta\n3\t\n4\tgamma\n5');
    expect(r.data).toMatchObject({ file: { totalLines: 5, numLines: 5 } });
    const record = ctx.readFileState.get(file);
    expect(record).toMatchObject({ partial: false, truncatedByTokenCap: false, size: 18, content: 'alpha\nbeta\n\ngamma\n' });
    expect(record?.contentHash).toBe(sha256(fs.readFileSync(file)));
  });

  it('separates the number with one tab, also before a line that begins with a tab (as Claude Code)', async () => {
    const file = write('tabs.go', 'func f() {\n\treturn 1\n\t\tx := ":"\n}\n');
    const r = await read({ file_path: file });
    expect(r.text).toBe('1\tfunc f() {\n2\t\treturn 1\n3\t\t\tx := ":"\n4\t}\n5');
  });

  it('counts a last line without a newline', async () => {
    const r = await read({ file_path: write('noeol.txt', 'one\ntwo') });
    expect(r.text).toBe('1\tone\n2\ttwo');
    expect(r.data).toMatchObject({ file: { totalLines: 2, numLines: 2 } });
  });

  it('shows a whole file under the token cap, however many lines (no 2,000-line window, as Claude Code 2.1.332)', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`);
    const file = write('long.txt', lines.join('\n') + '\n');
    const ctx = makeContext(dir);
    const r = await read({ file_path: file }, ctx);
    const body = r.text.split('\n');
    expect(body).toHaveLength(2501);
    expect(body[2499]).toBe('2500\trow 2500');
    expect(r.text).not.toContain('<system-reminder>');
    expect(ctx.readFileState.get(file)?.partial).toBe(false);
  });

  it('reads a window with offset and limit, without a note (as Claude Code)', async () => {
    const file = write('win.txt', Array.from({ length: 50 }, (_, i) => `l${i + 1}`).join('\n'));
    const ctx = makeContext(dir);
    const r = await read({ file_path: file, offset: 10, limit: 3 }, ctx);
    expect(r.text).toBe('10\tl10\n11\tl11\n12\tl12');
    expect(ctx.readFileState.get(file)?.partial).toBe(true);
    const tail = await read({ file_path: file, offset: 49, limit: 10 });
    expect(tail.text).toBe('49\tl49\n50\tl50');
  });

  it('shows long lines whole (the token cap bounds the result), as Claude Code', async () => {
    const file = write('wide.txt', `short\n${'y'.repeat(5000)}\n`);
    const ctx = makeContext(dir);
    const r = await read({ file_path: file }, ctx);
    expect(r.text).toBe(`1\tshort\n2\t${'y'.repeat(5000)}\n3`);
    expect(ctx.readFileState.get(file)?.partial).toBe(false);
  });

  it('returns a PARTIAL first page with the continuation note when the token cap is hit', async () => {
    vi.stubEnv('TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS', '100');
    const file = write('capped.txt', Array.from({ length: 300 }, (_, i) => `line number ${i + 1} with some text`).join('\n'));
    const ctx = makeContext(dir);
    const r = await read({ file_path: file }, ctx);
    expect(r.isError).toBe(false);
    const shown = r.text.split('\n\n<system-reminder>')[0]!.split('\n');
    expect(shown.length).toBeGreaterThan(3);
    expect(shown.join('\n').length).toBeLessThanOrEqual(400);
    const last = shown.length;
    expect(r.text).toMatch(
      new RegExp(
        `<system-reminder>\\[Truncated: PARTIAL view — showing lines 1-${last} of 300 total \\(\\d+ tokens, cap 100\\)\\. ` +
          `Call Read with offset=${last + 1} limit=${last} for the next page, or Grep to find a specific section\\. ` +
          'Do NOT answer from this page alone if the answer may be further in the file\\.\\]</system-reminder>$',
      ),
    );
    expect(ctx.readFileState.get(file)).toMatchObject({ partial: true, truncatedByTokenCap: true });
    const next = await read({ file_path: file, offset: last + 1, limit: last }, ctx);
    expect(next.text.startsWith(`${last + 1}\tline number ${last + 1} with some text`)).toBe(true);
  });

  it('refuses an offset/limit window over the token cap in Claude Code\'s words, unless allow_large is set', async () => {
    vi.stubEnv('TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS', '100');
    const file = write('window-cap.txt', Array.from({ length: 300 }, (_, i) => `line ${String(i + 1).padStart(3, '0')} abcdefgh`).join('\n'));
    const r = await read({ file_path: file, offset: 1, limit: 50 });
    expect(r.isError).toBe(true);
    // 50 lines of 17 characters and a line break: 900 characters, 225 tokens.
    expect(r.text).toBe(
      'File content (225 tokens) exceeds maximum allowed tokens (100). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true — only if you genuinely need all of it or the user asked for the whole file.',
    );
    const anyway = await read({ file_path: file, offset: 1, limit: 50, allow_large: true });
    expect(anyway.isError).toBe(false);
    expect(anyway.text).toContain('[Truncated: PARTIAL view — showing lines 1-');
  });

  it('gives the empty-file reminder, and the offset reminder past the end', async () => {
    const empty = write('empty.txt', '');
    const ctx = makeContext(dir);
    const r = await read({ file_path: empty }, ctx);
    expect(r.isError).toBe(false);
    expect(r.text).toBe('<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>');
    expect(ctx.readFileState.get(empty)?.partial).toBe(false);
    const short = write('short.txt', 'a\nb\nc\n');
    const past = await read({ file_path: short, offset: 10 });
    expect(past.isError).toBe(false);
    expect(past.text).toBe(
      '<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 4 lines.</system-reminder>',
    );
  });

  it('resolves a relative path against the cwd and reports the absolute path', async () => {
    write('sub/rel.txt', 'hi\n');
    const ctx = makeContext(dir);
    const r = await read({ file_path: 'sub/rel.txt' }, ctx);
    expect(r.text).toBe('1\thi\n2');
    expect(r.data).toMatchObject({ file: { filePath: path.join(dir, 'sub', 'rel.txt') } });
    expect(r.observable.file_path).toBe(path.join(dir, 'sub', 'rel.txt'));
    expect(ReadTool.getPath?.({ file_path: '/x/../y/z.txt' })).toBe('/y/z.txt');
  });

  it('reads a small file without a file handle (read-small.ts); a larger one through its handle, whole after its head', async () => {
    const probe = await fs.promises.open(write('probe.txt', ''));
    const reads = vi.spyOn(Object.getPrototypeOf(probe) as { read: () => unknown }, 'read');
    await probe.close();
    try {
      const small = await read({ file_path: write('small.txt', 'one\ntwo\n') });
      expect(small.text).toBe('1\tone\n2\ttwo\n3');
      expect(reads).toHaveBeenCalledTimes(0);
      const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1} ${'x'.repeat(30)}`); // ~85 KB: over the small limit
      const large = await read({ file_path: write('large.txt', `${lines.join('\n')}\n`) });
      expect(large.text.split('\n')[1999]).toBe(`2000\tline 2000 ${'x'.repeat(30)}`);
      expect(reads.mock.calls.length).toBeGreaterThan(1);
    } finally {
      reads.mockRestore();
    }
  });

  it.skipIf(process.platform !== 'linux')('reads a /proc file in full, though its size says 0 (Linux only: it needs procfs)', async () => {
    const r = await read({ file_path: '/proc/self/status' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^1\tName:/);
    expect(r.text).toMatch(/\tPid:\s+\d+/);
  });
});

describe('Read: encodings and line endings', () => {
  it('strips \\r from CRLF lines, with no note (as Claude Code; Edit and Write keep CRLF)', async () => {
    const r = await read({ file_path: write('crlf.txt', 'one\r\ntwo\r\n') });
    expect(r.text).toBe('1\tone\n2\ttwo\n3');
    expect(r.data).toMatchObject({ file: { lineEndings: 'CRLF' } });
  });

  it('records mixed line endings with the CRLF count, and shows none of them', async () => {
    const r = await read({ file_path: write('mixed.txt', 'a\r\nb\nc\r\n') });
    expect(r.text).toBe('1\ta\n2\tb\n3\tc\n4');
    expect(r.data).toMatchObject({ file: { lineEndings: 'mixed', crlfLines: 2 } });
  });

  it('drops a UTF-8 BOM and decodes UTF-16LE with BOM', async () => {
    const bom = await read({ file_path: write('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\n')])) });
    expect(bom.text).toBe('1\théllo\n2');
    expect(bom.data).toMatchObject({ file: { encoding: 'utf8-bom' } });
    const utf16 = write('u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('naïve\r\nzwei\r\n', 'utf16le')]));
    const r = await read({ file_path: utf16 });
    expect(r.text.startsWith('1\tnaïve\n2\tzwei\n3\n\n')).toBe(true);
    expect(r.text).toContain('encoded as UTF-16LE with BOM; Edit and Write keep that encoding');
  });

  it('reads bytes that are not UTF-8 as Latin-1 instead of replacing them', async () => {
    const r = await read({ file_path: write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])) });
    expect(r.text.startsWith('1\tcafé')).toBe(true);
    expect(r.data).toMatchObject({ file: { encoding: 'latin1' } });
  });
});

describe('Read: large files', () => {
  it('streams files above the in-memory size with exact line numbers, and records a partial read', async () => {
    const lines = Array.from({ length: 400_000 }, (_, i) => `entry ${i + 1} ${'z'.repeat(i % 40)}`);
    const file = write('large.log', lines.join('\n') + '\n');
    expect(fs.statSync(file).size).toBeGreaterThan(10 * 1024 * 1024);
    const ctx = makeContext(dir);
    const r = await read({ file_path: file, offset: 399_999, limit: 5 }, ctx);
    expect(r.text).toBe(`399999\t${lines[399_998]}\n400000\t${lines[399_999]}`);
    expect(r.data).toMatchObject({ file: { totalLines: 400_000 } });
    expect(ctx.readFileState.get(file)).toMatchObject({ partial: true, contentHash: '' });
    // Whole, it is over 256 KB: refused in Claude Code's words, unless the model sets allow_large (a PARTIAL page).
    const whole = await read({ file_path: file }, ctx);
    expect(whole.isError).toBe(true);
    expect(whole.text).toMatch(/^File content \(1[0-9.]+MB\) exceeds maximum allowed size \(256KB\)\. Use offset and limit parameters/);
    const head = await read({ file_path: file, allow_large: true }, ctx);
    expect(head.text).toMatch(/<system-reminder>\[Truncated: PARTIAL view — showing lines 1-\d+ of 400000 total/);
  });

  it('refuses an unpaged read past the hard cap at once, without reading the file (2 GB sparse file)', async () => {
    const file = path.join(dir, 'sparse.log');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 2 * 1024 * 1024 * 1024);
    const started = Date.now();
    const r = await read({ file_path: file });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(
      '<tool_use_error>File content (2GB) exceeds maximum allowed size (64MB). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.</tool_use_error>',
    );
    // Paged, the first 8 KiB (all NUL) mark it binary: still refused at once.
    const paged = await read({ file_path: file, offset: 1, limit: 10 });
    expect(paged.text).toContain('appears to be binary');
    expect(Date.now() - started).toBeLessThan(2000);
    fs.rmSync(file);
  });
});
