import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../shared/test-helpers/make-pdf.js';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import type { ReadOutput } from './read-output.js';
import { ReadTool } from './read-tool.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const read = (input: Record<string, unknown>, ctx = makeContext(dir)) => runTool<ReadOutput>(ReadTool, input, ctx);

function blocks(r: { block: { content?: unknown } }): Array<{ type: string; text?: string; source?: { media_type: string; data: string } }> {
  return r.block.content as Array<{ type: string; text?: string; source?: { media_type: string; data: string } }>;
}

describe('Read: images', () => {
  it('returns a small PNG as an image block, untouched', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const file = path.join(dir, 'red.png');
    fs.writeFileSync(file, png);
    const r = await read({ file_path: file });
    expect(r.isError).toBe(false);
    const [image, ...rest] = blocks(r);
    expect(rest).toEqual([]);
    expect(image?.type).toBe('image');
    expect(image?.source?.media_type).toBe('image/png');
    expect(Buffer.from(image!.source!.data, 'base64').equals(png)).toBe(true);
  });

  it('takes the media type from the bytes, not the extension', async () => {
    const jpeg = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#00ff00' } }).jpeg().toBuffer();
    const file = path.join(dir, 'actually-jpeg.png');
    fs.writeFileSync(file, jpeg);
    expect(blocks(await read({ file_path: file }))[0]?.source?.media_type).toBe('image/jpeg');
  });

  it('scales an image whose long edge exceeds 8000 px to 2000 px and says so', async () => {
    const wide = await sharp({ create: { width: 9000, height: 300, channels: 3, background: '#0000ff' } }).png().toBuffer();
    const file = path.join(dir, 'wide.png');
    fs.writeFileSync(file, wide);
    const r = await read({ file_path: file });
    const [image, note] = blocks(r);
    const meta = await sharp(Buffer.from(image!.source!.data, 'base64')).metadata();
    expect([meta.width, meta.height]).toEqual([2000, 67]);
    expect(note?.text).toMatch(/^\[Image 9000x300 \(.+\) was scaled to 2000x67 because its long edge exceeds 8000 px\./);
    expect(r.data).toMatchObject({ file: { dimensions: { originalWidth: 9000, displayWidth: 2000 } } });
  });

  it('re-encodes as JPEG when scaling is not enough to get under 5 MB of base64', async () => {
    const size = 1900;
    const noise = Buffer.alloc(size * size * 3);
    let x = 2463534242;
    for (let i = 0; i < noise.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      noise[i] = x & 0xff;
    }
    const png = await sharp(noise, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
    expect(Math.ceil(png.length / 3) * 4).toBeGreaterThan(5 * 1024 * 1024);
    const file = path.join(dir, 'noise.png');
    fs.writeFileSync(file, png);
    const r = await read({ file_path: file });
    const [image, note] = blocks(r);
    expect(image?.source?.media_type).toBe('image/jpeg');
    expect(image!.source!.data.length).toBeLessThanOrEqual(5 * 1024 * 1024);
    expect(note?.text).toContain('re-encoded as JPEG');
  });

  it('refuses empty and undecodable images', async () => {
    const empty = path.join(dir, 'empty.png');
    fs.writeFileSync(empty, '');
    expect((await read({ file_path: empty })).text).toBe('<tool_use_error>Empty image files cannot be processed.</tool_use_error>');
    const junk = path.join(dir, 'junk.jpg');
    fs.writeFileSync(junk, 'not an image at all');
    expect((await read({ file_path: junk })).text).toMatch(/^<tool_use_error>Could not decode image .*junk\.jpg: /);
  });
});

describe('Read: PDFs', () => {
  it('extracts the text of a hand-built PDF page by page', async () => {
    const file = path.join(dir, 'doc.pdf');
    fs.writeFileSync(file, makePdf(['Hello from page one', 'Second page (with parens)']));
    const r = await read({ file_path: file });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^PDF file read: .*doc\.pdf \(\d+ bytes\), pages 1-2 of 2\.\n\n/);
    expect(r.text).toContain('<page number="1">\nHello from page one\n</page>');
    expect(r.text).toContain('<page number="2">\nSecond page (with parens)\n</page>');
    const one = await read({ file_path: file, pages: '2' });
    expect(one.text).not.toContain('Hello from page one');
    expect(one.text).toContain('pages 2-2 of 2');
  });

  it('requires pages for long PDFs, caps a call at 20 pages, and rejects bad ranges with Claude Code texts', async () => {
    const file = path.join(dir, 'long.pdf');
    fs.writeFileSync(file, makePdf(Array.from({ length: 12 }, (_, i) => `Page ${i + 1}`)));
    expect((await read({ file_path: file })).text).toBe(
      '<tool_use_error>This PDF has 12 pages, which is too many to read at once. Use the pages parameter to read specific page ranges (e.g., pages: "1-5"). Maximum 20 pages per request.</tool_use_error>',
    );
    const range = await read({ file_path: file, pages: '11-12' });
    expect(range.text).toContain('<page number="11">\nPage 11\n</page>');
    expect((await read({ file_path: file, pages: 'abc' })).text).toBe(
      '<tool_use_error>Invalid pages parameter: "abc". Use formats like "1-5", "3", or "10-20". Pages are 1-indexed.</tool_use_error>',
    );
    expect((await read({ file_path: file, pages: '1-21' })).text).toBe(
      '<tool_use_error>Page range "1-21" exceeds maximum of 20 pages per request. Please use a smaller range.</tool_use_error>',
    );
    expect((await read({ file_path: file, pages: '15' })).text).toBe(
      '<tool_use_error>Page range "15" is outside this PDF, which has 12 pages.</tool_use_error>',
    );
  });

  it('reports a broken PDF as an error', async () => {
    const file = path.join(dir, 'broken.pdf');
    fs.writeFileSync(file, '%PDF-1.4\nthis is not really a pdf');
    expect((await read({ file_path: file })).text).toMatch(/^<tool_use_error>Could not read PDF .*broken\.pdf: /);
  });
});

