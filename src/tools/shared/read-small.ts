/**
 * Small files, read synchronously (Read's text files; Edit's and Write's file before the change, text-file.ts). A file of at most SMALL_READ_MAX_BYTES (by its stat) is opened, checked and
 * read whole without the thread pool: the open and the read of the handle path cost two thread-pool round trips —
 * ~0.1 ms of wall and CPU a Read of a 6-byte file, where the reads themselves take a few µs. The stat before it is
 * synchronous already (read-tool.ts), as the permission check's realpath of the same path was.
 *
 * The guarantees of file-kind.ts hold: the path is opened with O_NONBLOCK and re-checked with fstat (a path swapped
 * for a FIFO after the stat neither hangs nor is read), and a pseudo-file whose stat size lies is read to its end.
 * A file that grew past the limit between the stat and the read is left to the handle path (undefined).
 */
import fs from 'node:fs';
import { describeFsError, FileToolError } from './errors.js';
import { requireCheckedObject, type CheckedAccess } from './opened-file.js';

/** Larger files take the handle path (read-text.ts): a synchronous read of one stops the event loop for as long. */
export const SMALL_READ_MAX_BYTES = 64 * 1024;

const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** The whole file, or undefined when it is now larger than SMALL_READ_MAX_BYTES (the caller reads it as a large one). */
export function readSmallFileSync(absPath: string, stats: fs.Stats, checked?: CheckedAccess): Buffer | undefined {
  return readSmallBoundFileSync(absPath, stats, checked)?.bytes;
}

/**
 * The same, with the opened object's fstat after the read (its size and times as read) and its real path (with
 * `checked`; else the path as given): what a write back must replace (text-file.ts).
 */
export function readSmallBoundFileSync(absPath: string, stats: fs.Stats, checked?: CheckedAccess): { bytes: Buffer; stat: fs.Stats; real: string } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(absPath, fs.constants.O_RDONLY | O_NONBLOCK);
  } catch (error) {
    throw describeFsError(error, absPath);
  }
  try {
    const now = fs.fstatSync(fd);
    if (!now.isFile() || now.ino !== stats.ino || now.dev !== stats.dev) {
      throw new FileToolError(`${absPath} changed while it was being opened; try again.`, 'FILE_CHANGED');
    }
    // What was opened must be what the permission decision covers (opened-file.ts), before a byte of it is read.
    const real = checked ? requireCheckedObject(fd, now, absPath, checked) : absPath;
    // The stat's size and one byte more, so that the end is seen in one read; grown if the file did (or its stat
    // lied), up to one byte past the limit: a file that fills that is larger than this path takes.
    let buffer = Buffer.allocUnsafe(Math.min(stats.size, SMALL_READ_MAX_BYTES) + 1);
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total > SMALL_READ_MAX_BYTES) return undefined;
        const bigger = Buffer.allocUnsafe(Math.min(total * 2, SMALL_READ_MAX_BYTES + 1));
        buffer.copy(bigger, 0, 0, total);
        buffer = bigger;
      }
      const read = fs.readSync(fd, buffer, total, buffer.length - total, total);
      if (read === 0) break;
      total += read;
    }
    return { bytes: buffer.subarray(0, total), stat: fs.fstatSync(fd), real };
  } catch (error) {
    throw error instanceof FileToolError ? error : describeFsError(error, absPath);
  } finally {
    fs.closeSync(fd);
  }
}
