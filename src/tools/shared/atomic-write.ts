/**
 * Atomic file replacement: the new bytes go to a temporary file in the same directory, are fsync'd, get the old
 * file's mode (and owner, where allowed), and are renamed over the target; then, unless the caller opts out
 * (`syncFolder`), the directory is fsync'd so the rename itself survives a power loss. A reader — or a crash, or
 * `kill -9` at any instant — sees the old file or the new one, never a truncated mix: the rename is what makes that
 * true for a crash of the process, the data's fsync before it for a power loss. A symlink is written through (its
 * target is replaced; the link stays a link).
 *
 * Durability against speed (docs/security.md, "Tool writes"): the file tools fsync the data, not the folder, as
 * Claude Code does — a power loss in the moment after a write can bring the old file back (whole), never a torn one.
 * Every call but the fsync is synchronous (for data up to 1 MiB): metadata calls take microseconds, and each
 * thread-pool round trip cost a turn of the event loop — ~12 of them per Write, the larger part of its time under load.
 *
 * The path checked is the path written: the target's folder is resolved once (a new file's folder to its real path:
 * a folder reached through a link is written where it really is), opened (`O_DIRECTORY|O_NOFOLLOW`), and the open
 * folder itself — not its name — is verified and then written through (`/proc/self/fd/N/…` on Linux): a folder
 * flipped to a symlink after the check cannot redirect the temp file or the rename, and the rename replaces the name
 * in that folder, never what a link put there since points to. `checkTarget` sees the real path about to be replaced
 * (the open folder's own path and the name) before anything is created, and may refuse it (the file tools bind it to
 * their permission decision: opened-file.ts). With `confineTo`, the open folder must lie inside one of those
 * directories, or nothing is written at all.
 *
 * Temp files `.NAME.<pid>.<hex>.tmp` left by a process that died mid-write are removed on the first write into their
 * folder (and by `cleanStaleTempFiles`, e.g. at session start).
 *
 * Known limit: rename gives the file a new inode, so hard links to the old file keep the old content.
 */
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describeFsError, isNotFound } from './errors.js';
import { randomBytes } from '../../tool/crypto.js';

export interface AtomicWriteOptions {
  /** Mode for a new file (default 0o666, less the umask). An existing file keeps its own mode. */
  readonly mode?: number;
  /**
   * fsync the new data before the rename (default true): after a power loss the name holds the old file or the new
   * one, whole — never the new name on data that never reached the disk. A process crash needs no fsync for that.
   */
  readonly fsync?: boolean;
  /**
   * fsync the folder after the rename too (default: as `fsync`), so that the rename itself survives a power loss. The
   * file tools pass false, as Claude Code does: a power loss right after a write may bring the old file back, whole.
   */
  readonly syncFolder?: boolean;
  /** Real directories the written folder must be inside (a link leading elsewhere was not expected): refused if not. */
  readonly confineTo?: readonly string[];
  /**
   * Called with the real path about to be replaced — the opened folder's own path (from its descriptor) and the name
   * in it — before anything is created; throwing refuses the write (the caller binds it to a permission decision).
   */
  readonly checkTarget?: (realPath: string) => void;
}

export interface AtomicWriteResult {
  /** The path actually replaced (the symlink target when `filePath` is a symlink). */
  readonly writtenPath: string;
  readonly stats: fs.Stats;
}

function resolveTarget(filePath: string): { target: string; existing: fs.Stats | null } {
  try {
    const target = fs.realpathSync.native(filePath);
    return { target, existing: fs.statSync(target) };
  } catch (error) {
    if (!isNotFound(error)) throw error;
    let file = filePath;
    // A dangling symlink: write where it points, so the link becomes valid rather than being replaced.
    try {
      file = path.resolve(path.dirname(filePath), fs.readlinkSync(filePath));
    } catch {
      // not a link
    }
    // A new file goes in its folder's real place: a folder reached through a link is written where it really is.
    try {
      return { target: path.join(fs.realpathSync.native(path.dirname(file)), path.basename(file)), existing: null };
    } catch {
      return { target: file, existing: null };
    }
  }
}

