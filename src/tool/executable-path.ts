/**
 * A program found on PATH by absolute path, for the programs toolgate itself runs (git, bwrap, socat). Only absolute
 * PATH entries count: an empty or relative entry means "the current directory" to exec, and toolgate's current
 * directory may be a repository whose files are the attacker's (a committed `./git`).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Whether `file` is a regular file this process may execute (the test exec(3) makes of each PATH entry). */
function executable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first `name` in `pathVar`'s absolute entries that is a regular executable file, or undefined. */
export function findExecutableOnPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}
