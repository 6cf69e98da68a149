import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LineFollower } from './line-follower.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-follow-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('LineFollower', () => {
  it('returns each complete line once, holds a partial line (and a cut UTF-8 character) until it is complete', () => {
    const file = path.join(dir, 'out');
    const f = new LineFollower(file);
    expect(f.read()).toEqual([]);
    writeFileSync(file, 'one\ntw');
    expect(f.read()).toEqual(['one']);
    const euro = Buffer.from('€');
    appendFileSync(file, Buffer.concat([Buffer.from('o\nthree '), euro.subarray(0, 1)]));
    expect(f.read()).toEqual(['two']);
    appendFileSync(file, Buffer.concat([euro.subarray(1), Buffer.from('\nfour')]));
    expect(f.read()).toEqual(['three €']);
    expect(f.read(true)).toEqual(['four']);
  });

  it('keeps what a progress line wrote after its last carriage return', () => {
    const file = path.join(dir, 'out');
    writeFileSync(file, '10%\r50%\r100%\r\ndone\r\n');
    expect(new LineFollower(file).read()).toEqual(['100%', 'done']);
  });
});
