import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES, createNewlineCounter } from './newline-counter.js';

function naiveCount(buf: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (buf[i] === 10) n++;
  return n;
}

describe('createNewlineCounter', () => {
  it('counts newlines exactly for every alignment and length, SIMD and fallback alike', () => {
    const simd = createNewlineCounter();
    const fallback = createNewlineCounter({ forceFallback: true });
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (const counter of [simd, fallback]) {
      const buf = counter.buffers[1];
      for (let i = 0; i < 70_000; i++) buf[i] = rand() < 0.05 ? 10 : Math.floor(rand() * 256) === 10 ? 11 : 65;
      for (let trial = 0; trial < 200; trial++) {
        const start = Math.floor(rand() * 5000);
        const end = start + Math.floor(rand() * 65_000);
        expect(counter.count(buf, start, end)).toBe(naiveCount(buf, start, end));
      }
      expect(counter.count(buf, 10, 10)).toBe(0);
    }
  });

  it('does not overflow its 8-bit lanes on a chunk made only of newlines', () => {
    const counter = createNewlineCounter();
    const buf = counter.buffers[0];
    buf.fill(10, 0, CHUNK_BYTES);
    expect(counter.count(buf, 0, CHUNK_BYTES)).toBe(CHUNK_BYTES);
    expect(counter.count(buf, 3, CHUNK_BYTES - 5)).toBe(CHUNK_BYTES - 8);
  });

  it('gives each counter its own memory', () => {
    const a = createNewlineCounter();
    const b = createNewlineCounter();
    a.buffers[0].fill(10, 0, 100);
    b.buffers[0].fill(65, 0, 100);
    expect(a.count(a.buffers[0], 0, 100)).toBe(100);
    expect(b.count(b.buffers[0], 0, 100)).toBe(0);
  });
});
