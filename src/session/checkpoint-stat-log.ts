/**
 * The scan's stat data kept with the checkpoint store (issue 35), so a resumed session does not hash every file again:
 * a log of facts "the regular file at `rel` with this stat data (device, inode, mode, size, mtime, ctime) had the blob
 * `oid`", one JSON line each, in the shadow repository's folder (the session's state folder, outside the project).
 *
 * A fact is only ever a hint: it is used when a file's `lstat` now equals its stamp in every field and the blob is in
 * the store, and it is written only for a file not changed within the timestamp granularity of its reading (git's
 * "racily clean" rule: such a file could change again with the same stat data). The change time cannot be set back by
 * a program, so an equal stamp means the same bytes; an old or duplicate line is still true of its stamp, so lines of
 * two processes, or a log cut by a crash, can only cost hashing again, never a wrong blob. A line that does not parse
 * is ignored.
 */
import fs from 'node:fs';

/** What says a file is unchanged: device, inode, mode, size, modification and change times (below the microsecond). */
export interface Stamp {
  readonly dev: number;
  readonly ino: number;
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

export function stampOf(stat: fs.Stats): Stamp {
  return { dev: stat.dev, ino: stat.ino, mode: stat.mode, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
}

export function sameStamp(stat: fs.Stats, stamp: Stamp): boolean {
  return stat.mtimeMs === stamp.mtimeMs && stat.ctimeMs === stamp.ctimeMs && stat.size === stamp.size && stat.ino === stamp.ino && stat.mode === stamp.mode && stat.dev === stamp.dev;
}

/** Whether a file read at `at` (the clock, ms) may still change with the same stat data (tool/racy-clean.ts). */
export { racilyClean as racy } from '../tool/racy-clean.js';

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A log larger than this is not read (a resumed session hashes again). */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

export interface Fact {
  readonly rel: string;
  readonly oid: string;
  readonly stamp: Stamp;
}

export class StatLog {
  readonly #file: string;
  /** The facts read back, until the first snapshot has used them. */
  #loaded: Map<string, Fact> | undefined;
  #pending: string[] = [];
  /** Lines appended since the log was last written whole. */
  #appended = 0;
  #compacted = false;

  private constructor(file: string, loaded: Map<string, Fact> | undefined) {
    this.#file = file;
    this.#loaded = loaded;
  }

  /** The log in `gitDir` (the shadow repository), its facts read back. */
  static open(gitDir: string): StatLog {
    const file = `${gitDir}/toolgate-stat.jsonl`;
    let text: string | undefined;
    try {
      if (fs.statSync(file).size <= MAX_LOG_BYTES) text = fs.readFileSync(file, 'utf8');
    } catch {
      // none yet
    }
    const loaded = new Map<string, Fact>();
    for (const line of text?.split('\n') ?? []) {
      const fact = parse(line);
      if (fact) loaded.set(`${fact.rel}\0${fact.stamp.ino}`, fact);
    }
    return new StatLog(file, loaded.size > 0 ? loaded : undefined);
  }

  /** The blob of the regular file at `rel` when a fact read back has exactly its stat data now. */
  known(rel: string, stat: fs.Stats): string | undefined {
    const fact = this.#loaded?.get(`${rel}\0${stat.ino}`);
    return fact && sameStamp(stat, fact.stamp) ? fact.oid : undefined;
  }

  /** A file just hashed (and not racy): its fact goes to the log at the end of the snapshot. */
  record(rel: string, oid: string, stamp: Stamp): void {
    this.#pending.push(line({ rel, oid, stamp }));
  }

  /**
   * The snapshot is over: the facts read back are let go, and the new ones appended — or the log written whole (the
   * first time, and when it has grown past the files it speaks of), from `all`.
   */
  flush(files: number, all: () => Iterable<Fact>): void {
    this.#loaded = undefined;
    try {
      if (!this.#compacted || this.#appended + this.#pending.length > Math.max(1024, files)) {
        const temp = `${this.#file}.${process.pid}.tmp`;
        const lines: string[] = [];
        for (const fact of all()) lines.push(line(fact));
        fs.writeFileSync(temp, lines.join(''), { mode: 0o600 });
        fs.renameSync(temp, this.#file);
        this.#compacted = true;
        this.#appended = 0;
      } else if (this.#pending.length > 0) {
        fs.appendFileSync(this.#file, this.#pending.join(''), { mode: 0o600 });
        this.#appended += this.#pending.length;
      }
    } catch {
      // The log only saves hashing on resume: a store that cannot take it costs that, nothing else.
    } finally {
      this.#pending = [];
    }
  }
}

function line(f: Fact): string {
  const s = f.stamp;
  return `${JSON.stringify([f.rel, f.oid, s.dev, s.ino, s.mode, s.size, s.mtimeMs, s.ctimeMs])}\n`;
}

function parse(text: string): Fact | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    if (!Array.isArray(v) || v.length !== 8) return undefined;
    const [rel, oid, ...n] = v as unknown[];
    if (typeof rel !== 'string' || rel === '' || rel.includes('\0') || typeof oid !== 'string' || !OBJECT_ID.test(oid)) return undefined;
    if (!n.every((x) => typeof x === 'number' && Number.isFinite(x))) return undefined;
    const [dev, ino, mode, size, mtimeMs, ctimeMs] = n as number[];
    return { rel, oid, stamp: { dev: dev!, ino: ino!, mode: mode!, size: size!, mtimeMs: mtimeMs!, ctimeMs: ctimeMs! } };
  } catch {
    return undefined;
  }
}
