/**
 * Runs one command hook as a child process: its own process group (so a timeout or an abort kills the whole tree,
 * not just the shell), no controlling terminal, JSON on stdin, bounded stdout/stderr capture. Nothing it starts
 * outlives it: when the hook exits, times out or is aborted, what is left of its group is killed, and so is every
 * process that left the group (`setsid`, `nohup … &`, a daemon's double fork) but carries the hook's environment
 * marker (process-marker.ts).
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { addSharedAbortListener } from '../tool/shared-abort-listener.js';
import { markersSupported, PGROUP_ENV, PROCESS_MARKER, signalMarked, terminateMarked } from './process-marker.js';
import type { CommandHookHandler } from './types.js';

/** What happened to one hook, before its output is interpreted. */
export type RawHookRun =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; truncated: boolean }
  | { kind: 'json'; output: unknown }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'aborted' }
  | { kind: 'error'; message: string };

export interface ProcessRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Enough for any sane JSON answer (an `updatedToolOutput` can be large); beyond it the output is cut and flagged. */
const MAX_CAPTURE_CHARS = 10 * 1024 * 1024;
/** After the hook exits, how long to wait for pipes held open by a background grandchild before giving up on them. */
const PIPE_GRACE_MS = 200;

const liveGroups = new Set<number>();
let exitHandlerInstalled = false;

/** Told of every hook process group as it starts and ends (the orphan watchdog of the tools layer, wired above). */
export interface ProcessGroupObserver {
  started(pgid: number): void;
  ended(pgid: number): void;
}

let observer: ProcessGroupObserver | undefined;

export function observeHookProcessGroups(next: ProcessGroupObserver | undefined): void {
  observer = next;
}

/** Every hook command's marker starts with this; the orphan watchdog ends them too (they carry PROCESS_MARKER). */
const HOOK_MARKER_PREFIX = `${PROCESS_MARKER}.hook.`;
let hookSeq = 0;
/** Markers of hooks whose leftovers may still be running (ended hooks stay until their SIGKILL pass ran). */
const liveMarkers = new Set<string>();
/** A process that escaped a SIGTERM may still fork; the SIGKILL pass follows this much later with a fresh scan. */
const MARKED_KILL_GRACE_MS = 200;

/** Hook process groups outlive us otherwise (they are detached): kill whatever is still running when we exit. */
function trackGroup(pid: number): void {
  liveGroups.add(pid);
  observer?.started(pid);
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) {
      killGroup(group);
      observer?.ended(group);
    }
    if (liveMarkers.size > 0) signalMarked(HOOK_MARKER_PREFIX, 'SIGKILL', { prefix: true });
  });
}

/** Ends what a hook left behind that left its group: SIGTERM now, SIGKILL to whatever is still there shortly after. */
function endMarked(marker: string): void {
  if (!markersSupported) return;
  void terminateMarked(marker, MARKED_KILL_GRACE_MS).finally(() => liveMarkers.delete(marker));
}

function untrackGroup(pid: number): void {
  if (liveGroups.delete(pid)) observer?.ended(pid);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function killGroupOnly(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // no member left
  }
}

export async function runCommandHook(handler: CommandHookHandler, opts: ProcessRunOptions): Promise<RawHookRun> {
  const projectDir = opts.env.CLAUDE_PROJECT_DIR ?? '';
  let file: string;
  let args: string[];
  if (handler.args !== undefined) {
    // Exec form: no shell expands `${CLAUDE_PROJECT_DIR}`, so do it here.
    file = expandProjectDir(handler.command, projectDir);
    args = handler.args.map((a) => expandProjectDir(a, projectDir));
  } else if (handler.shell === 'powershell') {
    file = 'pwsh';
    args = ['-NoProfile', '-NonInteractive', '-Command', handler.command];
  } else {
    file = 'bash';
    args = ['-c', handler.command];
  }
  const first = await spawnHook(file, args, opts);
  if (first.kind !== 'error' || !first.message.includes('ENOENT')) return first;
  // ENOENT is ambiguous: a missing cwd or a missing program. Name the right one.
  const cwdOk = await stat(opts.cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!cwdOk) return { kind: 'error', message: `working directory does not exist: ${opts.cwd}` };
  if (file === 'bash') return spawnHook('sh', args, opts);
  return { kind: 'error', message: `cannot run ${JSON.stringify(file)}: not found` };
}

function expandProjectDir(text: string, projectDir: string): string {
  return text.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, projectDir);
}

function spawnHook(file: string, args: string[], opts: ProcessRunOptions): Promise<RawHookRun> {
  return new Promise((resolve) => {
    if (opts.signal.aborted) {
      resolve({ kind: 'aborted' });
      return;
    }
    const marker = `${HOOK_MARKER_PREFIX}${++hookSeq}`;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, { cwd: opts.cwd, env: { ...opts.env, [PGROUP_ENV]: marker }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ kind: 'error', message: errorText(err) });
      return;
    }
    const pid = child.pid;
    if (pid !== undefined) {
      liveMarkers.add(marker);
      trackGroup(pid);
    }
    let stdout = '';
    let stderr = '';
    let truncated = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let unlinkAbort: () => void = () => {};

    const finish = (result: RawHookRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      unlinkAbort();
      if (pid !== undefined) untrackGroup(pid);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve(result);
    };
    const finishExit = () => {
      if (exit) finish({ kind: 'exited', code: exit.code, signal: exit.signal, stdout, stderr, truncated });
    };
    let stopped = false;
    const stopAll = (leaderGone = false) => {
      if (stopped || pid === undefined) return;
      stopped = true;
      // After the leader's exit its pid may be reused: only the group (which keeps the id while it has members).
      if (leaderGone) killGroupOnly(pid);
      else killGroup(pid);
      endMarked(marker);
    };
    const onAbort = () => {
      stopAll();
      finish({ kind: 'aborted' });
    };
    const timer = setTimeout(() => {
      stopAll();
      finish({ kind: 'timeout', timeoutMs: opts.timeoutMs });
    }, opts.timeoutMs);
    // Several hooks of one call share its signal: one shared listener on it (shared-abort-listener.ts).
    unlinkAbort = addSharedAbortListener(opts.signal, onAbort);

    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      if (stdout.length + chunk.length > MAX_CAPTURE_CHARS) {
        truncated = true;
        stdout += chunk.slice(0, Math.max(0, MAX_CAPTURE_CHARS - stdout.length));
      } else stdout += chunk;
    });
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length + chunk.length > MAX_CAPTURE_CHARS) {
        truncated = true;
        stderr += chunk.slice(0, Math.max(0, MAX_CAPTURE_CHARS - stderr.length));
      } else stderr += chunk;
    });
    child.on('error', (err) => finish({ kind: 'error', message: errorText(err) }));
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // The hook is over: `cmd &` children left in its group and setsid/nohup ones that carry its marker end with it.
      stopAll(true);
      if (pid !== undefined) untrackGroup(pid);
      graceTimer = setTimeout(finishExit, PIPE_GRACE_MS);
    });
    child.on('close', finishExit);
    // A hook that never reads stdin may exit before we finish writing: EPIPE is expected, not an error.
    child.stdin?.on('error', () => {});
    child.stdin?.end(opts.stdin);
  });
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
