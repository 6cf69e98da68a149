/**
 * Processes that leave their process group on purpose (`setsid cmd &`, `(nohup cmd &)`, daemons that double-fork)
 * escape a group kill. What they cannot leave behind is their environment: every command gets
 * `TOOLGATE_PGROUP=<process token>.<registry token>.<task id>`, inherited across setsid, nohup and forks, and
 * `/proc/<pid>/environ` (the environment a process was started with) names every process that descends from it.
 *
 * Linux only: elsewhere there is no `/proc/<pid>/environ`, the scans find nothing, and containment degrades to process
 * groups (setsid children escape there). A program that clears its environment (`env -i`, `env -u TOOLGATE_PGROUP`)
 * escapes on purpose too: this is hygiene, not a security boundary (the sandbox's PID namespace is that).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

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
 * `marker`, or starting with it when `prefix` is set. One pass over /proc; a few milliseconds for hundreds of
 * processes.
 */
export function markedProcesses(marker: string, options: { prefix?: boolean } = {}): number[] {
  if (!markersSupported) return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = Buffer.from(`${PGROUP_ENV}=${marker}`);
  const found: number[] = [];
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
    if (carries(environ, needle, options.prefix === true)) found.push(pid);
  }
  return found;
}

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

/** Sends `signal` to every process carrying the marker (or prefix); returns how many were signalled. */
export function signalMarked(marker: string, signal: NodeJS.Signals, options: { prefix?: boolean } = {}): number {
  let n = 0;
  for (const pid of markedProcesses(marker, options)) {
    try {
      process.kill(pid, signal);
      n++;
    } catch {
      // exited meanwhile
    }
  }
  return n;
}

/**
 * SIGTERM to every process carrying the marker, SIGKILL after `graceMs` to those still there (a fresh scan: a daemon
 * may have forked meanwhile). Resolves once the SIGKILL step ran; at once when nothing carried it.
 */
export function terminateMarked(marker: string, graceMs: number, options: { prefix?: boolean } = {}): Promise<void> {
  if (signalMarked(marker, 'SIGTERM', options) === 0) return Promise.resolve();
  return new Promise((resolve) => {
    setTimeout(() => {
      signalMarked(marker, 'SIGKILL', options);
      resolve();
    }, graceMs);
  });
}
