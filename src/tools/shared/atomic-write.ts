/**
 * Atomic file replacement: the new bytes go to a temporary file in the same directory, are fsync'd, get the old
 * file's mode (and owner, where allowed), and are renamed over the target; then the directory is fsync'd so the
 * rename itself survives a crash. A reader — or a crash, or `kill -9` at any instant — sees the old file or the new
 * one, never a truncated mix. A symlink is written through (its target is replaced; the link stays a link).
 *
 * Known limit: rename gives the file a new inode, so hard links to the old file keep the old content.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describeFsError, isNotFound } from './errors.js';

export interface AtomicWriteOptions {
  /** Mode for a new file (default 0o666, less the umask). An existing file keeps its own mode. */
  readonly mode?: number;
  /** fsync the data and the directory (default true; tests of crash safety rely on it). */
  readonly fsync?: boolean;
}

export interface AtomicWriteResult {
  /** The path actually replaced (the symlink target when `filePath` is a symlink). */
  readonly writtenPath: string;
  readonly stats: fs.Stats;
}

async function resolveTarget(filePath: string): Promise<{ target: string; existing: fs.Stats | null }> {
  try {
    const target = await fs.promises.realpath(filePath);
    return { target, existing: await fs.promises.stat(target) };
  } catch (error) {
    if (!isNotFound(error)) throw error;
    // A dangling symlink: write where it points, so the link becomes valid rather than being replaced.
    try {
      const link = await fs.promises.readlink(filePath);
      return { target: path.resolve(path.dirname(filePath), link), existing: null };
    } catch {
      return { target: filePath, existing: null };
    }
  }
}

function tempPathFor(target: string): string {
  const dir = path.dirname(target);
  const base = path.basename(target).slice(0, 100);
  return path.join(dir, `.${base}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

async function fsyncDirectory(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(dir, fs.constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Some platforms and file systems cannot fsync a directory; the data itself is already durable.
  } finally {
    await handle?.close().catch(() => {});
  }
}

export async function atomicWriteFile(
  filePath: string,
  data: Uint8Array | string,
  options: AtomicWriteOptions = {},
): Promise<AtomicWriteResult> {
  const doSync = options.fsync ?? true;
  let target: string;
  let existing: fs.Stats | null;
  try {
    ({ target, existing } = await resolveTarget(filePath));
  } catch (error) {
    throw describeFsError(error, filePath);
  }
  const temp = tempPathFor(target);
  const mode = existing ? existing.mode & 0o7777 : (options.mode ?? 0o666);
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(temp, 'wx', existing ? 0o600 : mode);
    await handle.writeFile(data);
    if (existing) {
      // open() applied the umask; the replacement must carry exactly the old permissions and, if we may, owner.
      await handle.chmod(mode);
      if (existing.uid !== process.getuid?.() || existing.gid !== process.getgid?.()) {
        await handle.chown(existing.uid, existing.gid).catch(() => {});
      }
    }
    if (doSync) await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.promises.rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => {});
    await fs.promises.unlink(temp).catch(() => {});
    throw describeFsError(error, filePath);
  }
  if (doSync) await fsyncDirectory(path.dirname(target));
  const stats = await fs.promises.stat(target);
  return { writtenPath: target, stats };
}
