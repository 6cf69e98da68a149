import { describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from './crypto.js';

describe('random', () => {
  it('makes version 4 UUIDs, each different', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => randomUUID()));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('gives bytes of the size asked, across block refills and above the block, not all alike', () => {
    const sizes = [1, 4, 6, 16, 24, 32, 1000, 1025, 5000];
    const seen = new Set<string>();
    for (let round = 0; round < 20; round++) {
      for (const size of sizes) {
        const b = randomBytes(size);
        expect(b.length).toBe(size);
        seen.add(b.toString('hex'));
      }
    }
    // 180 draws of >= 4 bytes: a repeat would mean the block was handed out twice.
    expect(seen.size).toBeGreaterThan(170);
    // Each byte value appears over a large draw (a stuck or zeroed source would not).
    expect(new Set(randomBytes(8192)).size).toBe(256);
  });

  it('hands out a copy: changing it does not change later draws', () => {
    const a = randomBytes(8);
    a.fill(0);
    expect(randomBytes(8).equals(Buffer.alloc(8))).toBe(false);
  });
});
