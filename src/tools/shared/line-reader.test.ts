import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutLongLine } from './format.js';
import { clearLineIndexCache, getLineIndex } from './line-index.js';
import { readLineWindow } from './line-reader.js';
import { makeTempDir } from './test-helpers/run-tool.js';

let dir: string;
let bigPath: string;
let expected: string[];

/** ~10 MB over several 4 MiB chunks: short, empty, CRLF, multi-byte and two lines far longer than a chunk's keep. */
function buildLines(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 120_000; i++) {
    if (i === 5000) lines.push('é'.repeat(30_000));
    else if (i === 70_000) lines.push('x'.repeat(3 * 1024 * 1024));
    else if (i % 97 === 0) lines.push('');
    else if (i % 13 === 0) lines.push(`crlf line ${i}\r`);
    else lines.push(`line ${i} ${'abcdefghij'.repeat(i % 9)} ünï`);
  }
  return lines;
}

beforeAll(async () => {
  dir = await makeTempDir();
  bigPath = path.join(dir, 'big.txt');
  expected = buildLines();
  fs.writeFileSync(bigPath, expected.join('\n') + '\n');
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function window(file: string, startLine: number, maxLines: number, countToEof = true, maxChars = 1e9) {
  const stats = fs.statSync(file);
  const handle = await fs.promises.open(file, 'r');
  try {
    return await readLineWindow(handle, file, stats, { startLine, maxLines, maxChars, countToEof, firstByte: 0 });
  } finally {
    await handle.close();
  }
}

function expectedWindow(startLine: number, maxLines: number): string[] {
  return expected.slice(startLine - 1, startLine - 1 + maxLines).map((l) => cutLongLine(l.endsWith('\r') ? l.slice(0, -1) : l).text);
}

describe('readLineWindow', () => {
  it('returns exact lines and numbers at the start, across chunk boundaries and at the end', async () => {
    clearLineIndexCache();
    for (const start of [1, 4990, 69_990, 119_000]) {
      const w = await window(bigPath, start, 2000);
      expect(w.lines).toEqual(expectedWindow(start, 2000));
      expect(w.totalLines).toBe(expected.length);
      expect(w.moreAfter).toBe(start + w.lines.length - 1 < expected.length);
    }
  });

  it('cuts a line of millions of characters without holding it', async () => {
    const w = await window(bigPath, 70_001, 1);
    expect(w.lines[0]).toBe(cutLongLine('x'.repeat(3 * 1024 * 1024)).text);
    expect(w.lines[0]).toContain(`[line truncated: ${3 * 1024 * 1024 - 2000} more characters]`);
    const multi = await window(bigPath, 5001, 1);
    expect(multi.lines[0]).toBe(cutLongLine('é'.repeat(30_000)).text);
  });

  it('reports CRLF lines it saw and strips their \\r', async () => {
    const w = await window(bigPath, 1, 100);
    expect(w.crlfLines).toBe(expected.slice(0, 100).filter((l) => l.endsWith('\r')).length);
    expect(w.lines.some((l) => l.endsWith('\r'))).toBe(false);
  });

  it('offsets past the end give no lines and the total', async () => {
    const w = await window(bigPath, 500_000, 10);
    expect(w.lines).toEqual([]);
    expect(w.totalLines).toBe(expected.length);
  });

  it('stops at the character budget and marks the window truncated', async () => {
    const w = await window(bigPath, 1, 2000, true, 5000);
    expect(w.truncatedByTokenCap).toBe(true);
    expect(w.lines.length).toBeGreaterThan(10);
    expect(w.lines).toEqual(expectedWindow(1, w.lines.length));
    expect(w.windowChars).toBeGreaterThan(5000);
  });

  it('without countToEof stops after the window and leaves the total unknown', async () => {
    clearLineIndexCache();
    const w = await window(bigPath, 10, 5, false);
    expect(w.lines).toEqual(expectedWindow(10, 5));
    expect(w.totalLines).toBeNull();
    expect(w.moreAfter).toBe(true);
  });

  it('remembers checkpoints, and later reads from them give the same answer', async () => {
    clearLineIndexCache();
    const first = await window(bigPath, 100_000, 50);
    const index = getLineIndex(bigPath, fs.statSync(bigPath));
    expect(index?.checkpoints.length).toBeGreaterThan(0);
    expect(index?.totalLines).toBe(expected.length);
    const second = await window(bigPath, 100_000, 50, false);
    expect(second.lines).toEqual(first.lines);
    expect(second.totalLines).toBe(expected.length);
    const earlier = await window(bigPath, 90_000, 3);
    expect(earlier.lines).toEqual(expectedWindow(90_000, 3));
  });

  it('drops the index when the file changes', async () => {
    const file = path.join(dir, 'changing.txt');
    fs.writeFileSync(file, 'a\nb\nc\n');
    expect((await window(file, 2, 1)).lines).toEqual(['b']);
    fs.writeFileSync(file, 'z\ny\nx\nw\n');
    const w = await window(file, 2, 1);
    expect(w.lines).toEqual(['y']);
    expect(w.totalLines).toBe(4);
  });

  it('knows the total when a window without countToEof ends exactly at the end of the file', async () => {
    clearLineIndexCache();
    const w = await window(bigPath, expected.length - 9, 10, false);
    expect(w.lines).toEqual(expectedWindow(expected.length - 9, 10));
    expect(w.totalLines).toBe(expected.length);
    expect(w.moreAfter).toBe(false);
  });

  it('counts a last line without a newline, and an empty file as zero lines', async () => {
    const noEol = path.join(dir, 'noeol.txt');
    fs.writeFileSync(noEol, 'one\ntwo');
    const w = await window(noEol, 1, 10);
    expect(w.lines).toEqual(['one', 'two']);
    expect(w.totalLines).toBe(2);
    const past = await window(noEol, 5, 10);
    expect(past.totalLines).toBe(2);
    const empty = path.join(dir, 'empty.txt');
    fs.writeFileSync(empty, '');
    expect((await window(empty, 1, 10)).totalLines).toBe(0);
  });
});
