/**
 * A sparse line index for huge files: checkpoints `(byte offset where line L starts, L)` collected while a streamed
 * read scans a file, so the next read deeper in the same file starts from the nearest checkpoint instead of byte 0.
 * A model paging through a 1 GB log pays the full scan once. Entries are keyed by path and trusted only while the
 * file's size, mtime, ctime and inode are unchanged (ctime moves on every write, even one that restores the mtime).
 */
import type fs from 'node:fs';
import { LRUCache } from 'lru-cache';

export interface LineCheckpoint {
  readonly byte: number;
  readonly line: number;
}

export interface LineIndex {
  readonly checkpoints: readonly LineCheckpoint[];
  /** Known once a scan reached the end of the file. */
  readonly totalLines?: number;
}

interface Entry extends LineIndex {
  readonly identity: string;
}

const MAX_CHECKPOINTS = 4096;
const cache = new LRUCache<string, Entry>({ max: 64 });

function identityOf(stats: fs.Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

export function getLineIndex(absPath: string, stats: fs.Stats): LineIndex | undefined {
  const entry = cache.get(absPath);
  if (!entry) return undefined;
  if (entry.identity !== identityOf(stats)) {
    cache.delete(absPath);
    return undefined;
  }
  return entry;
}

/** The checkpoint closest before `line` (the start of the file when there is none). */
export function nearestCheckpoint(index: LineIndex | undefined, line: number): LineCheckpoint | undefined {
  if (!index) return undefined;
  const cps = index.checkpoints;
  let lo = 0;
  let hi = cps.length - 1;
  let best: LineCheckpoint | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const cp = cps[mid]!;
    if (cp.line <= line) {
      best = cp;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

export function updateLineIndex(absPath: string, stats: fs.Stats, found: readonly LineCheckpoint[], totalLines?: number): void {
  const identity = identityOf(stats);
  const previous = cache.get(absPath);
  const base = previous?.identity === identity ? previous : undefined;
  if (found.length === 0 && totalLines === undefined && base) return;
  const byByte = new Map<number, LineCheckpoint>();
  for (const cp of base?.checkpoints ?? []) byByte.set(cp.byte, cp);
  for (const cp of found) byByte.set(cp.byte, cp);
  let checkpoints = [...byByte.values()].sort((a, b) => a.byte - b.byte);
  if (checkpoints.length > MAX_CHECKPOINTS) {
    const step = Math.ceil(checkpoints.length / MAX_CHECKPOINTS);
    checkpoints = checkpoints.filter((_, i) => i % step === 0);
  }
  cache.set(absPath, { identity, checkpoints, totalLines: totalLines ?? base?.totalLines });
}

/** Forgets every index (benchmarks measure cold reads; tests start clean). */
export function clearLineIndexCache(): void {
  cache.clear();
}
