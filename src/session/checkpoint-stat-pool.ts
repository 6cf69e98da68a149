/**
 * The stat pass of a snapshot (checkpoint-scan.ts) over the folders the last snapshot knew, shared by two threads: on
 * a 10,000-file project one `lstat` per file is most of a turn's cost (a few µs each, the kernel's, not JavaScript's),
 * and a machine with a second core does half of them in a worker thread while this thread does the other half. The
 * worker only lists and `lstat`s (the same `statFolder` below, its source sent to the worker): every decision — what
 * changed, what is read, hashed and written — stays in this thread. Without the worker (it failed, or the project is
 * small) this thread does it all; either way this thread yields to the event loop every `STAT_CHUNK` files, so a big
 * project's pass does not stall the session.
 *
 * A listing is what `readdir` gave, kept only when the folder is still the inode the last snapshot walked (a folder
 * swapped for a link after it was listed is not trusted); each name's `lstat` is a row of `ROW` numbers (mode, dev,
 * ino, size, mtimeMs, ctimeMs), a gone name's mode NaN.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

export const ROW = 6;
/** Files this thread stats between two yields to the event loop. */
export const STAT_CHUNK = 512;
/** Fewer known files than this: the worker is not worth a message (one thread, no yield needed). */
export const PARALLEL_MIN = 2048;

export interface Listing {
  readonly names: string[];
  readonly rows: Float64Array;
}

export interface FolderToStat {
  readonly abs: string;
  readonly ino: number;
  /** Files known in it (the share of the work). */
  readonly size: number;
}

/**
 * A folder's names and their `lstat` rows, when it is still the folder `ino`. Runs in the worker too (its source is
 * sent there): it must use nothing but its arguments, with plain loops (no closures a compiler could wrap).
 */
export function statFolder(fsm: typeof fs, abs: string, ino: number): Listing | undefined {
  let names: string[];
  try {
    names = fsm.readdirSync(abs);
    const self = fsm.lstatSync(abs, { throwIfNoEntry: false });
    if (!self || self.ino !== ino || !self.isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const rows = new Float64Array(names.length * 6);
  for (let i = 0; i < names.length; i++) {
    let s: fs.Stats | undefined;
    try {
      s = fsm.lstatSync(`${abs}/${names[i]}`, { throwIfNoEntry: false });
    } catch {
      s = undefined;
    }
    const o = i * 6;
    if (!s) {
      rows[o] = NaN;
      continue;
    }
    rows[o] = s.mode;
    rows[o + 1] = s.dev;
    rows[o + 2] = s.ino;
    rows[o + 3] = s.size;
    rows[o + 4] = s.mtimeMs;
    rows[o + 5] = s.ctimeMs;
  }
  return { names, rows };
}

/** Counts of the last pass (tests: the work was shared, the event loop was given turns). */
export interface PassStats {
  byWorker: number;
  yields: number;
}

export const passStats: PassStats = { byWorker: 0, yields: 0 };

/** The listings of `folders` (undefined: gone or swapped), by index; the work shared with the worker when it pays. */
export async function statFolders(folders: readonly FolderToStat[]): Promise<(Listing | undefined)[]> {
  const out: (Listing | undefined)[] = new Array(folders.length);
  const total = folders.reduce((n, f) => n + f.size, 0);
  const mine: number[] = [];
  const theirs: number[] = [];
  if (total >= PARALLEL_MIN && pool.usable()) {
    // Alternate by load: each thread gets about half of the files.
    let a = 0;
    let b = 0;
    folders.forEach((f, i) => {
      if (a <= b) {
        mine.push(i);
        a += f.size;
      } else {
        theirs.push(i);
        b += f.size;
      }
    });
  } else folders.forEach((_, i) => mine.push(i));
  const remote = theirs.length > 0 ? pool.stat(theirs.map((i) => ({ abs: folders[i]!.abs, ino: folders[i]!.ino }))) : undefined;
  passStats.byWorker = 0;
  passStats.yields = 0;
  let since = 0;
  for (const i of mine) {
    out[i] = statFolder(fs, folders[i]!.abs, folders[i]!.ino);
    since += out[i]?.names.length ?? 1;
    if (since >= STAT_CHUNK && total >= PARALLEL_MIN) {
      since = 0;
      passStats.yields++;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  if (remote) {
    const listings = await remote.catch(() => undefined);
    // The worker failed: this thread does its share (and the next passes all of it).
    theirs.forEach((i, k) => {
      out[i] = listings ? listings[k] : statFolder(fs, folders[i]!.abs, folders[i]!.ino);
    });
    if (listings) passStats.byWorker = theirs.length;
  }
  return out;
}

/** The one stat worker of the process: started on first use, kept (unref'd) while idle, dropped for good on an error. */
class StatPool {
  #worker: Worker | undefined;
  #broken = false;
  #next = 0;
  readonly #waiting = new Map<number, { resolve: (l: (Listing | undefined)[]) => void; reject: (e: Error) => void }>();

  usable(): boolean {
    return !this.#broken;
  }

  stat(folders: readonly { abs: string; ino: number }[]): Promise<(Listing | undefined)[]> {
    const worker = this.#start();
    if (!worker) return Promise.reject(new Error('no stat worker'));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      // Held while a pass waits on it: a session's last checkpoint is not cut short by the process exiting.
      worker.ref();
      worker.postMessage({ id, folders });
    });
  }

  #start(): Worker | undefined {
    if (this.#worker || this.#broken) return this.#worker;
    try {
      const source = `const fs = require('node:fs');\nconst { parentPort } = require('node:worker_threads');\nconst statFolder = ${statFolder.toString()};\nparentPort.on('message', (m) => {\n  const listings = m.folders.map((f) => statFolder(fs, f.abs, f.ino));\n  parentPort.postMessage({ id: m.id, listings }, listings.filter(Boolean).map((l) => l.rows.buffer));\n});\n`;
      const worker = new Worker(source, { eval: true, stdout: false, stderr: false });
      worker.unref();
      worker.on('message', (m: { id: number; listings: (Listing | undefined)[] }) => {
        const waiter = this.#waiting.get(m.id);
        this.#waiting.delete(m.id);
        if (this.#waiting.size === 0) worker.unref();
        waiter?.resolve(m.listings.map((l) => l ?? undefined));
      });
      const fail = (error: Error) => {
        this.#broken = true;
        this.#worker = undefined;
        for (const w of this.#waiting.values()) w.reject(error);
        this.#waiting.clear();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`stat worker exited (${code})`)));
      this.#worker = worker;
      return worker;
    } catch {
      this.#broken = true;
      return undefined;
    }
  }
}

const pool = new StatPool();

/** Whether row `i` of `rows` says exactly the stamp's stat data (what `sameStamp` says of an `lstat`). */
export function sameRow(rows: Float64Array, i: number, stamp: { dev: number; ino: number; mode: number; size: number; mtimeMs: number; ctimeMs: number }): boolean {
  const o = i * ROW;
  return rows[o + 4] === stamp.mtimeMs && rows[o + 5] === stamp.ctimeMs && rows[o + 3] === stamp.size && rows[o + 2] === stamp.ino && rows[o] === stamp.mode && rows[o + 1] === stamp.dev;
}

/** Whether row `i` is a folder (`lstat`: never through a link). */
export function rowIsFolder(rows: Float64Array, i: number): boolean {
  const mode = rows[i * ROW]!;
  return !Number.isNaN(mode) && (mode & fs.constants.S_IFMT) === fs.constants.S_IFDIR;
}
