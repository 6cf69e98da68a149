/**
 * A program found on PATH by absolute path, for the programs toolgate itself runs on the host (git, bwrap, socat).
 * A PATH entry counts only when nothing the model can write could have put the program there:
 *  - an empty or relative entry means "the current directory" to exec, which may be a repository whose files are the
 *    attacker's (a committed `./git`);
 *  - an entry inside a folder sandboxed commands may write (the sandbox policy registers them, `distrustProgramsIn`),
 *    inside the process's working directory (unless that is `/`), or inside folders the caller names (the runner: the folder git starts
 *    in and its repository): `npx`/`npm run` put the project's absolute `node_modules/.bin` first on PATH, direnv a
 *    project's `bin`, an activated virtualenv its `.venv/bin` — a sandboxed command writes `node_modules/.bin/git`,
 *    and toolgate's own git would run it outside the sandbox;
 *  - an entry or program with a `node_modules` component: package binaries, never where the system's git lives.
 * Entries and programs are compared by their real paths (a symlinked PATH entry into the project counts as the
 * project). A refused entry is skipped, so the next one on PATH (the system's git) is found instead.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Whether `file` is a regular file this process may execute (the test exec(3) makes of each PATH entry). */
export function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Folders registered as writable by sandboxed commands (real paths). It only grows: a folder once distrusted stays so. */
const distrusted = new Set<string>();

/** Registers folders whose programs toolgate must never run as its own: every folder sandboxed commands may write. */
export function distrustProgramsIn(dirs: Iterable<string>): void {
  for (const dir of dirs) if (path.isAbsolute(dir)) distrusted.add(real(dir));
}

const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
const inNodeModules = (p: string) => p.split(path.sep).includes('node_modules');

/** The process's working directory, unless it is the file system's root (a service's): that would refuse everything. */
function processCwd(): string[] {
  try {
    const cwd = real(process.cwd());
    return path.dirname(cwd) === cwd ? [] : [cwd];
  } catch {
    return [];
  }
}

/**
 * The first `name` in `pathVar`'s trusted entries that is a regular executable file, or undefined. `notIn`: more
 * folders whose programs must not count (the caller's working folder).
 */
export function findExecutableOnPath(name: string, pathVar: string | undefined, notIn: readonly string[] = []): string | undefined {
  let refused: string[] | undefined;
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (!isExecutableFile(candidate)) continue;
    refused ??= [...distrusted, ...processCwd(), ...notIn.filter((d) => path.isAbsolute(d)).map(real)];
    const places = [path.resolve(dir), real(dir), real(candidate)];
    if (places.some((p) => inNodeModules(p) || refused!.some((r) => within(p, r)))) continue;
    return candidate;
  }
  return undefined;
}
