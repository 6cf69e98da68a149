/**
 * Filesystem facts the engine consults: where a path really lives once symlinks are resolved. A path that does not
 * exist yet is judged at the real location of its deepest existing ancestor (a new file through a symlinked parent
 * lands where the link points).
 */
import type fs from 'node:fs';
import path from 'node:path';
import { existsSync, lstatIfExists, readlinkSync, realpathNative } from './observed-fs.js';

export type RealPathResult = { ok: true; path: string } | { ok: false; reason: string };

export function resolveRealPath(absPath: string): RealPathResult {
  // Fast path: the path exists (one call). Otherwise walk up with lstat, which reports absence without throwing.
  // existsSync first: a realpath of a missing path throws, and building that error costs several times the syscalls
  // (writes of new files, half the paths a Bash command names). A path that is there, or a race either way, still
  // ends in the careful walk below, which decides every case on its own.
  if (existsSync(absPath)) {
    try {
      return { ok: true, path: realpathNative(absPath) };
    } catch {
      // fall through to the careful walk
    }
  }
  let current = absPath;
  const tail: string[] = [];
  const withTail = (p: string) => (tail.length === 0 ? p : path.join(p, ...[...tail].reverse()));
  let hops = 0;
  for (let guard = 0; guard < 4096; guard++) {
    // lstat first: it reports a missing path without throwing (exceptions cost more than the syscall).
    let st: fs.Stats | undefined;
    try {
      st = lstatIfExists(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') st = undefined;
      else if (code === 'EACCES' || code === 'EPERM') return { ok: true, path: withTail(current) };
      else return { ok: false, reason: `cannot resolve ${absPath}: ${code ?? String(error)}` };
    }
    if (st === undefined) {
      const parent = path.dirname(current);
      if (parent === current) return { ok: true, path: withTail('/') };
      tail.push(path.basename(current));
      current = parent;
      continue;
    }
    try {
      return { ok: true, path: withTail(realpathNative(current)) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && st.isSymbolicLink() && hops++ < 40) {
        // A dangling symlink: what gets created is its target, so follow it by hand.
        let target: string;
        try {
          target = readlinkSync(current);
        } catch {
          return { ok: false, reason: `cannot resolve ${absPath}: the link ${current} changed while reading it` };
        }
        current = path.resolve(path.dirname(current), target);
        continue;
      }
      if (code === 'EACCES' || code === 'EPERM') return { ok: true, path: withTail(current) };
      return { ok: false, reason: `cannot resolve ${absPath}: ${code ?? String(error)}` };
    }
  }
  return { ok: false, reason: `cannot resolve ${absPath}: too many levels` };
}
