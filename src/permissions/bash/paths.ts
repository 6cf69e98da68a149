/**
 * Path arguments of read-only commands and redirect targets: expand `~`, resolve against the directories the
 * command may be running in (a `cd` earlier in the command adds one), and test containment in the working
 * directories, lexically and through symlinks.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { lstatIfExists, realpathNative } from '../observed-fs.js';
import { homeOfUser, homeOfUserOrGuess, tildeUser } from '../user-home.js';

export interface CwdState {
  /** Every directory the command may be in at this point (cd is followed; the start stays possible). */
  readonly dirs: readonly string[];
  /** A `cd` to somewhere we cannot know (`cd "$x"`, `cd -`, `popd`): relative paths are unknowable after it. */
  readonly unknown: boolean;
}

/**
 * What bash's tilde expansion makes of a path's start, as the spellings it may be: `~` and `~/…` the home; `~+/…` the
 * directory the command is in; `~user/…` that user's home from the passwd database — another user's home, never a
 * folder of the working directory. A user this machine does not know now may be known when the command runs (NSS,
 * LDAP), and bash leaves the word as it is when it is not: both readings. Undefined when it cannot be known (`~-`,
 * the directory stack, `~+` after a `cd` to somewhere unknown). Paths not starting with `~` come back as they are.
 * A quoted or escaped tilde (`"~/x"`, `\~/x`) is a folder named `~`; the analysis sees the word after quote removal,
 * so where such a folder exists, its reading is a candidate too.
 */
export function tildeCandidates(path: string, state: CwdState, home: string | undefined): string[] | undefined {
  if (!path.startsWith('~')) return [path];
  const expanded = expandTilde(path, state, home);
  if (expanded === undefined) return undefined;
  const slash = path.indexOf('/');
  const first = slash === -1 ? path : path.slice(0, slash);
  const relative = `./${path}`;
  if (!expanded.includes(relative) && !state.unknown && state.dirs.some((d) => existsAt(`${d}/${first}`))) expanded.push(relative);
  return expanded;
}

function existsAt(p: string): boolean {
  try {
    return lstatIfExists(p) !== undefined;
  } catch {
    return true;
  }
}

function expandTilde(path: string, state: CwdState, home: string | undefined): string[] | undefined {
  if (path === '~' || path.startsWith('~/')) return [(home ?? homedir()) + path.slice(1)];
  if (path === '~+' || path.startsWith('~+/')) return state.unknown ? undefined : state.dirs.map((d) => d + path.slice(2));
  // `~N`, `~+N`, `~-N`: the directory stack; `~-`: the previous directory.
  if (/^~[+-]?\d*(\/|$)/.test(path)) return undefined;
  const user = tildeUser(path);
  if (user === undefined) return undefined;
  const rest = path.slice(user.length + 1);
  const known = homeOfUser(user);
  if (known !== undefined) return [known + rest];
  return [homeOfUserOrGuess(user, home ?? homedir()) + rest, `./${path}`];
}

const DOT_DOT = /(^|\/)\.\.(\/|$)/;

/**
 * Where the kernel takes `abs` (written unnormalised: `dir/raw`) when it has a `..` segment: `..` after a symbolic
 * link is the link target's parent, not the lexical one (`src/link/../x`). Undefined when it is the lexical path.
 */
export function physicalCandidate(written: string, lexical: string): string | undefined {
  if (!DOT_DOT.test(written)) return undefined;
  let head = written;
  const rest: string[] = [];
  for (let i = 0; i < 256; i++) {
    try {
      const real = realpathNative(head);
      const out = rest.length > 0 ? resolve(real, ...rest.reverse()) : real;
      if (out === lexical) return undefined;
      // The lexical path, through its own symlinks, may be the same place: only a different place is a candidate.
      try {
        if (realpathNative(lexical) === out) return undefined;
      } catch {
        // the lexical path does not exist: a different place
      }
      return out;
    } catch {
      const parent = dirname(head);
      if (parent === head) return undefined;
      rest.push(head.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      head = parent;
    }
  }
  return undefined;
}

/** The absolute candidates of `path` (tilde already expanded) in the directories of `state`, `..` read both ways. */
export function absoluteCandidates(path: string, state: CwdState): string[] | undefined {
  if (isAbsolute(path)) return withPhysical([[path, resolve(path)]]);
  if (state.unknown) return undefined;
  return withPhysical(state.dirs.map((d) => [`${d}/${path}`, resolve(d, path)]));
}

function withPhysical(pairs: readonly (readonly [written: string, lexical: string])[]): string[] {
  const out = pairs.map((p) => p[1]);
  for (const [written, lexical] of pairs) {
    const physical = physicalCandidate(written, lexical);
    if (physical !== undefined && !out.includes(physical)) out.push(physical);
  }
  return out;
}

/** Absolute candidates for a path argument; undefined when it cannot be known (`~-`, unknown cwd). */
export function resolveArgPath(raw: string, state: CwdState, home: string | undefined): string[] | undefined {
  let path = raw;
  // A glob is judged by its fixed prefix (`src/*.ts` → `src/`).
  const glob = path.search(/[*?[]/);
  if (glob !== -1) path = path.slice(0, glob);
  const spellings = tildeCandidates(path, state, home);
  if (spellings === undefined) return undefined;
  const out: string[] = [];
  for (const spelling of spellings) {
    const abs = absoluteCandidates(spelling, state);
    if (abs === undefined) return undefined;
    for (const a of abs) if (!out.includes(a)) out.push(a);
  }
  return out;
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
