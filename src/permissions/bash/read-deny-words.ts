/**
 * Where a word of a command may point, for the Read deny check (read-deny.ts): the spellings of a path one argument
 * can carry, its absolute candidates in the directories the command may be in, and the work tree a `REV:path` is
 * anchored in. Pure but for the filesystem probes of `gitRoot` (is there a `.git` here?).
 */
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { existsSync } from '../observed-fs.js';
import { absoluteCandidates, tildeCandidates, type CwdState } from './paths.js';

/** The spellings of a path an argument may carry: itself, `--file=P` / `if=P`, `@P` (curl), `REV:P`, `file://P`. */
export function pathCandidates(value: string): string[] {
  const out = new Set<string>();
  if (value !== '' && !value.startsWith('-')) out.add(value);
  const eq = value.indexOf('=');
  if (eq >= 0) out.add(value.slice(eq + 1));
  for (const c of [...out]) {
    if (c.startsWith('@') || c.startsWith('<')) out.add(c.slice(1));
    const colon = c.lastIndexOf(':');
    if (colon >= 0) out.add(c.slice(colon + 1));
  }
  out.delete('');
  return [...out];
}

/** `/proc/self/cwd` is the command's directory, not toolgate's: realpath here would resolve it in the wrong process. */
const PROC_CWD = /^\/proc\/(self|thread-self|\d+)(?:\/task\/\d+)?\/cwd(?=\/|$)/;

/** Absolute candidates of a path word in the directories the command may be in (no glob truncation). */
export function resolveExact(raw: string, state: CwdState, home: string): string[] | undefined {
  const spellings = tildeCandidates(raw, state, home);
  if (spellings === undefined) return undefined;
  const out: string[] = [];
  for (const spelling of spellings) {
    const abs = absoluteCandidates(spelling, state);
    if (abs === undefined) return undefined;
    for (const a of abs) {
      const mapped = procCwd(a, state);
      if (mapped === undefined) return undefined;
      for (const m of mapped) if (!out.includes(m)) out.push(m);
    }
  }
  return out;
}

/**
 * `/proc/self/cwd/…` is the command's directory, not toolgate's: a path through it is taken in each directory the
 * command may be in (another process's `cwd` may also be the shell's: judged both ways). Undefined when unknowable.
 */
export function procCwd(abs: string, state: CwdState): string[] | undefined {
  const proc = PROC_CWD.exec(abs);
  if (!proc) return [abs];
  if (state.unknown) return undefined;
  const rest = abs.slice(proc[0].length);
  return [...state.dirs.map((d) => resolve(d + rest)), ...(/^\d/.test(proc[1]!) ? [abs] : [])];
}

/**
 * The work tree root above `dir` (where `REV:path` is anchored), if any. Asked afresh each time, never remembered: a
 * repository created (`git init`) after a first look must anchor the next `git show HEAD:.env` at its root.
 */
export function gitRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * The word bash passes for one match of a glob (`*` matching `--from-file=.env` passes `--from-file=.env`): a name a
 * cloned repository brings is then an option or code to the program, not only a path. Relative to the directory the
 * glob expanded in; where that is not one of `dirs`, the absolute path (then never an option).
 */
export function matchSpelling(pattern: string, abs: string, dirs: readonly string[]): string {
  if (isAbsolute(pattern) || pattern.startsWith('~')) return abs;
  for (const d of dirs) {
    const r = relative(resolve(d), abs);
    if (r !== '' && !isAbsolute(r)) return pattern.startsWith('./') ? `./${r}` : r;
  }
  return abs;
}
