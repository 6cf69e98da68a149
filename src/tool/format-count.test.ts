import { describe, expect, it } from 'vitest';
import { formatCount } from './format-count.js';

describe('formatCount', () => {
  it('writes integers as toLocaleString("en-US") does', () => {
    const samples = [0, 7, 999, 1000, 1001, 30_000, 65_536, 999_999, 1_000_000, 1_234_567_890, Number.MAX_SAFE_INTEGER, -1, -1000, -1_234_567];
    for (let n = 1; n < 1e15; n = n * 7 + 3) samples.push(n);
    for (const n of samples) expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
  });

  it('leaves anything else to Intl', () => {
    for (const n of [1.5, 1234.5678, Number.MAX_SAFE_INTEGER * 4]) expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
  });
});
