/**
 * What kind of thing a path is, decided from `fs.stat` BEFORE anything is opened: directories, FIFOs, sockets and
 * devices are refused at once (opening a FIFO for reading blocks until a writer appears; `/dev/zero` never ends).
 * Regular files are then opened with O_NONBLOCK and re-checked with `fstat`, so a path swapped for a FIFO between the
 * stat and the open cannot hang the tool either.
 */
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { describeFsError, FileToolError, isNotFound } from './errors.js';
import { shellQuote } from './shell-word.js';
import { requireCheckedObject, type CheckedAccess } from './opened-file.js';

/** Paths refused by name even before stat: endless, blocking or terminal-bound streams. */
export const BLOCKED_DEVICE_PATHS: ReadonlySet<string> = new Set([
  '/dev/zero',
  '/dev/random',
  '/dev/urandom',
  '/dev/full',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
  '/dev/console',
  '/dev/fd/0',
  '/dev/fd/1',
  '/dev/fd/2',
  '/proc/self/fd/0',
  '/proc/self/fd/1',
  '/proc/self/fd/2',
]);

export function isBlockedDevicePath(absPath: string): boolean {
  return BLOCKED_DEVICE_PATHS.has(absPath) || /^\/proc\/(?:self|\d+)\/fd\/[0-2]$/.test(absPath);
}

export function describeFileType(stats: fs.Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** A path as one bash word, quoted only when it needs to be (so the usual suggestion reads as typed). */
function shellWord(value: string): string {
  return /^[\w./@%+=:,-]+$/.test(value) ? value : shellQuote(value);
}

/**
 * Read's refusal of a directory: Claude Code's own first line (Node's EISDIR text, which models were trained on), then
 * the tools that do list a directory — Claude Code's line alone leaves the model to guess (src/tools/read/README.md).
 */
export function directoryReadMessage(absPath: string): string {
  return (
    `EISDIR: illegal operation on a directory, read '${absPath}'\n` +
    `${absPath} is a directory, not a file. To see what it contains, use Bash with \`ls ${shellWord(absPath)}\` or the Glob tool (pattern "*", path "${absPath}").`
  );
}

/** The refusal for anything that is not a regular file; `verb` is "read" or "edit"/"write" (a directory: see above for Read). */
export function notRegularFileMessage(absPath: string, stats: fs.Stats, verb: string): string {
  if (stats.isDirectory()) return `Cannot ${verb} ${absPath}: it is a directory, not a file. Give the path of a file.`;
  const kind = describeFileType(stats);
  return `Cannot ${verb} ${absPath}: it is ${kind}, not a regular file. Only regular files can be ${verb === 'read' ? 'read' : 'changed'} with this tool.`;
}

/** `fs.stat`, or null when nothing is there. Other errors become a model-readable FileToolError. */
export async function statOrNull(absPath: string): Promise<fs.Stats | null> {
  try {
    return await fs.promises.stat(absPath);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw describeFsError(error, absPath);
  }
}

/**
 * The same, answered at once. For a path the permission check has just resolved — its existence and realpath are
 * synchronous there, so a stat of it cannot block where those did not — this costs a few µs, where fs.promises.stat
 * costs a thread-pool round trip and a turn of the event loop (Read's: ~0.05-0.1 ms of every call under load).
 */
export function statOrNullSync(absPath: string): fs.Stats | null {
  try {
    // Without throwIfNoEntry: a missing file is common here (the model guesses paths), and an ENOTDIR is one too.
    return fs.statSync(absPath, { throwIfNoEntry: false }) ?? null;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw describeFsError(error, absPath);
  }
}

const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * Opens a path already known (from `stats`) to be a regular file, failing if it changed into something else — or,
 * with `checked`, if what was opened is not what the call's permission decision covers (opened-file.ts).
 */
export async function openRegularFile(absPath: string, stats: fs.Stats, checked?: CheckedAccess): Promise<FileHandle> {
  return (await openBoundRegularFile(absPath, stats, checked)).handle;
}

/** A regular file opened and bound (opened-file.ts): its handle, its fstat, and the real path its descriptor names. */
export interface BoundFile {
  readonly handle: FileHandle;
  readonly stat: fs.Stats;
  /** The real path of the object opened (with `checked`; else the path as given). */
  readonly real: string;
}

/** openRegularFile, telling what was opened: a caller that writes back must write to that very object. */
export async function openBoundRegularFile(absPath: string, stats: fs.Stats, checked?: CheckedAccess): Promise<BoundFile> {
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(absPath, fs.constants.O_RDONLY | O_NONBLOCK);
  } catch (error) {
    throw describeFsError(error, absPath);
  }
  try {
    // Synchronous: an fstat of the descriptor just opened answers from its inode, no path to walk, and the thread-pool
    // round trip of handle.stat() cost more than the call itself.
    const now = fs.fstatSync(handle.fd);
    if (!now.isFile() || now.ino !== stats.ino || now.dev !== stats.dev) {
      throw new FileToolError(`${absPath} changed while it was being opened; try again.`, 'FILE_CHANGED');
    }
    const real = checked ? requireCheckedObject(handle.fd, now, absPath, checked) : absPath;
    return { handle, stat: now, real };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error instanceof FileToolError ? error : describeFsError(error, absPath);
  }
}

/**
 * Reads a whole regular file, refusing to hold more than `maxBytes` (the stat size can lie: files in /proc report 0).
 */
export async function readWholeFile(handle: FileHandle, maxBytes: number, sizeHint: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  let chunkSize = Math.min(Math.max(sizeHint, 64 * 1024), maxBytes + 1);
  for (;;) {
    const buffer = Buffer.allocUnsafe(chunkSize);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) break;
    chunks.push(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw new FileToolError(`File grew beyond ${maxBytes} bytes while being read.`, 'FILE_TOO_LARGE');
    chunkSize = Math.min(1024 * 1024, maxBytes + 1 - total);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
