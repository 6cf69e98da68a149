import { describe, expect, it } from 'vitest';
import { sha256 } from './hash.js';

describe('sha256', () => {
  it('is the hex sha256 of the bytes (what readFileState records from before this file changed)', () => {
    expect(sha256(Buffer.from('hello\n'))).toBe('5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03');
    expect(sha256(new Uint8Array())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
