/**
 * A folder search bound below its root (docs/security.md §2). rg walks by path: a file or folder below the bound root
 * swapped for a link while rg walks is opened by name and followed, and what it printed cannot be judged afterwards
 * (the name says something else by then). So rg never opens a file by name here:
 *   1. `rg --files` lists what the search would read (type, globs, ignore files, deny globs: rg's own rules) — names
 *      only, never shown: a folder exchanged for a link mid-walk can put a denied name in the list, nothing more;
 *   2. each listed file is opened from the bound root one component at a time, never following a link (a folder of
 *      the path `O_DIRECTORY|O_NOFOLLOW` in the one opened before it, the file `O_NOFOLLOW`), and the opened object
 *      judged by what it is — its real path from its descriptor and its identity (a hard link) against the deny rules
 *      (`deniedOpenedObject`). A name that is a link now, or gone, or denied, is dropped without a word;
 *   3. rg searches the opened descriptors (`/proc/self/fd/N` in rg, in batches), and what it prints is mapped back to
 *      the listed names. rg's messages about paths are not passed on (they can name what step 1 saw).
 */
import fs from 'node:fs';
import { deniedOpenedObject } from '../../permissions/paths.js';
import type { ToolPermissionContext } from '../../tool/permission-types.js';
import { runRipgrep, type RipgrepOutcome } from '../shared/ripgrep.js';

const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const O_NOCTTY = fs.constants.O_NOCTTY ?? 0;
/** Files rg gets per run: its fds 3 … 3+BATCH-1. */
const BATCH = 256;

export interface BoundSearch {
  /** The bound root as a path (`/proc/self/fd/N`). */
  readonly root: string;
  readonly ctx: ToolPermissionContext;
  /** rg's flags for the listing (selection: type, globs, exclusions; the order). */
  readonly listArgs: readonly string[];
  /** rg's flags for searching the opened files (how to search and print, the pattern). */
  readonly searchArgs: readonly string[];
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly separator: '\0' | '\n';
  /** Each record, its path as rg would print it walking the root (`./rel`); false stops. */
  readonly onRecord: (record: string) => boolean | void;
}

/** Opens names below a bound folder without following any link, keeping the folders it opened. */
class NoFollowTree {
  readonly #dirs = new Map<string, string>();
  readonly #fds: number[] = [];

  constructor(root: string) {
    this.#dirs.set('', root);
  }

  #dir(rel: string): string | undefined {
    const known = this.#dirs.get(rel);
    if (known !== undefined) return known;
    const cut = rel.lastIndexOf('/');
    const parent = this.#dir(cut === -1 ? '' : rel.slice(0, cut));
    if (parent === undefined) return undefined;
    let fd: number;
    try {
      fd = fs.openSync(`${parent}/${rel.slice(cut + 1)}`, fs.constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch {
      return undefined;
    }
    this.#fds.push(fd);
    const at = `/proc/self/fd/${fd}`;
    this.#dirs.set(rel, at);
    return at;
  }

  /** The regular file `rel` opened (no link on the way) and not denied; undefined otherwise. */
  openFile(rel: string, ctx: ToolPermissionContext): number | undefined {
    const cut = rel.lastIndexOf('/');
    const dir = this.#dir(cut === -1 ? '' : rel.slice(0, cut));
    if (dir === undefined) return undefined;
    let fd: number;
    try {
      fd = fs.openSync(`${dir}/${rel.slice(cut + 1)}`, fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    } catch {
      return undefined;
    }
    try {
      const st = fs.fstatSync(fd);
      if (st.isFile() && deniedOpenedObject(fs.readlinkSync(`/proc/self/fd/${fd}`), st, 'read', ctx) === undefined) return fd;
    } catch {
      // gone or unreadable: not searched
    }
    fs.closeSync(fd);
    return undefined;
  }

  close(): void {
    for (const fd of this.#fds.splice(0)) fs.closeSync(fd);
  }
}

/** rg's messages without the lines about a path (they could name what the listing saw): a count instead. */
export function scrubStderr(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  const kept = lines.filter((l) => !/^rg: (?:\.\/|\/)/.test(l));
  const dropped = lines.length - kept.length;
  return [...kept, ...(dropped > 0 ? [`(${dropped} file${dropped === 1 ? '' : 's'} could not be read)`] : [])].join('\n');
}

const FD_PATH = /^\/proc\/self\/fd\/(\d+)/;

/** Runs a bound folder search (see above); the outcome as one rg run's. */
export async function runBoundSearch(search: BoundSearch, what: string): Promise<RipgrepOutcome> {
  const started = Date.now();
  const left = () => Math.max(1, search.timeoutMs - (Date.now() - started));
  const listed: string[] = [];
  const listing = await runRipgrep(
    { args: [...search.listArgs, '--', '.'], cwd: search.root, signal: search.signal, timeoutMs: left(), separator: '\0', onRecord: (r) => void (r !== '' && listed.push(r.startsWith('./') ? r.slice(2) : r)) },
    what,
  );
  if (listing.timedOut || (listing.exitCode !== 0 && listing.exitCode !== 1 && listed.length === 0)) {
    return { ...listing, stderr: scrubStderr(listing.stderr), records: 0 };
  }
  const tree = new NoFollowTree(search.root);
  let records = 0;
  let matched = false;
  let stderr = scrubStderr(listing.stderr);
  let stopped = false;
  let halted = false;
  let timedOut = false;
  let failed: number | null | undefined;
  try {
    for (let i = 0; i < listed.length && !stopped && !halted && !timedOut; ) {
      const fds: number[] = [];
      const names: string[] = [];
      for (; i < listed.length && fds.length < BATCH; i++) {
        const fd = tree.openFile(listed[i]!, search.ctx);
        if (fd === undefined) continue;
        fds.push(fd);
        names.push(listed[i]!);
      }
      if (fds.length === 0) continue;
      try {
        const outcome = await runRipgrep(
          {
            args: [...search.searchArgs, '--', ...fds.map((_, k) => `/proc/self/fd/${3 + k}`)],
            cwd: '/',
            signal: search.signal,
            timeoutMs: left(),
            separator: search.separator,
            inheritFds: fds,
            onRecord: (record) => {
              const m = FD_PATH.exec(record);
              const name = m ? names[Number(m[1]) - 3] : undefined;
              // A binary file named explicitly gets a notice instead of lines; a walk would have skipped it.
              if (m && (name === undefined || record.startsWith(': binary file matches', m[0].length))) return;
              records++;
              return search.onRecord(m ? `./${name}${record.slice(m[0].length)}` : record);
            },
          },
          what,
        );
        stopped = outcome.stopped;
        timedOut = outcome.timedOut;
        const more = scrubStderr(outcome.stderr);
        if (outcome.exitCode === 0) matched = true;
        // Exit 2 that is not only about files (a pattern rg rejects) is the search's failure, as in one run.
        else if (outcome.exitCode !== 1 && (outcome.exitCode !== 2 || /^(?!\(\d+ files? could not be read\))./m.test(more))) {
          failed = outcome.exitCode;
          halted = true;
        }
        if (more !== '') stderr = stderr === '' ? more : `${stderr}\n${more}`;
      } finally {
        for (const fd of fds) fs.closeSync(fd);
      }
    }
  } finally {
    tree.close();
  }
  const exitCode = failed !== undefined ? failed : matched || records > 0 ? 0 : 1;
  return { exitCode, stderr, stopped, timedOut, records };
}
