/**
 * What Grep and Glob share about paths: resolving the search path against the session's cwd, Claude Code's
 * validation messages, the VCS folders never searched, and the Read-deny exclusion (rg globs plus a post-filter).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expandPath, isPathReadDenied, readDenyGlobs, VCS_DIRECTORIES } from '../../permissions/paths.js';
import type { ToolPermissionContext } from '../../tool/permission-types.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { describeFsError } from './errors.js';
import { fdPath, requireCheckedObject } from './opened-file.js';


export const CWD_NOTE = 'Note: your current working directory is';

/** Models sometimes send `""`, `"undefined"` or `"null"` for an omitted path: all mean "the cwd". */
export function givenPath(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' || trimmed === 'undefined' || trimmed === 'null' ? undefined : value;
}

/** An absolute, normalised path: `~` expanded, relative paths resolved against `cwd` (as the permission engine does). */
export function resolveSearchPath(value: string | undefined, cwd: string, homeDir?: string): string {
  return expandPath(givenPath(value) ?? '.', cwd, homeDir);
}

/** The cwd a call runs in: the session's (a `cd` in Bash moves it). */
export function sessionCwd(context: ToolUseContext): string {
  return context.getAppState().cwd;
}

/** What `~` expands to for this session (the permission context's, else the OS user's). */
export function sessionHomeDir(context: ToolUseContext): string | undefined {
  return context.getAppState().toolPermissionContext.homeDir;
}

/** Claude Code's wording for a null byte in a field (`Grep glob cannot contain…`); undefined when there is none. */
export function nullByteMessage(toolName: string, fields: readonly (readonly [string, string | undefined])[]): string | undefined {
  const bad = fields.find(([, value]) => value?.includes('\0') === true);
  return bad ? `${toolName} ${bad[0]} cannot contain null bytes (\\0). Remove the null byte and try again.` : undefined;
}

export function isMissingFileError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Read-deny exclusion for one search. `globs` go to rg as `--iglob !…` so denied files are never opened; `isDenied`
 * checks result paths again (defense in depth: a glob the engine could not express relative to the root, a case or
 * symlink variant). With no path deny rule at all there is nothing to check.
 */
export interface ReadDenyFilter {
  readonly globs: readonly string[];
  readonly active: boolean;
  isDenied(absPath: string): boolean;
}

/** `realRoot`: the searched folder's real path as its descriptor names it (SearchRoot), else asked by path now. */
export function readDenyFilter(ctx: ToolPermissionContext, searchRoot: string, realRoot?: string): ReadDenyFilter {
  // Any deny rule that names a path may be one the engine applies to reads (Read, Grep, Glob…).
  const active = ctx.alwaysDenyRules.some((rule) => rule.ruleValue.ruleContent !== undefined);
  if (!active) return { globs: [], active, isDenied: () => false };
  // rg's globs are relative to the root; a root reached through a symlink is judged where it really is, too.
  const globs = new Set(readDenyGlobs(ctx, searchRoot));
  const real = realRoot ?? realPathOf(searchRoot);
  if (real !== searchRoot) for (const glob of readDenyGlobs(ctx, real)) globs.add(glob);
  return { globs: [...globs], active, isDenied: (absPath) => isPathReadDenied(absPath, ctx) };
}

/**
 * `items` without denied entries, checking cheaply: rg's exclusion is complete by construction (the engine's globs,
 * no symlink followed), and `isPathReadDenied` resolves a real path per call — for every match of a large search that
 * would cost more than the search. So the entries that can be shown (the first `upTo` of the ordered list) are
 * checked; should one be denied, the exclusion failed somehow, and the whole list is filtered, exactly.
 */
