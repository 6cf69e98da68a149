/**
 * Process groups: every command is the leader of its own group (spawned detached → setsid), so one signal reaches
 * everything it started — pipelines, subshells, `&` children — except processes that leave the group on purpose
 * (`setsid`, daemons: those are found by their environment marker, src/hooks/process-marker.ts). The module also remembers
 * every group still alive and kills them all if the Node process exits, so a crash or a forgotten `shutdown()` leaves
 * no orphans behind; a death that runs no handler at all (SIGKILL) is the orphan watchdog's (orphan-watchdog.ts).
 */
import { orphanWatchdogPid, unwatchGroup, unwatchGroupsSync, watchGroup } from './orphan-watchdog.js';
import { PROCESS_MARKER, signalMarked } from '../../hooks/process-marker.js';

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Sends `signal` to the whole group; false when no process of the group exists any more. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  // ESRCH (no group) is the usual answer after a command ends, and Node answers it with an exception: without a stack
  // trace to capture it costs a few µs instead of tens in a deep call stack (once per command).
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    // EPERM: the group exists but one member is not ours to signal (a setuid program); count it as alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** True while any process (zombies included: the kernel cannot tell us more cheaply) is in the group. */
export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  watchGroup(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', killAllAtExit);
  }
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
  unwatchGroup(pgid);
}

/**
 * SIGKILLs every group a Bash call or task started that may still be alive, and sends SIGTERM to every process that
 * left its group but carries this process's marker (the orphan watchdog, once we are gone, sends the SIGKILL). Runs on
 * `process.on('exit')`; a program that handles SIGINT/SIGTERM itself should call it (or `TaskRegistry.shutdown()`)
 * before exiting. Returns the number of groups signalled.
 */
export function killAllShellProcessesSync(): number {
  let n = 0;
  for (const pgid of liveGroups) {
    if (signalGroup(pgid, 'SIGKILL')) n++;
  }
  unwatchGroupsSync(liveGroups);
  liveGroups.clear();
  signalMarked(`${PROCESS_MARKER}.`, 'SIGTERM', { prefix: true });
  return n;
}

/**
 * The exit hook: the groups at once; the processes that left them (found by a pass over /proc, several ms on a busy
 * machine) only when no orphan watchdog runs — one that does gets end-of-file as we exit and ends every process
 * carrying our marker itself (SIGTERM, then SIGKILL after its grace), without the exit waiting for the scan.
 */
function killAllAtExit(): void {
  if (orphanWatchdogPid() === undefined) {
    killAllShellProcessesSync();
    return;
  }
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  unwatchGroupsSync(liveGroups);
  liveGroups.clear();
}

/** SIGTERM to the group, then SIGKILL after `graceMs` to whatever is left. Resolves once the SIGKILL step ran. */
export function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) {
    untrackGroup(pgid);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    setTimeout(() => {
      signalGroup(pgid, 'SIGKILL');
      untrackGroup(pgid);
      resolve();
    }, graceMs);
  });
}