describe('Read: notebooks', () => {
  it('shows cells with their outputs, images as image blocks, and records a full read', async () => {
    const png = (await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).png().toBuffer()).toString('base64');
    const nb = {
      cells: [
        { cell_type: 'markdown', id: 'md1', metadata: {}, source: ['# Title\n', 'text'] },
        {
          cell_type: 'code',
          id: 'c1',
          metadata: {},
          execution_count: 1,
          source: 'print(1)',
          outputs: [
            { output_type: 'stream', name: 'stdout', text: ['1\n'] },
            { output_type: 'display_data', data: { 'image/png': png, 'text/plain': ['<Figure>'] }, metadata: {} },
          ],
        },
        { cell_type: 'code', metadata: {}, execution_count: 2, source: '1/0', outputs: [{ output_type: 'error', ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: ['tb line'] }] },
      ],
      metadata: { language_info: { name: 'python' } },
      nbformat: 4,
      nbformat_minor: 5,
    };
    const file = path.join(dir, 'nb.ipynb');
    fs.writeFileSync(file, JSON.stringify(nb, null, 1) + '\n');
    const ctx = makeContext(dir);
    const r = await read({ file_path: file }, ctx);
    expect(r.isError).toBe(false);
    const content = blocks(r);
    expect(content.map((b) => b.type)).toEqual(['text', 'image', 'text']);
    expect(content[0]?.text).toBe(
      '<cell id="md1"><cell_type>markdown</cell_type># Title\ntext</cell id="md1">\n<cell id="c1">print(1)</cell id="c1">\n\n1\n\n\n<Figure>',
    );
    expect(content[1]?.source?.data).toBe(png);
    expect(content[2]?.text).toBe('<cell id="cell-2">1/0</cell id="cell-2">\n\nZeroDivisionError: division by zero\ntb line');
    expect(ctx.readFileState.get(file)?.partial).toBe(false);
  });

  it('refuses a notebook that is not JSON', async () => {
    const file = path.join(dir, 'bad.ipynb');
    fs.writeFileSync(file, '{ nope');
    expect((await read({ file_path: file })).text).toBe(
      `<tool_use_error>${file} is not a valid Jupyter notebook (it is not JSON with a "cells" array).</tool_use_error>`,
    );
  });
});
