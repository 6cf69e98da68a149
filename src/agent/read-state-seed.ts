/**
 * A program tells the runtime that the model has read a file it can no longer see in its context (the Agent SDK's
 * `seedReadState(path, mtime)`): the file counts as read in full, so an Edit does not ask for a Read first. Only when
 * the file has not changed since the program saw it read: a file modified later (its mtime, floored to the
 * millisecond, past the one given, or its change time well past it: a version put there with an old mtime) is not
 * seeded, and the Edit asks for a fresh Read as before (fail closed). The
 * seed records the file's bytes as they are now, so a later change is caught by its hash, as after a Read.
 */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { recordFileState } from '../tools/shared/read-state.js';
import { resolveToolPath } from '../tools/shared/paths.js';
import { contextOf } from './runtime-context.js';
import type { ToolRuntime } from './types.js';

/** Larger files are not seeded: a Read of them is partial anyway, and the seed would hold their whole text. */
const MAX_SEED_BYTES = 10 * 1024 * 1024;
/**
 * An mtime can be set back (`touch -r`, `cp -p`, `rsync -a`, `tar x`), so a version put there after the Read may carry
 * the mtime that was seen; the inode's change time cannot be set back. It may trail the mtime a little for a file
 * renamed into place after its write (an atomic writer, an fsync between): that much is allowed.
 */
const CTIME_ALLOWANCE_MS = 1_000;

/** True when the file now counts as read; false when it was skipped (changed since `mtimeMs`, missing, not a file, too large). */
export function seedReadState(runtime: ToolRuntime, file: string, mtimeMs: number): boolean {
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('seedReadState(path, mtime): path must be a non-empty string');
  if (typeof mtimeMs !== 'number' || !Number.isFinite(mtimeMs)) throw new TypeError('seedReadState(path, mtime): mtime must be a number (milliseconds)');
  const context = contextOf(runtime);
  const absPath = resolveToolPath(file, context);
  let stats;
  try {
    stats = statSync(absPath);
  } catch {
    return false;
  }
  if (!stats.isFile() || stats.size > MAX_SEED_BYTES || Math.floor(stats.mtimeMs) > Math.floor(mtimeMs)) return false;
  if (Math.floor(stats.ctimeMs) > Math.floor(mtimeMs) + CTIME_ALLOWANCE_MS) return false;
  // A link put at the name since (to another file, untouched for long) is as new as its own change time.
  const own = lstatSync(absPath);
  if (own.isSymbolicLink() && Math.floor(own.ctimeMs) > Math.floor(mtimeMs) + CTIME_ALLOWANCE_MS) return false;
  const bytes = readFileSync(absPath);
  // Read between the stat and now: a write in between shows as a size or mtime that moved; then nothing is seeded.
  const again = statSync(absPath);
  if (again.mtimeMs !== stats.mtimeMs || again.ctimeMs !== stats.ctimeMs || again.size !== bytes.length) return false;
  recordFileState(context, absPath, { bytes, stats, text: bytes.toString('utf8'), partial: false });
  return true;
}
