import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { ReadTool } from '../read/read-tool.js';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import type { EditOutput } from './edit-output.js';
import { EditTool } from './edit-tool.js';
import { findMatch, stripLinePrefixes } from './find-match.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function write(content: string | Buffer, ext = 'txt'): string {
  const file = path.join(dir, `p${++n}.${ext}`);
  fs.writeFileSync(file, content);
  return file;
}
async function readCtx(file: string): Promise<ToolUseContext> {
  const ctx = makeContext(dir);
  expect((await runTool(ReadTool, { file_path: file }, ctx)).isError).toBe(false);
  return ctx;
}
const edit = (ctx: ToolUseContext, input: Record<string, unknown>) => runTool<EditOutput>(EditTool, input, ctx);

describe('Edit keeps the file as it was', () => {
  it('keeps CRLF line endings, matching old_string written with \\n', async () => {
    const file = write('one\r\ntwo\r\nthree\r\n');
    const ctx = await readCtx(file);
    const r = await edit(ctx, { file_path: file, old_string: 'two\nthree', new_string: 'TWO\nTHREE\nFOUR' });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('one\r\nTWO\r\nTHREE\r\nFOUR\r\n');
  });

  it('keeps a UTF-8 BOM, UTF-16LE with its BOM, and Latin-1 bytes', async () => {
    const bom = write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo wörld\n')]));
    await edit(await readCtx(bom), { file_path: bom, old_string: 'wörld', new_string: 'welt' });
    expect(fs.readFileSync(bom)).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo welt\n')]));

    const u16 = write(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('naïve\r\ncafé\r\n', 'utf16le')]));
    const r = await edit(await readCtx(u16), { file_path: u16, old_string: 'café', new_string: 'thé' });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(u16)).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('naïve\r\nthé\r\n', 'utf16le')]));

    const latin = write(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x31, 0x0a]));
    await edit(await readCtx(latin), { file_path: latin, old_string: '1', new_string: '2' });
    expect(fs.readFileSync(latin)).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x32, 0x0a]));
    const refused = await edit(await readCtx(latin), { file_path: latin, old_string: '2', new_string: '✓' });
    expect(refused.text).toContain('the new text has characters that encoding cannot hold');
  });

  it('keeps the file mode and never turns tabs into spaces', async () => {
    const file = write('#!/bin/sh\n\tif true; then\n\t\techo hi\n\tfi\n', 'sh');
    fs.chmodSync(file, 0o755);
    const ctx = await readCtx(file);
    const r = await edit(ctx, { file_path: file, old_string: '\t\techo hi', new_string: '\t\techo bye' });
    expect(r.isError).toBe(false);
    expect(fs.statSync(file).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(file, 'utf8')).toBe('#!/bin/sh\n\tif true; then\n\t\techo bye\n\tfi\n');
    const spaces = await edit(ctx, { file_path: file, old_string: '        echo bye', new_string: '        echo x' });
    expect(spaces.text).toBe(
      '<tool_use_error>String to replace not found in file.\nString:         echo bye\nNote: this file indents with tab characters, but old_string is indented with spaces. Copy the indentation exactly as it appears after the line-number separator in Read output (a tab stays a tab).</tool_use_error>',
    );
    expect(fs.readFileSync(file, 'utf8')).toContain('\t\techo bye');
  });
});

describe('Edit fallback matching', () => {
  it('strips Read line prefixes (N<TAB>, N→, N:) and names the normalisation', async () => {
    const file = write('func main() {\n\tx := 1\n\ty := 2\n}\n', 'go');
    const ctx = await readCtx(file);
    const r = await edit(ctx, { file_path: file, old_string: '2:\tx := 1\n3:\ty := 2', new_string: '2:\tx := 10\n3:\ty := 20' });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('func main() {\n\tx := 10\n\ty := 20\n}\n');
    expect(r.text).toContain(
      "Note: old_string did not match the file exactly; it matched exactly once after the tool stripped Read line-number prefixes from old_string and new_string. The replacement was made on the file's actual text",
    );
    expect(stripLinePrefixes('     7→a\n     8→b', true)).toBe('a\nb');
    expect(stripLinePrefixes('7\ta\n9\tb', true)).toBeUndefined();
  });

  it('treats curly quotes as straight ones, once', async () => {
    const file = write('say(“hello”) and it’s fine\n');
    const ctx = await readCtx(file);
    const r = await edit(ctx, { file_path: file, old_string: `say("hello") and it's`, new_string: `say("bye") and it's` });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(`say("bye") and it's fine\n`);
    expect(r.data?.normalizations).toEqual(['treated curly quotes as straight quotes']);
  });

  it('ignores trailing whitespace, mapping back to the real text', async () => {
    const file = write('keep\nalpha   \nbeta\t\ntail\n');
    const ctx = await readCtx(file);
    const r = await edit(ctx, { file_path: file, old_string: 'alpha\nbeta', new_string: 'ALPHA\nBETA' });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('keep\nALPHA\nBETA\t\ntail\n');
    expect(r.data?.normalizations).toEqual(['ignored trailing whitespace at line ends']);
  });

  it('does not apply a normalisation that finds more than one match', async () => {
    const content = 'x = “a”\ny = 1\nx = "a"\n';
    expect(findMatch(content.replace('"a"', '“a”'), 'x = "a"', 'x = "b"', false)).toMatchObject({ kind: 'ambiguous', count: 2 });
    const file = write('x = “a”\nx = ‘a’\nx = “a”\n');
    const ctx = await readCtx(file);
    const r = await edit(ctx, { file_path: file, old_string: 'x = "a"', new_string: 'x = "b"' });
    expect(r.text).toContain('Found 2 matches of the string to replace, but replace_all is false (no exact match; these matches were found after the tool treated curly quotes as straight quotes)');
    expect(fs.readFileSync(file, 'utf8')).toBe('x = “a”\nx = ‘a’\nx = “a”\n');
  });

  it('prefers the exact match and never normalises when the exact string exists', () => {
    const m = findMatch('a “b”\na "b"\n', 'a "b"', 'z', false);
    expect(m).toEqual({ kind: 'found', ranges: [[6, 11]], newString: 'z', normalizations: [] });
  });
});
