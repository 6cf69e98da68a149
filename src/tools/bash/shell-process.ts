/**
 * One command, one process: a fresh `bash` (inside bubblewrap when sandboxed) leading its own process group, with
 * stdout and stderr both pointing at the same output file — the kernel keeps their order and Node never holds the
 * output in memory. A poll watches the file's size for progress and for the size cap.
 *
 * The object outlives the tool call when the command is sent to the background: the task registry then holds it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { groupAlive, signalGroup, terminateGroup, trackGroup, untrackGroup } from './process-group.js';
import { PGROUP_ENV, PROCESS_MARKER, signalMarked, terminateMarked } from '../../hooks/process-marker.js';
import { MAX_STATE_FILE_BYTES, parseShellStateRecords, type ShellCapture } from './session-env.js';
import { buildShellScript, type ShellScriptOptions } from './shell-script.js';

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
  /** Set when the process could not be started at all. */
  readonly spawnError?: string;
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
  readonly sandboxed: boolean;
  /** `TOOLGATE_PGROUP` of this command and of everything it starts, `setsid` or not (src/hooks/process-marker.ts). */
  readonly marker: string;
  #child: ChildProcess;
  #pid: number | undefined;
  #running = true;
  #killReason: KillReason | undefined;
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
    this.marker = `${PROCESS_MARKER}.${options.markerScope ?? 'none'}.${options.id}`;
    const stateFile = `${options.outputFile}.state`;
    const [file, args] = options.launch
      ? [options.launch.file, [...options.launch.args]]
      : ['bash', ['-c', buildShellScript(options.command, options.script)]];
    const release = options.launch?.release;

    const outFd = openSync(options.outputFile, 'w', 0o600);
    let stateFd: number | undefined;
    try {
      stateFd = openSync(stateFile, 'w', 0o600);
      this.#child = spawn(file, args, {
        cwd: options.cwd,
        env: { ...options.env, [PGROUP_ENV]: this.marker },
        stdio: ['ignore', outFd, outFd, stateFd],
        detached: true,
      });
    } finally {
      closeSync(outFd);
      if (stateFd !== undefined) closeSync(stateFd);
    }
    this.#pid = this.#child.pid;
    if (this.#pid !== undefined) trackGroup(this.#pid);

    this.exited = new Promise<ShellExit>((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
        if (!this.#running) return;
        this.#running = false;
        release?.();
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
        resolve({
          code,
          signal,
          killReason: this.#killReason,
          finalCwd: state.cwd,
          capture: state.capture,
          spawnError,
          outputBytes,
          durationMs: Date.now() - this.startedAt,
        });
      };
      this.#child.once('exit', (code, signal) => finish(code, signal));
      this.#child.once('error', (error) => finish(null, null, error.message));
    });

    if (this.#pid !== undefined) {
      this.#poll = setInterval(() => this.#check(options.maxOutputBytes), options.pollIntervalMs);
      this.#poll.unref();
    }
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
    if (this.#running && this.#pid !== undefined) {
      this.#killReason ??= reason;
      // A background task's child is unref'd; whoever awaits its end now must keep the process alive until the exit
      // event arrives (when the group is already gone no grace timer holds the loop, and Node could leave first:
      // exit code 13, "unsettled top-level await", seen once under load in `exec` killed by SIGTERM).
      this.#child.ref();
      void terminateGroup(this.#pid, this.#graceMs);
      void terminateMarked(this.marker, this.#graceMs);
    }
    return this.exited;
  }

  /** Lets the Node process exit while this runs (background tasks); the exit hook still kills the group. */
  detachFromEventLoop(): void {
    this.#child.unref();
  }

  /** Immediate SIGKILL to the group (shutdown paths that cannot wait). */
  killNow(reason: KillReason): void {
    if (this.#running && this.#pid !== undefined) {
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

function readStateFile(file: string): ReturnType<typeof parseShellStateRecords> {
  try {
    const big = statSync(file).size > MAX_STATE_FILE_BYTES;
    const text = big ? '' : readFileSync(file, 'latin1');
    unlinkSync(file);
    return parseShellStateRecords(text);
  } catch {
    return {};
  }
}

export function spawnShell(options: SpawnShellOptions): ShellProcess {
  return new ShellProcess(options);
}
