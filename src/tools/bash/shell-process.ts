/**
 * One command, one process: a fresh `bash` (inside bubblewrap when sandboxed) leading its own process group, with
 * stdout and stderr both pointing at the same output file — the kernel keeps their order and Node never holds the
 * output in memory. A poll watches the file's size for progress and for the size cap.
 *
 * The object outlives the tool call when the command is sent to the background: the task registry then holds it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import { groupAlive, signalGroup, terminateGroup, trackGroup, untrackGroup } from './process-group.js';
import { PGROUP_ENV, PROCESS_MARKER, signalMarked, terminateMarked } from '../../hooks/process-marker.js';
import { MAX_STATE_FILE_BYTES, parseShellStateRecords, type ShellCapture } from './session-env.js';
import { buildShellScript, type ShellScriptOptions } from './shell-script.js';
import { launch, launcherReady } from './launcher.js';
import { bashBinary, forgetBashBinary } from './shell-binary.js';

/** Why toolgate ended a process (absent: it ended on its own or by someone else's signal). */
export type KillReason = 'abort' | 'timeout' | 'stop' | 'output-limit' | 'lifetime' | 'shutdown';

export interface ShellExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly killReason?: KillReason;
  /** `pwd -P` at the end, when the shell could record it. */
  readonly finalCwd?: string;
  /** The exported variables before and after the command and its functions, when asked for and complete. */
  readonly capture?: ShellCapture;
  /** The state records were written twice (something besides the prologue wrote there): none of them was used. */
  readonly malformed?: boolean;
  /** Set when the process could not be started at all. */
  readonly spawnError?: string;
  /** Set when the command ran but its exit status was lost (the command launcher died): code and signal are null. */
  readonly lost?: string;
  readonly outputBytes: number;
  readonly durationMs: number;
}

export interface SpawnShellOptions {
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Created (truncated) by the spawn; both output streams go to it. */
  readonly outputFile: string;
  /**
   * The PATH bash itself is found on (default: `env`'s). The Bash tool gives the runtime's own, never one an earlier
   * command left: a project folder put first on PATH must not choose the shell every later command runs in.
   */
  readonly shellPath?: string;
  /** The prologue's options (env file, state capture, imported functions); the sandbox's launch carries its own. */
  readonly script?: ShellScriptOptions;
  /** Run this instead of `bash -c <script>` (the sandbox's wrapper around the same script). */
  readonly launch?: { readonly file: string; readonly args: readonly string[]; readonly release?: () => void };
  /**
   * Who owns the processes (a task registry's token): the command's environment marker is
   * `<process marker>.<scope>.<id>`, so the owner can end, at its shutdown, what its commands detached.
   */
  readonly markerScope?: string;
  readonly killGraceMs: number;
  readonly maxOutputBytes: number;
  readonly pollIntervalMs: number;
}

export type OutputListener = (sizeBytes: number) => void;

export class ShellProcess {
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly outputFile: string;
  readonly startedAt = Date.now();
  readonly exited: Promise<ShellExit>;
  /** Resolves once the command runs (its pid is known) or could not start: await it before reading `pid`. */
  readonly started: Promise<void>;
  readonly sandboxed: boolean;
  /** `TOOLGATE_PGROUP` of this command and of everything it starts, `setsid` or not (src/hooks/process-marker.ts). */
  readonly marker: string;
  /** Node's child, or the launcher's handle on the command; either keeps Node's event loop alive while ref'd. */
  #child: { ref(): void; unref(): void } | undefined;
  #pid: number | undefined;
  #running = true;
  #killReason: KillReason | undefined;
  /** A kill asked for before the pid was known (the launcher's answer in flight): applied at the start. */
  #pendingKill: 'term' | 'now' | undefined;
  #maxOutputBytes: number;
  #pollIntervalMs: number;
  #finish!: (code: number | null, signal: NodeJS.Signals | null, spawnError?: string, lost?: string) => void;
  #markStarted!: () => void;
  #listeners = new Set<OutputListener>();
  #lastSize = 0;
  #poll: NodeJS.Timeout | undefined;
  #graceMs: number;

