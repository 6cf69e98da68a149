/**
 * One Grep search: rg with the built arguments, its output collected per mode with bounded memory —
 * files_with_matches keeps only paths (sorted newest first afterwards), count keeps one line per file and sums
 * totals as it reads, content keeps only the requested page and stops rg once the page is full.
 */
import path from 'node:path';
import { buildGrepArgs, DEFAULT_HEAD_LIMIT, searchFlags, selectFlags, type GrepInput } from './grep-args.js';
import { runBoundSearch } from './grep-bound.js';
import type { ToolPermissionContext } from '../../tool/permission-types.js';
import { paginate, type GrepOutput } from './grep-format.js';
import { formatDuration } from '../shared/units.js';
import { runRipgrep, type RipgrepOutcome } from '../shared/ripgrep.js';
import { mtimeOf, withoutDenied, type ReadDenyFilter, type SearchRoot } from '../shared/search-path.js';

export interface GrepSearchRequest {
  readonly input: GrepInput;
  /** The absolute file or directory searched. */
  readonly target: string;
  readonly targetIsFile: boolean;
  /** rg's working directory (the target directory, or the file's folder): globs are relative to it. */
  readonly cwd: string;
  /**
   * The target opened and bound to the call's decision (search-path.ts): rg searches it (`arg`, an inherited
   * descriptor) and its printed paths are mapped back under `target`. Absent: rg searches `target` by name.
   */
  readonly searched?: Pick<SearchRoot, 'arg' | 'inheritFd' | 'shown'>;
  readonly deny: ReadDenyFilter;
  /**
   * A folder opened and bound, to be searched without rg opening anything below it by name (grep-bound.ts): `root`
   * names the open folder (`/proc/self/fd/N`), `ctx` holds the deny rules each file opened is judged by.
   */
  readonly walkBound?: { readonly root: string; readonly ctx: ToolPermissionContext };
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /**
   * The session's directory: result paths inside it are shown relative to it (as Claude Code shows them: fewer
   * tokens), others absolute. Absent: absolute. Deny checks always use the absolute path rg printed.
   */
  readonly shownFrom?: string;
  /**
   * Told how many entries rg has printed so far (paths, count lines or content lines, by mode): at the first and then
   * at most every `PROGRESS_EVERY_MS`. The tool reports it as progress (the seeds' Grep emits match counts).
   */
  readonly onFound?: (found: number) => void;
}

/** How often a long search reports its count: often enough to show it moving, rarely enough to cost nothing. */
export const PROGRESS_EVERY_MS = 250;

/** `onRecord` that also counts the non-empty records for `onFound`, first at once, then at most every interval. */
function counting(onRecord: (record: string) => boolean | void, onFound: ((found: number) => void) | undefined): (record: string) => boolean | void {
  if (onFound === undefined) return onRecord;
  let found = 0;
  let last = 0;
  return (record) => {
    const verdict = onRecord(record);
    if (record !== '' && record !== '--') {
      found++;
      const now = Date.now();
      if (found === 1 || now - last >= PROGRESS_EVERY_MS) {
        last = now;
        onFound(found);
      }
    }
    return verdict;
  };
}

/** A result path as the model reads it: relative to `from` when inside it, absolute otherwise. */
export function shownPath(file: string, from: string | undefined): string {
  if (from === undefined) return file;
  const rel = path.relative(from, file);
  return rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) ? file : rel;
}

/** The rg command line for a request (the benchmark runs raw rg with exactly this). */
export function grepCommandArgs(request: Pick<GrepSearchRequest, 'input' | 'target' | 'deny' | 'searched'>): string[] {
  return [...buildGrepArgs(request.input, request.deny), '--', request.searched?.arg ?? request.target];
}

/** A path rg printed, as the results show it: under the target as given. */
function fromRg(request: GrepSearchRequest, printed: string): string {
  return request.searched ? request.searched.shown(printed) : printed;
}

export async function searchWithRipgrep(request: GrepSearchRequest): Promise<GrepOutput> {
  const mode = request.input.output_mode ?? 'files_with_matches';
  const headLimit = request.input.head_limit ?? DEFAULT_HEAD_LIMIT;
  const offset = request.input.offset ?? 0;
  if (mode === 'content') return searchContent(request, headLimit, offset);
  if (mode === 'count') return searchCount(request, headLimit, offset);
  return searchFiles(request, headLimit, offset);
}

