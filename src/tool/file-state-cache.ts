/**
 * What the model has read in this conversation: path → content hash, mtime, size and whether the read was partial.
 * Edit and Write consult it (read-before-write, staleness by content hash). Bounded as an LRU by entry count and by
 * the size of the contents it keeps, so a long session cannot grow it without limit.
 */
import { LRUCache } from 'lru-cache';
import path from 'node:path';

export interface FileReadRecord {
  /** sha256 (hex) of the file's bytes when it was read; '' when the file was streamed rather than read whole. */
  readonly contentHash: string;
  readonly mtimeMs: number;
  readonly size: number;
  /** True when only part of the file was seen (offset/limit, pages, a truncated first page). */
  readonly partial: boolean;
  /** True when the last view was cut short by Read's size/token cap (a PARTIAL view). */
  readonly truncatedByTokenCap?: boolean;
  /**
   * The line ranges (1-based, inclusive) the model has seen in full of this version of the file, merged across
   * window reads: once they cover every line, the file counts as fully read.
   */
  readonly readRanges?: readonly (readonly [number, number])[];
  /** The file's line count, when a read learned it. */
  readonly totalLines?: number;
  /** When the read happened (ms since epoch). */
  readonly timestamp: number;
  /** The decoded text as read, kept for full reads so that a stale-file error can show what changed. */
  readonly content?: string;
  /**
   * The file holds changes made on disk that the model has not read: an Edit applied over them (its old_string still
   * matched once). Further Edits may go ahead; a whole-file write (Write, NotebookEdit) needs a fresh read first.
   */
  readonly unseenChanges?: boolean;
}

export interface FileStateCacheOptions {
  readonly maxEntries?: number;
  /** Upper bound on the characters of `content` kept across all entries. */
  readonly maxContentChars?: number;
}

const DEFAULT_MAX_ENTRIES = 100;
const DEFAULT_MAX_CONTENT_CHARS = 25 * 1024 * 1024;

export class FileStateCache {
  readonly #cache: LRUCache<string, FileReadRecord>;
  readonly #options: Required<FileStateCacheOptions>;

  constructor(options: FileStateCacheOptions = {}) {
    this.#options = {
      maxEntries: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      maxContentChars: options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS,
    };
    this.#cache = new LRUCache<string, FileReadRecord>({
      max: this.#options.maxEntries,
      maxSize: this.#options.maxContentChars,
      // Every entry costs at least 1 so that content-less records still count against maxSize.
      sizeCalculation: (record) => Math.max(1, record.content?.length ?? 0),
    });
  }

  /** Keys are normalised absolute paths, so `a/../b` and `b` are one entry. */
  static key(filePath: string): string {
    return path.resolve(filePath);
  }

  get(filePath: string): FileReadRecord | undefined {
    return this.#cache.get(FileStateCache.key(filePath));
  }

  set(filePath: string, record: FileReadRecord): void {
    const size = record.content?.length ?? 0;
    // A record whose content alone exceeds the budget is kept without its content rather than dropped.
    const kept = size > this.#options.maxContentChars ? { ...record, content: undefined } : record;
    this.#cache.set(FileStateCache.key(filePath), kept);
  }

  has(filePath: string): boolean {
    return this.#cache.has(FileStateCache.key(filePath));
  }

  delete(filePath: string): boolean {
    return this.#cache.delete(FileStateCache.key(filePath));
  }

  clear(): void {
    this.#cache.clear();
  }

  get size(): number {
    return this.#cache.size;
  }

  keys(): string[] {
    return [...this.#cache.keys()];
  }

  /** An independent copy (sub-agents start from what the parent has read, without writing back). */
  clone(): FileStateCache {
    const copy = new FileStateCache(this.#options);
    // rvalues() yields least-recently-used first, so the copy keeps the same recency order.
    const entries = [...this.#cache.entries()].reverse();
    for (const [key, record] of entries) copy.#cache.set(key, record);
    return copy;
  }
}