function realPathOf(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

export function withoutDenied<T>(items: T[], upTo: number, pathOf: (item: T) => string, deny: ReadDenyFilter): T[] {
  if (!deny.active) return items;
  const end = Math.min(items.length, upTo);
  for (let i = 0; i < end; i++) {
    if (deny.isDenied(pathOf(items[i]!))) return items.filter((item) => !deny.isDenied(pathOf(item)));
  }
  return items;
}

/** `--iglob !…` for each deny glob: deny rules compare case-insensitively, so the exclusion does too. */
export function denyGlobArgs(filter: ReadDenyFilter): string[] {
  const args: string[] = [];
  for (const glob of filter.globs) args.push('--iglob', `!${glob}`);
  return args;
}

export function vcsExcludeArgs(): string[] {
  const args: string[] = [];
  for (const dir of VCS_DIRECTORIES) args.push('--glob', `!${dir}`);
  return args;
}

/**
 * What Glob and Grep share as tools: read-only, concurrency-safe searches of a `path` the model may leave out, shown
 * to users as "Search", with the path made absolute on the observable clone that hooks and permissions see.
 */
export const searchToolTraits = {
  userFacingName: () => 'Search',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput(input: { readonly pattern: string; readonly path?: string }): string {
    const where = givenPath(input.path);
    return where !== undefined ? `${input.pattern} in ${where}` : input.pattern;
  },
  backfillObservableInput(input: Record<string, unknown>, context: ToolUseContext): void {
    if (input.path === undefined || typeof input.path === 'string') {
      input.path = resolveSearchPath(input.path as string | undefined, sessionCwd(context), sessionHomeDir(context));
    }
  },
};

/** A file's modification time (0 when it cannot be read): Grep and Glob sort their results newest first by it. */
export function mtimeOf(file: string): number {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  } catch {
    return 0;
  }
}

/**
 * The folder or file a search reads, opened and bound to the call's permission decision (opened-file.ts), so that rg
 * searches what was judged whatever the path names by the time it runs: a folder becomes rg's working directory
 * through its descriptor (`/proc/self/fd/N`: the child's chdir follows the open folder, not its name) and rg searches
 * `.`; a file is handed to rg as its descriptor 3 and rg searches `/proc/self/fd/3`. Result paths are mapped back
 * under the path as given. Without /proc, rg gets the real path the descriptor was verified against (weaker: a name).
 */
export interface SearchRoot {
  readonly isFile: boolean;
  /** The real path of what was opened. */
  readonly real: string;
  /** rg's working directory. */
  readonly cwd: string;
  /** What rg is told to search. */
  readonly arg: string;
  /** A descriptor rg inherits as its fd 3 (a file searched). */
  readonly inheritFd?: number;
  /** A path rg printed → the path shown (under the searched path as given). */
  shown(rgPath: string): string;
  close(): void;
}

const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const O_NOCTTY = fs.constants.O_NOCTTY ?? 0;

/**
 * Opens `target` (a folder, or with `allowFile` a regular file too) for a search and binds it. Undefined when it is
 * not there or not of that kind (each caller has its own words for that); a FileToolError when what was opened is not
 * what the decision covers.
 */
export function openSearchRoot(target: string, context: ToolUseContext, allowFile: boolean): SearchRoot | undefined {
  let fd: number;
  try {
    // O_NONBLOCK|O_NOCTTY: a FIFO or a terminal put there since the caller's stat neither blocks nor is adopted.
    fd = fs.openSync(target, fs.constants.O_RDONLY | O_NONBLOCK | O_NOCTTY | (allowFile ? 0 : O_DIRECTORY));
  } catch (error) {
    if (isMissingFileError(error)) return undefined;
    throw describeFsError(error, target);
  }
  const close = () => fs.closeSync(fd);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isDirectory() && !(allowFile && st.isFile())) {
      close();
      return undefined;
    }
    const real = requireCheckedObject(fd, st, target, { context, access: 'read' });
    const byFd = fdPath(fd);
    if (st.isFile()) {
      const arg = byFd === undefined ? real : '/proc/self/fd/3';
      return { isFile: true, real, cwd: byFd === undefined ? path.dirname(real) : '/', arg, inheritFd: byFd === undefined ? undefined : fd, shown: (p) => (p === arg ? target : p), close };
    }
    const under = (rel: string) => (rel === '' ? target : target === '/' ? `/${rel}` : `${target}/${rel}`);
    return { isFile: false, real, cwd: byFd ?? real, arg: '.', shown: (p) => under(p.startsWith('./') ? p.slice(2) : p === '.' ? '' : p), close };
  } catch (error) {
    close();
    throw error;
  }
}
