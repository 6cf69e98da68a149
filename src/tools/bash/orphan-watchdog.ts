/**
 * The orphan watchdog: what ends toolgate's process groups when toolgate itself dies without running a handler
 * (SIGKILL, the OOM killer, a crash in native code). One small `bash` per Node process, started at the first tracked
 * group, in its own session (no terminal signal reaches it), reading lines from a pipe whose other end only we hold:
 * `+ PGID` when a group starts, `- PGID` when it ends. End of file on that pipe means we are gone, however we went:
 * it sends SIGTERM to every group still listed and to every process whose environment carries this process's marker
 * (`setsid` children and their daemons, see src/hooks/process-marker.ts), waits a grace period, sends SIGKILL, and exits.
 *
 * It never keeps the event loop alive (child and pipe are unref'd). After a normal exit it still gets EOF: the groups
 * are gone by then (the exit hook killed them and told it so), and what it ends is only what carries our marker — the
 * daemons our commands detached, which must not outlive the session either. Under the sandbox, bwrap's
 * `--die-with-parent` and its PID namespace end the tree as well (see orphan-watchdog.test.ts).
 *
 * `TOOLGATE_ORPHAN_WATCHDOG=0` turns it off (the exit hook still covers every exit that runs handlers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { PGROUP_ENV, PROCESS_MARKER, spareProcess } from '../../hooks/process-marker.js';
import { withShellLevel } from '../../hooks/shell-level.js';

/** Seconds between the SIGTERM and the SIGKILL once the owner is gone. */
const GRACE_SECONDS = '1';

// $1 owner pid (for `ps`), $2 process marker (commands carry `<marker>.…`, the sandbox runtime's bridges
// `<marker>-sandbox-runtime`), $3 grace. A sparse array indexed by pgid (bash 3.2, macOS's, has no associative ones).
const SCRIPT = `
trap '' INT HUP PIPE
prefix="${PGROUP_ENV}=$2"
groups=()
while read -r op pg; do
  case $pg in ''|0|1|*[!0-9]*) continue ;; esac
  case $op in
    +) groups[$pg]=1 ;;
    -) unset "groups[$pg]" ;;
  esac
done
signal_all() {
  local n=0 pg f pid
  for pg in "\${!groups[@]}"; do kill -s "$1" -- "-$pg" 2>/dev/null && n=$((n + 1)); done
  for f in $(grep -l -a -F -e "$prefix" /proc/[0-9]*/environ 2>/dev/null); do
    pid=\${f#/proc/}; pid=\${pid%/environ}
    [ "$pid" = "$$" ] && continue
    kill -s "$1" "$pid" 2>/dev/null && n=$((n + 1))
  done
  [ "$n" -gt 0 ]
}
signal_all TERM || exit 0
sleep "$3"
signal_all KILL
exit 0
`;

interface Running {
  readonly child: ChildProcess;
  readonly stdin: Socket;
}

let running: Running | undefined;
let disabled = false;
const groups = new Set<number>();

export function orphanWatchdogEnabled(): boolean {
  return !disabled && process.env.TOOLGATE_ORPHAN_WATCHDOG !== '0' && process.platform !== 'win32';
}

/** The watchdog's pid while it runs (tests, diagnostics). */
export function orphanWatchdogPid(): number | undefined {
  return running?.child.pid;
}

function start(): Running | undefined {
  if (running !== undefined || !orphanWatchdogEnabled()) return running;
  // Without our marker: a scan for it (ours, or an outer toolgate's that runs us) must not find the watchdog.
  // Nor ~/.bashrc: its stdin is a socket, and its bash must not take itself for an ssh session (shell-level.ts).
  const env = withShellLevel({ ...process.env });
  delete env[PGROUP_ENV];
  let child: ChildProcess;
  try {
    child = spawn('bash', ['-c', SCRIPT, 'toolgate-watchdog', String(process.pid), PROCESS_MARKER, GRACE_SECONDS], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      cwd: '/',
      env,
    });
  } catch {
    disabled = true;
    return undefined;
  }
  const stdin = child.stdin as Socket | null;
  if (child.pid === undefined || stdin === null) {
    // spawn reports a missing bash through 'error'; there is nothing to watch with.
    child.once('error', () => {});
    disabled = true;
    return undefined;
  }
  spareProcess(child.pid);
  stdin.on('error', () => {});
  child.once('error', () => {});
  child.once('exit', () => {
    // Killed by someone: the next group starts a new one, told about every group still alive.
    if (running?.child === child) running = undefined;
  });
  child.unref();
  stdin.unref();
  running = { child, stdin };
  if (groups.size > 0) stdin.write([...groups].map((pg) => `+ ${pg}\n`).join(''));
  return running;
}

/**
 * Groups started but not yet told to the watchdog, and groups ended whose `-` line is not written yet: both go in one
 * write a moment later (FLUSH_MS). A group that starts and ends within that moment (`echo hi`: a few ms) is never
 * written at all — two pipe writes and two wake-ups of the watchdog fewer per call. Meanwhile a death of toolgate is
 * still covered: the watchdog's marker sweep finds the group's processes by their environment.
 */
const pendingAdds = new Set<number>();
const pendingRemoves = new Set<number>();
let flushTimer: NodeJS.Timeout | undefined;
const FLUSH_MS = 50;

function scheduleFlush(): void {
  if (flushTimer !== undefined) return;
  flushTimer = setTimeout(flush, FLUSH_MS);
  flushTimer.unref();
}

function flush(): void {
  flushTimer = undefined;
  let lines = '';
  for (const pg of pendingAdds) lines += `+ ${pg}\n`;
  for (const pg of pendingRemoves) lines += `- ${pg}\n`;
  pendingAdds.clear();
  pendingRemoves.clear();
  if (lines !== '' && running !== undefined) {
    running.stdin.write(lines);
    writes++;
  }
}

let writes = 0;

/** How many `+`/`-` writes went to the watchdog (tests: short-lived groups cost none). */
export function orphanWatchdogWrites(): number {
  return writes;
}

export function watchGroup(pgid: number): void {
  groups.add(pgid);
  // A watchdog started now is told about every group, this one included.
  if (running === undefined) {
    start();
    return;
  }
  pendingRemoves.delete(pgid);
  pendingAdds.add(pgid);
  scheduleFlush();
}

export function unwatchGroup(pgid: number): void {
  if (!groups.delete(pgid)) return;
  // Never told: nothing to take back.
  if (pendingAdds.delete(pgid)) return;
  if (running === undefined) return;
  pendingRemoves.add(pgid);
  scheduleFlush();
}

/**
 * For the exit hook, which cannot wait for an asynchronous write: the groups it just killed are struck off at once,
 * so the watchdog does not signal their (possibly reused) ids after we are gone.
 */
export function unwatchGroupsSync(pgids: Iterable<number>): void {
  // Only what the watchdog was told (or is about to be told: the pending ends) needs striking off.
  const told = [...pgids].filter((pg) => groups.delete(pg) && !pendingAdds.delete(pg));
  const lines = [...new Set([...told, ...pendingRemoves])].map((pg) => `- ${pg}\n`).join('');
  pendingRemoves.clear();
  let adds = '';
  for (const pg of pendingAdds) adds += `+ ${pg}\n`;
  pendingAdds.clear();
  const fd = (running?.stdin as unknown as { _handle?: { fd?: number } } | undefined)?._handle?.fd;
  if (lines + adds === '' || fd === undefined || fd < 0) return;
  try {
    writeSync(fd, adds + lines);
  } catch {
    // EAGAIN on a full pipe: the watchdog then signals ids of groups that are gone, which is harmless in practice
  }
}
