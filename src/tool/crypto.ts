/**
 * Random bytes and UUIDs from the kernel's generator, without node:crypto: the first load of node:crypto initialises
 * OpenSSL, ~5–10 ms of a CLI command that needs nothing else from it (an `exec` of one Bash call names its run, its
 * process group marker and its tasks at random). The kernel's generator is the one OpenSSL seeds from: the bytes are as
 * unpredictable. Read in blocks, as node:crypto's own randomUUID keeps a batch; where /dev/urandom cannot be read
 * (Windows), node:crypto's randomFillSync fills the block.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

let loaded: typeof import('node:crypto') | undefined;

/**
 * node:crypto itself, loaded on first use, for what only it does (hashes, timing-safe comparison). Kept once loaded:
 * a createRequire per call cost ~7 µs, on the path of every Read (its sha256) and edit.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  return (loaded ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto'));
}

const BLOCK = 4096;
let block = Buffer.alloc(0);
let used = 0;

function fill(target: Buffer): void {
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      for (let at = 0; at < target.length; ) {
        const n = readSync(fd, target, at, target.length - at, null);
        if (n <= 0) throw new Error('/dev/urandom gave no bytes');
        at += n;
      }
    } finally {
      closeSync(fd);
    }
  } catch {
    nodeCrypto().randomFillSync(target);
  }
}

/** `size` random bytes, a copy the caller owns. */
export function randomBytes(size: number): Buffer {
  if (size > BLOCK / 4) {
    const out = Buffer.alloc(size);
    fill(out);
    return out;
  }
  if (used + size > block.length) {
    block = Buffer.alloc(BLOCK);
    fill(block);
    used = 0;
  }
  const out = Buffer.from(block.subarray(used, used + size));
  // Bytes handed out are not kept: a later reader of the block cannot learn them.
  block.fill(0, used, used + size);
  used += size;
  return out;
}

/** A version 4 UUID (RFC 9562), as node:crypto's randomUUID makes. */
export function randomUUID(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