  constructor(options: SpawnShellOptions) {
    this.id = options.id;
    this.command = options.command;
    this.cwd = options.cwd;
    this.outputFile = options.outputFile;
    this.sandboxed = options.launch !== undefined;
    this.#graceMs = options.killGraceMs;
    this.#maxOutputBytes = options.maxOutputBytes;
    this.#pollIntervalMs = options.pollIntervalMs;
    this.marker = `${PROCESS_MARKER}.${options.markerScope ?? 'none'}.${options.id}`;
    const stateFile = `${options.outputFile}.state`;
    const shellSearch = { PATH: options.shellPath ?? options.env.PATH };
    const [file, args] = options.launch
      ? [options.launch.file, [...options.launch.args]]
      : [bashBinary(shellSearch), ['-c', buildShellScript(options.command, options.script)]];
    const release = options.launch?.release;

    const env = { ...options.env, [PGROUP_ENV]: this.marker };

    this.started = new Promise<void>((resolve) => (this.#markStarted = resolve));
    this.exited = new Promise<ShellExit>((resolve) => {
      this.#finish = (code, signal, spawnError, lost) => {
        if (!this.#running) return;
        this.#running = false;
        release?.();
        if (spawnError !== undefined && !this.sandboxed) forgetBashBinary(shellSearch);
        if (this.#poll) clearInterval(this.#poll);
        const pid = this.#pid;
        // The leader is gone; anything it left in the group (`cmd &`) must not outlive the call.
        if (pid !== undefined) {
          if (groupAlive(pid)) void terminateGroup(pid, this.#graceMs);
          else untrackGroup(pid);
        }
        const outputBytes = this.outputSize();
        this.#emit(outputBytes);
        const state = readStateFile(stateFile);
        this.#markStarted();
        resolve({
          code,
          signal,
          killReason: this.#killReason,
          finalCwd: state.cwd,
          capture: state.capture,
          malformed: state.malformed,
          spawnError,
          lost,
          outputBytes,
          durationMs: Date.now() - this.startedAt,
        });
      };
    });

    const spawnDirect = () => {
      const outFd = openSync(options.outputFile, 'w', 0o600);
      let stateFd: number | undefined;
      let child: ChildProcess;
      try {
        stateFd = openSync(stateFile, 'w', 0o600);
        child = spawn(file, args, { cwd: options.cwd, env, stdio: ['ignore', outFd, outFd, stateFd], detached: true });
      } finally {
        closeSync(outFd);
        if (stateFd !== undefined) closeSync(stateFd);
      }
      this.#child = child;
      child.once('exit', (code, signal) => this.#finish(code, signal));
      child.once('error', (error) => this.#finish(null, null, error.message));
      if (child.pid !== undefined) this.#onStart(child.pid);
    };

    // Unsandboxed commands go through the launcher once it is ready (launcher.ts): a fork of a small Perl rather than
    // of this whole process. The sandbox's bwrap stays a child of toolgate itself (its --die-with-parent watches its
    // parent). Node's spawn otherwise, and whenever the launcher says the command did not start.
    if (options.launch === undefined && launcherReady()) {
      // The files exist and are empty before anything runs, and a missing folder throws here, as with the spawn.
      closeSync(openSync(options.outputFile, 'w', 0o600));
      closeSync(openSync(stateFile, 'w', 0o600));
      this.#child = launch(
        { file, args, cwd: options.cwd, env, outputFile: options.outputFile, stateFile },
        {
          onStart: (pid) => this.#onStart(pid),
          onNotStarted: () => {
            try {
              spawnDirect();
            } catch (error) {
              this.#finish(null, null, (error as Error).message);
            }
          },
          onLost: (why) => this.#finish(null, null, why),
          onExit: (code, signal, lost) => this.#finish(code, signal, undefined, lost),
        },
      );
    }
    if (this.#child === undefined) spawnDirect();
  }

  #onStart(pid: number): void {
    if (!this.#running) return;
    this.#pid = pid;
    trackGroup(pid);
    this.#poll = setInterval(() => this.#check(this.#maxOutputBytes), this.#pollIntervalMs);
    this.#poll.unref();
    if (this.#pendingKill === 'now') this.killNow(this.#killReason!);
    else if (this.#pendingKill === 'term') void this.kill(this.#killReason!);
    this.#markStarted();
  }

  get pid(): number | undefined {
    return this.#pid;
  }

  get running(): boolean {
    return this.#running;
  }

  get killReason(): KillReason | undefined {
    return this.#killReason;
  }

  outputSize(): number {
    try {
      return statSync(this.outputFile).size;
    } catch {
      return 0;
    }
  }

  /** Called with the file size whenever it grew (at the poll interval) and once at exit. */
  onOutput(listener: OutputListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * SIGTERM to the group and to every process that left it but carries the command's marker (`setsid cmd &`), SIGKILL
   * after the grace period; resolves with the exit. The first reason given sticks.
   */
  kill(reason: KillReason): Promise<ShellExit> {
    if (this.#running && this.#pid === undefined) {
      this.#killReason ??= reason;
      this.#pendingKill ??= 'term';
      this.#child?.ref();
    } else if (this.#running && this.#pid !== undefined) {
      this.#killReason ??= reason;
      // A background task's child is unref'd; whoever awaits its end now must keep the process alive until the exit
      // event arrives (when the group is already gone no grace timer holds the loop, and Node could leave first:
      // exit code 13, "unsettled top-level await", seen once under load in `exec` killed by SIGTERM).
      this.#child?.ref();
      void terminateGroup(this.#pid, this.#graceMs);
      void terminateMarked(this.marker, this.#graceMs);
    }
    return this.exited;
  }

  /** Lets the Node process exit while this runs (background tasks); the exit hook still kills the group. */
  detachFromEventLoop(): void {
    this.#child?.unref();
  }

  /** Immediate SIGKILL to the group (shutdown paths that cannot wait). */
  killNow(reason: KillReason): void {
    if (this.#running && this.#pid === undefined) {
      this.#killReason ??= reason;
      this.#pendingKill = 'now';
    } else if (this.#running && this.#pid !== undefined) {
      this.#killReason ??= reason;
      signalGroup(this.#pid, 'SIGKILL');
      signalMarked(this.marker, 'SIGKILL');
    }
  }

  #check(maxOutputBytes: number): void {
    const size = this.outputSize();
    if (size > maxOutputBytes) void this.kill('output-limit');
    this.#emit(size);
  }

  #emit(size: number): void {
    if (size === this.#lastSize) return;
    this.#lastSize = size;
    for (const listener of this.#listeners) {
      try {
        listener(size);
      } catch {
        // A progress consumer's failure must not kill the poll (it runs in a timer: a throw would crash the process).
      }
    }
  }
}

/** The state the shell wrote on exit, and the file removed: one open, its size from the descriptor (no stat by path). */
function readStateFile(file: string): ReturnType<typeof parseShellStateRecords> {
  try {
    const fd = openSync(file, 'r');
    let text = '';
    try {
      const size = fstatSync(fd).size;
      if (size <= MAX_STATE_FILE_BYTES) {
        const bytes = Buffer.allocUnsafe(size);
        let length = 0;
        while (length < size) {
          const read = readSync(fd, bytes, length, size - length, length);
          if (read === 0) break;
          length += read;
        }
        text = bytes.toString('latin1', 0, length);
      }
    } finally {
      closeSync(fd);
    }
    unlinkSync(file);
    return parseShellStateRecords(text);
  } catch {
    return {};
  }
}

export function spawnShell(options: SpawnShellOptions): ShellProcess {
  return new ShellProcess(options);
}
