import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collapseCarriageReturns, decodeUtf8Head, decodeUtf8Tail, lastLines, readOutputTail, readOutputWindow } from './output-file.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('collapseCarriageReturns', () => {
  it('keeps what a terminal finally shows on each line', () => {
    expect(collapseCarriageReturns('10%\r50%\r100%\ndone')).toBe('100%\ndone');
    expect(collapseCarriageReturns('crlf line\r\nnext\r\n')).toBe('crlf line\nnext\n');
    expect(collapseCarriageReturns('no returns')).toBe('no returns');
  });
});

describe('UTF-8 windows', () => {
  it('drops a character cut at either edge of a window', () => {
    const buf = Buffer.from('aé€😀z', 'utf8');
    expect(decodeUtf8Head(buf.subarray(0, 4))).toBe('aé');
    expect(decodeUtf8Head(buf.subarray(0, 6))).toBe('aé€');
    expect(decodeUtf8Tail(buf.subarray(2))).toBe('€😀z');
    expect(decodeUtf8Tail(buf.subarray(4))).toBe('😀z');
  });
});

describe('reading back', () => {
  it('reads a large file as head and tail windows only', () => {
    const file = path.join(dir, 'big.txt');
    writeFileSync(file, 'H'.repeat(3_000_000) + 'TAIL');
    const w = readOutputWindow(file, 1_000);
    expect(w.complete).toBe(false);
    expect(w.head.length).toBe(1_000);
    expect(w.tail.toString().endsWith('TAIL')).toBe(true);
    expect(readOutputTail(file, 10)).toMatchObject({ text: 'HHHHHHTAIL', complete: false, sizeBytes: 3_000_004 });
  });

  it('returns the last lines for progress', () => {
    expect(lastLines('a\nb\nc\n\n', 2)).toBe('b\nc');
  });
});
