/**
 * Path arguments of read-only commands and redirect targets: expand `~`, resolve against the directories the
 * command may be running in (a `cd` earlier in the command adds one), and test containment in the working
 * directories, lexically and through symlinks.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { realpathNative } from '../observed-fs.js';

export interface CwdState {
  /** Every directory the command may be in at this point (cd is followed; the start stays possible). */
  readonly dirs: readonly string[];
  /** A `cd` to somewhere we cannot know (`cd "$x"`, `cd -`, `popd`): relative paths are unknowable after it. */
  readonly unknown: boolean;
}

/** Absolute candidates for a path argument; undefined when it cannot be known (`~user`, unknown cwd). */
export function resolveArgPath(raw: string, state: CwdState, home: string | undefined): string[] | undefined {
  let path = raw;
  // A glob is judged by its fixed prefix (`src/*.ts` → `src/`).
  const glob = path.search(/[*?[]/);
  if (glob !== -1) path = path.slice(0, glob);
  if (path === '~' || path.startsWith('~/')) path = (home ?? homedir()) + path.slice(1);
  else if (path.startsWith('~')) return undefined;
  if (isAbsolute(path)) return [resolve(path)];
  if (state.unknown) return undefined;
  return state.dirs.map((d) => resolve(d, path));
}

export function isInside(abs: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => abs === d || abs.startsWith(d.endsWith(sep) ? d : d + sep));
}

/** The real location of a path, following symlinks of the longest existing ancestor. */
export function realLocation(abs: string, cache?: Map<string, string>): string {
  const hit = cache?.get(abs);
  if (hit !== undefined) return hit;
  let current = abs;
  const rest: string[] = [];
  let real = abs;
  for (let i = 0; i < 64; i++) {
    try {
      const found = realpathNative(current);
      real = rest.length > 0 ? resolve(found, ...rest.reverse()) : found;
      break;
    } catch {
      const parent = dirname(current);
      if (parent === current) break;
      rest.push(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
  cache?.set(abs, real);
  return real;
}

/**
 * Containment in the working directories, both as written and after following symlinks. One judge serves one
 * decision, caching real paths (the same directories come up for every argument).
 */
export class WorkingDirs {
  private readonly cache = new Map<string, string>();
  private realDirs: string[] | undefined;

  constructor(readonly dirs: readonly string[]) {}

  contains(abs: string): boolean {
    if (!isInside(abs, this.dirs)) return false;
    // A working directory itself is inside, whatever its real location.
    if (this.dirs.includes(abs)) return true;
    this.realDirs ??= [...this.dirs, ...this.dirs.map((d) => realLocation(d, this.cache))];
    return isInside(realLocation(abs, this.cache), this.realDirs);
  }
}

/** Inside the working directories both as written and after following symlinks. */
export function isInsideWorkingDirs(abs: string, dirs: readonly string[]): boolean {
  return new WorkingDirs(dirs).contains(abs);
}

/** The directories after a `cd`: added to the possible ones, or replacing them when the cd certainly happened. */
export function nextCwdState(state: CwdState, target: string | null, home: string | undefined, certain = false): CwdState {
  if (target === null) return { dirs: state.dirs, unknown: true };
  const resolved = resolveArgPath(target === '~' ? '~' : target, state, home);
  if (!resolved) return { dirs: state.dirs, unknown: true };
  if (certain) return { dirs: resolved, unknown: false };
  return { dirs: [...new Set([...state.dirs, ...resolved])], unknown: state.unknown };
}