function tempNameFor(name: string): string {
  return `.${name.slice(0, 100)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Data up to this size is written by synchronous calls; more goes through the thread pool (the event loop stays free). */
const SYNC_WRITE_MAX_BYTES = 1024 * 1024;
const fsyncFd = promisify(fs.fsync);
const writeFd = promisify(fs.writeFile);

export async function atomicWriteFile(
  filePath: string,
  data: Uint8Array | string,
  options: AtomicWriteOptions = {},
): Promise<AtomicWriteResult> {
  const doSync = options.fsync ?? true;
  const syncFolder = options.syncFolder ?? doSync;
  let target: string;
  let existing: fs.Stats | null;
  try {
    ({ target, existing } = resolveTarget(filePath));
  } catch (error) {
    throw describeFsError(error, filePath);
  }
  const dir = path.dirname(target);
  const name = path.basename(target);
  const pinned = pinDirectory(dir, filePath, options.confineTo);
  try {
    options.checkTarget?.(path.join(pinned.real, name));
    cleanStaleTempFilesOnce(pinned.path, dir);
    const temp = path.join(pinned.path, tempNameFor(name));
    const mode = existing ? existing.mode & 0o7777 : (options.mode ?? 0o666);
    let fd: number | undefined;
    try {
      fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, existing ? 0o600 : mode);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      if (bytes.byteLength <= SYNC_WRITE_MAX_BYTES) writeAllSync(fd, bytes);
      else await writeFd(fd, bytes);
      if (existing) {
        // open() applied the umask; the replacement must carry exactly the old permissions and, if we may, owner.
        fs.fchmodSync(fd, mode);
        if (existing.uid !== process.getuid?.() || existing.gid !== process.getgid?.()) {
          try {
            fs.fchownSync(fd, existing.uid, existing.gid);
          } catch {
            // not ours to give away: the file keeps our ownership
          }
        }
      }
      // The one wait that is the disk's: off the event loop.
      if (doSync) await fsyncFd(fd);
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(temp, path.join(pinned.path, name));
    } catch (error) {
      if (fd !== undefined) closeQuietly(fd);
      try {
        fs.unlinkSync(temp);
      } catch {
        // never created, or gone
      }
      throw describeFsError(error, filePath);
    }
    if (syncFolder) await pinned.sync();
    const stats = fs.statSync(path.join(pinned.path, name));
    return { writtenPath: target, stats };
  } finally {
    pinned.close();
  }
}

function writeAllSync(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.byteLength; ) at += fs.writeSync(fd, bytes, at, bytes.byteLength - at);
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

interface PinnedDirectory {
  /** A path that names the opened folder itself (`/proc/self/fd/N`), or its checked path where /proc is missing. */
  readonly path: string;
  /** The opened folder's real path, as its descriptor names it. */
  readonly real: string;
  sync(): Promise<void>;
  close(): void;
}

const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

function pinDirectory(dir: string, filePath: string, confineTo: readonly string[] | undefined): PinnedDirectory {
  let fd: number;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      // Resolved a moment ago as a real folder (or a path without one): a link now stands where it was not expected.
      throw new AtomicWriteRefusedError(`Refused to write ${filePath}: ${dir} is a symbolic link now, not the folder that was checked. Nothing was written.`);
    }
    throw describeFsError(error, filePath);
  }
  const close = () => closeQuietly(fd);
  const sync = async () => {
    try {
      await fsyncFd(fd);
    } catch {
      // Some platforms and file systems cannot fsync a directory; the data itself is already durable.
    }
  };
  let real: string;
  let viaFd: string;
  try {
    // What was opened, not what the name means now: a component flipped to a link before the open shows here.
    viaFd = PROC_FD ? `/proc/self/fd/${fd}` : dir;
    real = PROC_FD ? fs.readlinkSync(viaFd) : fs.realpathSync.native(dir);
  } catch (error) {
    close();
    throw describeFsError(error, filePath);
  }
  if (real !== dir || (confineTo !== undefined && !confineTo.some((root) => real === root || real.startsWith(root.endsWith('/') ? root : `${root}/`)))) {
    close();
    throw new AtomicWriteRefusedError(
      `Refused to write ${filePath}: its folder resolves to ${real}${real !== dir ? ` (it was ${dir} a moment ago: a link changed under the write)` : ', outside the working directories'}. Nothing was written.`,
    );
  }
  return { path: viaFd, real, sync, close };
}

export class AtomicWriteRefusedError extends Error {
  override readonly name = 'AtomicWriteRefusedError';
}

// — temp files of processes that died mid-write —

const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;
const cleanedDirs = new Set<string>();

function cleanStaleTempFilesOnce(pinnedPath: string, dir: string): void {
  if (cleanedDirs.has(dir)) return;
  cleanedDirs.add(dir);
  removeStaleTempFiles(pinnedPath);
}

/**
 * Removes `.NAME.<pid>.<hex>.tmp` files whose writing process is gone; returns how many. Not recursive; `maxEntries`
 * bounds the names read per folder (a session start must not wait on a folder of a million files). Never throws.
 */
export function cleanStaleTempFiles(dirs: Iterable<string>, options: { maxEntries?: number } = {}): number {
  let n = 0;
  for (const dir of dirs) n += removeStaleTempFiles(dir, options.maxEntries ?? Infinity);
  return n;
}

function removeStaleTempFiles(dir: string, maxEntries = Infinity): number {
  let handle: fs.Dir;
  try {
    handle = fs.opendirSync(dir);
  } catch {
    return 0;
  }
  let n = 0;
  try {
    for (let seen = 0, entry = handle.readSync(); entry !== null && seen < maxEntries; entry = handle.readSync(), seen++) {
      const m = TEMP_NAME.exec(entry.name);
      if (m === null || !entry.isFile()) continue;
      const pid = Number(m[1]);
      if (pid === process.pid || processAlive(pid)) continue;
      try {
        fs.unlinkSync(path.join(dir, entry.name));
        n++;
      } catch {
        // gone already, or not ours to remove
      }
    }
  } catch {
    // the folder went away while we read it
  } finally {
    try {
      handle.closeSync();
    } catch {
      // already closed
    }
  }
  return n;
}

/** Whether a process numbered `pid` exists; EPERM (another user's process) counts as alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