function run(request: GrepSearchRequest, separator: '\0' | '\n', eachRecord: (record: string) => boolean | void) {
  const { walkBound, input } = request;
  const onRecord = counting(eachRecord, request.onFound);
  if (walkBound) {
    const content = (input.output_mode ?? 'files_with_matches') === 'content';
    return runBoundSearch(
      {
        root: walkBound.root,
        ctx: walkBound.ctx,
        // The listing's order is the search's (one thread): content pages line up from one call to the next.
        listArgs: ['--no-config', '--hidden', '--no-follow', '--files', '--null', ...(content ? ['--sort', 'path'] : []), ...selectFlags(input, request.deny)],
        searchArgs: [...searchFlags(input), '--with-filename', ...(content ? ['-j1'] : []), '-e', input.pattern],
        signal: request.signal,
        timeoutMs: request.timeoutMs,
        separator,
        onRecord,
      },
      'Grep',
    );
  }
  return runRipgrep(
    {
      args: grepCommandArgs(request),
      cwd: request.cwd,
      signal: request.signal,
      timeoutMs: request.timeoutMs,
      separator,
      onRecord,
      inheritFd: request.searched?.inheritFd,
    },
    'Grep',
  );
}

/** Turns rg's failures into errors for the model; returns whether the time limit cut the output short. */
function checkOutcome(outcome: RipgrepOutcome, collected: number, request: GrepSearchRequest): boolean {
  if (outcome.timedOut) {
    if (collected === 0) {
      throw new Error(
        `Grep timed out after ${formatDuration(request.timeoutMs)} searching ${request.target} ` +
          'before finding anything. Narrow the search with path, glob or type.',
      );
    }
    return true;
  }
  if (outcome.stopped || outcome.exitCode === 0 || outcome.exitCode === 1) return false;
  // Exit 2 with output: some files could not be read (permissions, races) but the search ran: keep the results.
  if (outcome.exitCode === 2 && outcome.records > 0) return false;
  // Without <tool_use_error>, as Claude Code sends it (tool/tool-result.ts, unwrappedErrorToolResult).
  throw Object.assign(new Error(ripgrepFailureMessage(outcome)), { unwrappedForModel: true });
}

const REJECTION = /regex parse error|error parsing glob|unrecognized file type|regex.*(?:too large|exceeded)|error:/i;

export function ripgrepFailureMessage(outcome: Pick<RipgrepOutcome, 'exitCode' | 'stderr'>): string {
  const detail = outcome.stderr.trim();
  if (outcome.exitCode === 2 && REJECTION.test(detail)) {
    return `Search failed — ripgrep rejected the pattern, glob, or file type without searching:\n${detail}`;
  }
  const status = outcome.exitCode === null ? 'was killed' : `exited with code ${outcome.exitCode}`;
  return detail ? `Search failed — ripgrep ${status}:\n${detail}` : `Search failed — ripgrep ${status}.`;
}

/**
 * A listed file's mtime (0 when it has vanished since). lstat, not stat: rg without --follow never lists a symlink,
 * so the two agree, and lstat is a little cheaper — this runs once per match.
 */

