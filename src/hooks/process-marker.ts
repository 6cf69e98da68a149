/**
 * Processes that leave their process group on purpose (`setsid cmd &`, `(nohup cmd &)`, daemons that double-fork)
 * escape a group kill. What they cannot leave behind is their environment: every Bash command gets
 * `TOOLGATE_PGROUP=<process token>.<registry token>.<task id>`, every hook command `<process token>.hook.<n>`,
 * inherited across setsid, nohup and forks, and `/proc/<pid>/environ` (the environment a process was started with)
 * names every process that descends from it. It lives in the hooks layer, the lowest that starts processes, so that
 * hooks and the Bash tool share it.
 *
 * Linux only: elsewhere there is no `/proc/<pid>/environ`, the scans find nothing, and containment degrades to process
 * groups (setsid children escape there). A program that clears its environment (`env -i`, `env -u TOOLGATE_PGROUP`)
 * escapes on purpose too: this is hygiene, not a security boundary (the sandbox's PID namespace is that).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from '../tool/crypto.js';

export const PGROUP_ENV = 'TOOLGATE_PGROUP';

/** This Node process's part of every marker: the orphan watchdog ends everything carrying it once we are gone. */
export const PROCESS_MARKER = randomBytes(6).toString('hex');

export const markersSupported = process.platform === 'linux';

/** Pids never to signal: ourselves, and helpers (the watchdog) we started without the marker anyway. */
const spared = new Set<number>([process.pid]);

export function spareProcess(pid: number): void {
  spared.add(pid);
}

/**
 * Live processes (of this user: others' environ cannot be read) whose environment has `TOOLGATE_PGROUP` equal to
 * `marker`, or starting with it when `prefix` is set. One pass over /proc: about 30 µs a process.
 */
export function markedProcesses(marker: string, options: { prefix?: boolean } = {}): number[] {
  const found: number[] = [];
  scan([{ needle: needleOf(marker), prefix: options.prefix === true, found }]);
  return found;
}

interface Query {
  readonly needle: Buffer;
  readonly prefix: boolean;
  readonly found: number[];
}

const needleOf = (marker: string) => Buffer.from(`${PGROUP_ENV}=${marker}`);

/** One pass over /proc answering every query: each environment is read once however many markers are looked for. */
function scan(queries: readonly Query[]): void {
  if (!markersSupported || queries.length === 0) return;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const pid = Number(entry);
    if (spared.has(pid)) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue; // gone, or not ours
    }
    // Cheap first test: no marker variable at all (most processes of the machine).
    if (environ.indexOf(PGROUP_PREFIX) === -1) continue;
    for (const q of queries) if (carries(environ, q.needle, q.prefix)) q.found.push(pid);
  }
}

const PGROUP_PREFIX = Buffer.from(`${PGROUP_ENV}=`);

/** True when one NUL-separated entry of `environ` is `needle` (or starts with it, for a prefix). */
function carries(environ: Buffer, needle: Buffer, prefix: boolean): boolean {
  let at = environ.indexOf(needle);
  while (at !== -1) {
    const startsEntry = at === 0 || environ[at - 1] === 0;
    const end = at + needle.length;
    const endsEntry = end === environ.length || environ[end] === 0;
    if (startsEntry && (prefix || endsEntry)) return true;
    at = environ.indexOf(needle, at + 1);
  }
  return false;
}

function send(pids: readonly number[], signal: NodeJS.Signals): number {
  let n = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
      n++;
    } catch {
      // exited meanwhile
    }
  }
  return n;
}

/** Sends `signal` now to every process carrying the marker (or prefix); returns how many were signalled. */
export function signalMarked(marker: string, signal: NodeJS.Signals, options: { prefix?: boolean } = {}): number {
  return send(markedProcesses(marker, options), signal);
}

// — batched: fifty commands aborted at once cost one pass over /proc, not fifty —

interface Pending extends Query {
  readonly signal: NodeJS.Signals;
  readonly done: (signalled: number) => void;
}

let pending: Pending[] = [];

function signalMarkedSoon(marker: string, signal: NodeJS.Signals, prefix: boolean): Promise<number> {
  return new Promise((done) => {
    pending.push({ needle: needleOf(marker), prefix, found: [], signal, done });
    if (pending.length === 1) setImmediate(flush);
  });
}

function flush(): void {
  const batch = pending;
  pending = [];
  try {
    scan(batch);
  } finally {
    for (const p of batch) p.done(send(p.found, p.signal));
  }
}

/**
 * SIGTERM to every process carrying the marker, SIGKILL after `graceMs` to those still there (a fresh scan: a daemon
 * may have forked meanwhile). Resolves once the SIGKILL step ran; as soon as the first scan finds nothing.
 */
export async function terminateMarked(marker: string, graceMs: number, options: { prefix?: boolean } = {}): Promise<void> {
  const prefix = options.prefix === true;
  if (!markersSupported || (await signalMarkedSoon(marker, 'SIGTERM', prefix)) === 0) return;
  await new Promise((resolve) => setTimeout(resolve, graceMs));
  await signalMarkedSoon(marker, 'SIGKILL', prefix);
}
