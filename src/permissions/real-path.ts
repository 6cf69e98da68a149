/**
 * Filesystem facts the engine consults: where a path really lives once symlinks are resolved. A path that does not
 * exist yet is judged at the real location of its deepest existing ancestor (a new file through a symlinked parent
 * lands where the link points).
 */
import fs from 'node:fs';
import path from 'node:path';

export type RealPathResult = { ok: true; path: string } | { ok: false; reason: string };

export function resolveRealPath(absPath: string): RealPathResult {
  let current = absPath;
  const tail: string[] = [];
  for (let guard = 0; guard < 4096; guard++) {
    try {
      const real = fs.realpathSync.native(current);
      return { ok: true, path: tail.length === 0 ? real : path.join(real, ...tail.reverse()) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        // A dangling symlink: follow its target by hand, since realpath refuses it.
        const target = readLinkTarget(current);
        if (target !== undefined && guard < 40) {
          current = path.resolve(path.dirname(current), target);
          continue;
        }
        const parent = path.dirname(current);
        if (parent === current) return { ok: true, path: path.join('/', ...tail.reverse()) };
        tail.push(path.basename(current));
        current = parent;
        continue;
      }
      if (code === 'EACCES' || code === 'EPERM') {
        // We cannot see behind it; judge the path as given, which the caller checks anyway.
        return { ok: true, path: tail.length === 0 ? current : path.join(current, ...tail.reverse()) };
      }
      return { ok: false, reason: `cannot resolve ${absPath}: ${code ?? String(error)}` };
    }
  }
  return { ok: false, reason: `cannot resolve ${absPath}: too many levels` };
}

function readLinkTarget(p: string): string | undefined {
  try {
    return fs.readlinkSync(p);
  } catch {
    return undefined;
  }
}