/** Newest first; equal times by path, so pages are stable from one call to the next. */
export function newestFirst(paths: readonly string[], mtimes: readonly number[]): string[] {
  const order = paths.map((_, i) => i);
  order.sort((a, b) => mtimes[b]! - mtimes[a]! || (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
  return order.map((i) => paths[i]!);
}

async function searchFiles(request: GrepSearchRequest, headLimit: number, offset: number): Promise<GrepOutput> {
  const paths: string[] = [];
  const mtimes: number[] = [];
  // Stat while rg is still searching: the mtimes are ready when it finishes.
  const outcome = await run(request, '\0', (file) => {
    if (file === '') return;
    const shown = fromRg(request, file);
    paths.push(shown);
    mtimes.push(mtimeOf(shown));
  });
  const timedOut = checkOutcome(outcome, paths.length, request);
  const files = withoutDenied(newestFirst(paths, mtimes), shownUpTo(headLimit, offset), (f) => f, request.deny);
  const page = paginate(files, headLimit, offset);
  return {
    mode: 'files_with_matches',
    numFiles: page.items.length,
    filenames: page.items.map((f) => shownPath(f, request.shownFrom)),
    totalFiles: files.length,
    ...pageInfo(page),
    ...timeoutInfo(timedOut, request),
  };
}

async function searchCount(request: GrepSearchRequest, headLimit: number, offset: number): Promise<GrepOutput> {
  const all: { file: string; count: number }[] = [];
  const outcome = await run(request, '\n', (line) => {
    const nul = line.lastIndexOf('\0');
    if (nul <= 0) return;
    const count = Number(line.slice(nul + 1));
    if (Number.isFinite(count)) all.push({ file: fromRg(request, line.slice(0, nul)), count });
  });
  const timedOut = checkOutcome(outcome, all.length, request);
  all.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const entries = withoutDenied(all, shownUpTo(headLimit, offset), (e) => e.file, request.deny);
  let total = 0;
  for (const e of entries) total += e.count;
  const page = paginate(entries, headLimit, offset);
  return {
    mode: 'count',
    numFiles: entries.length,
    filenames: [],
    content: page.items.map((e) => `${shownPath(e.file, request.shownFrom)}:${e.count}`).join('\n'),
    numMatches: total,
    ...pageInfo(page),
    ...timeoutInfo(timedOut, request),
  };
}

async function searchContent(request: GrepSearchRequest, headLimit: number, offset: number): Promise<GrepOutput> {
  // One line past the page tells us whether there is more; nothing beyond that is read.
  const needed = headLimit === 0 ? Infinity : offset + headLimit + 1;
  const pageEnd = headLimit === 0 ? Infinity : offset + headLimit;
  const lines: string[] = [];
  let seen = 0;
  let lastWasSeparator = true;
  const { deny } = request;
  // Every line read is checked (they are few: the search stops after the page); a file's lines come together, so
  // one check per file.
  const filterPaths = deny.active && !request.targetIsFile;
  // A folder's lines start with the file's path (one file searched: no path); NULs end the fields (grep-args.ts).
  const relative = request.shownFrom !== undefined && !request.targetIsFile;
  const shownLine = (line: string): string => {
    const nul = line.indexOf('\0');
    const text = line.replaceAll('\0', '');
    if (nul <= 0 || request.targetIsFile) return text;
    const file = fromRg(request, line.slice(0, nul));
    return (relative ? shownPath(file, request.shownFrom) : file) + text.slice(nul);
  };
  let lastFile = '';
  let lastDenied = false;
  const outcome = await run(request, '\n', (line) => {
    if (line === '--') {
      // A context-group separator; after a filtered-out file it could double up or lead the page.
      if (lastWasSeparator) return;
      lastWasSeparator = true;
    } else {
      if (filterPaths) {
        const nul = line.indexOf('\0');
        if (nul > 0) {
          const file = fromRg(request, line.slice(0, nul));
          if (file !== lastFile) {
            lastFile = file;
            lastDenied = deny.isDenied(file);
          }
          if (lastDenied) return;
        }
      }
      lastWasSeparator = false;
    }
    if (seen >= offset && seen < pageEnd) lines.push(line.includes('\0') ? shownLine(line) : line);
    seen++;
    if (seen >= needed) return false;
  });
  const timedOut = checkOutcome(outcome, seen, request);
  // A trailing separator says nothing.
  if (!outcome.stopped && lines.length > 0 && lines[lines.length - 1] === '--') {
    lines.pop();
    seen--;
  }
  return {
    mode: 'content',
    numFiles: 0,
    filenames: [],
    content: lines.join('\n'),
    numLines: lines.length,
    ...(outcome.stopped || timedOut ? {} : { totalLines: seen }),
    ...(outcome.stopped ? { appliedLimit: headLimit } : {}),
    ...(offset > 0 ? { appliedOffset: offset } : {}),
    ...timeoutInfo(timedOut, request),
  };
}

/** How many leading entries of an ordered result can be shown for this page. */
function shownUpTo(headLimit: number, offset: number): number {
  return headLimit === 0 ? Infinity : offset + headLimit;
}

function pageInfo(page: { appliedLimit?: number; appliedOffset?: number }) {
  return {
    ...(page.appliedLimit !== undefined ? { appliedLimit: page.appliedLimit } : {}),
    ...(page.appliedOffset !== undefined ? { appliedOffset: page.appliedOffset } : {}),
  };
}

function timeoutInfo(timedOut: boolean, request: GrepSearchRequest) {
  return timedOut ? { timedOut: true, timeoutMs: request.timeoutMs } : {};
}
