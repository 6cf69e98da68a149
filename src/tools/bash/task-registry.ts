/**
 * Background tasks: commands started with `run_in_background` or moved there by a timeout. The registry's state
 * comes from the process itself — exit code, signal, and whether toolgate killed it — never from guesses: a task
 * is `running` until its process exits, `completed` on exit code 0, `killed` when toolgate ended it (TaskStop,
 * lifetime, output cap, shutdown), `failed` otherwise (non-zero code, or a signal from someone else).
 *
 * One registry per runtime lives in `context.services.tasks`; `createTaskRegistry()` makes one. A context without
 * one falls back to a process-wide default registry (`getTaskRegistry`), so tools work in a bare context too.
 */
import { randomBytes } from 'node:crypto';
import type { NotificationQueue } from '../../tool/notification-queue.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { DEFAULT_KILL_GRACE_MS } from './bash-settings.js';
import { PROCESS_MARKER, terminateMarked } from '../../hooks/process-marker.js';
import type { KillReason, ShellExit, ShellProcess } from './shell-process.js';
import { taskNotification } from './task-notification.js';

export type TaskStatus = 'running' | 'completed' | 'failed' | 'killed';
export type BackgroundedBy = 'request' | 'timeout' | 'user';

export interface TaskInfo {
  readonly id: string;
  readonly type: 'local_bash';
  readonly command: string;
  readonly description?: string;
  readonly status: TaskStatus;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly killReason?: KillReason;
  readonly outputFile: string;
  readonly cwd: string;
  readonly pid?: number;
  readonly startedAt: number;
  readonly endedAt?: number;
  /** `request`: run_in_background; `timeout`: a foreground command that ran past its timeout; `user`: moved by a person. */
  readonly backgroundedBy: BackgroundedBy;
  readonly sandboxed: boolean;
}

export interface AdoptOptions {
  readonly description?: string;
  readonly backgroundedBy: BackgroundedBy;
  /** Where the end-of-task message goes (the executor drains it into the next results' newMessages). */
  readonly notifications?: NotificationQueue;
  /** Killed (`lifetime`) when still running after this many ms from its start. */
  readonly lifetimeMs?: number;
}

export interface TaskShutdownReport {
  /** Every task that was still running, now ended, with its final state. */
  readonly ended: readonly TaskInfo[];
  /** Tasks that had ended before. */
  readonly alreadyEnded: readonly TaskInfo[];
}

export type TaskEndListener = (task: TaskInfo) => void;

interface Entry {
  info: TaskInfo;
  readonly process: ShellProcess;
  readonly done: Promise<TaskInfo>;
  lifetime?: NodeJS.Timeout;
}

export class TaskRegistry {
  /**
   * The middle part of the environment marker of every command run for this registry (foreground ones too): what
   * they detached from their group (`setsid cmd &`) and left running when they ended is ended by `shutdown()`.
   */
  readonly markerScope = randomBytes(4).toString('hex');
  #tasks = new Map<string, Entry>();
  #listeners = new Set<TaskEndListener>();
  #closed = false;
  /** Foreground commands running now that a person may send to the background, by tool_use id. */
  #foreground = new Map<string, () => void>();

  /**
   * A foreground command announces itself while it runs: `moveToBackground` makes its call return at once and hand the
   * process to `adopt()`. Returns the function that withdraws it (the call ended on its own).
   */
  registerForeground(toolUseId: string, moveToBackground: () => void): () => void {
    this.#foreground.set(toolUseId, moveToBackground);
    return () => {
      if (this.#foreground.get(toolUseId) === moveToBackground) this.#foreground.delete(toolUseId);
    };
  }

  /** The tool_use ids of the foreground commands that can be moved now. */
  foreground(): string[] {
    return [...this.#foreground.keys()];
  }

  /**
   * Moves the foreground command of `toolUseId` to the background, or every one when no id is given (Ctrl+B).
   * Returns the ids moved; an id that is not (or no longer) a running foreground command is not among them.
   */
  moveToBackground(toolUseId?: string): string[] {
    const ids = toolUseId === undefined ? this.foreground() : this.#foreground.has(toolUseId) ? [toolUseId] : [];
    for (const id of ids) {
      const move = this.#foreground.get(id)!;
      this.#foreground.delete(id);
      move();
    }
    return ids;
  }

  /** Takes over a running shell process. After `shutdown()`, an adopted process is killed at once. */
  adopt(process: ShellProcess, options: AdoptOptions): TaskInfo {
    const info: TaskInfo = {
      id: process.id,
      type: 'local_bash',
      command: process.command,
      description: options.description,
      status: 'running',
      exitCode: null,
      signal: null,
      outputFile: process.outputFile,
      cwd: process.cwd,
      pid: process.pid,
      startedAt: process.startedAt,
      backgroundedBy: options.backgroundedBy,
      sandboxed: process.sandboxed,
    };
    process.detachFromEventLoop();
    const done = process.exited.then((exit) => this.#finish(process.id, exit, options.notifications));
    const entry: Entry = { info, process, done };
    this.#tasks.set(process.id, entry);
    if (this.#closed) {
      void process.kill('shutdown');
    } else if (options.lifetimeMs !== undefined) {
      const remaining = Math.max(0, options.lifetimeMs - (Date.now() - process.startedAt));
      entry.lifetime = setTimeout(() => void process.kill('lifetime'), remaining);
      entry.lifetime.unref();
    }
    return info;
  }

  get(id: string): TaskInfo | undefined {
    return this.#tasks.get(id)?.info;
  }

  list(): TaskInfo[] {
    return [...this.#tasks.values()].map((e) => e.info);
  }

  /** Resolves with the task once it ended, or as it is when `timeoutMs` passes or `signal` aborts first. */
  async wait(id: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<TaskInfo | undefined> {
    const entry = this.#tasks.get(id);
    if (entry === undefined || entry.info.status !== 'running') return entry?.info;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<void>((resolve) => {
      if (options.timeoutMs !== undefined) timer = setTimeout(resolve, options.timeoutMs);
      if (options.signal !== undefined) {
        if (options.signal.aborted) resolve();
        onAbort = resolve;
        options.signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    try {
      return await Promise.race([entry.done, stop.then(() => entry.info)]);
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Ends a running task's process group (SIGTERM, then SIGKILL); resolves with its final state. */
  async stop(id: string, reason: KillReason = 'stop'): Promise<TaskInfo | undefined> {
    const entry = this.#tasks.get(id);
    if (entry === undefined) return undefined;
    if (entry.info.status !== 'running') return entry.info;
    await entry.process.kill(reason);
    return entry.done;
  }

  onTaskEnd(listener: TaskEndListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Ends every running task and reports each one, then every process a command of this registry detached and left
   * behind (Linux: found by its environment marker); later adoptions are killed at once.
   */
  async shutdown(): Promise<TaskShutdownReport> {
    this.#closed = true;
    const running = [...this.#tasks.values()].filter((e) => e.info.status === 'running');
    const alreadyEnded = [...this.#tasks.values()].filter((e) => e.info.status !== 'running').map((e) => e.info);
    const ended = await Promise.all(running.map((e) => e.process.kill('shutdown').then(() => e.done)));
    await terminateMarked(`${PROCESS_MARKER}.${this.markerScope}.`, DEFAULT_KILL_GRACE_MS, { prefix: true });
    return { ended, alreadyEnded };
  }

  #finish(id: string, exit: ShellExit, notifications: NotificationQueue | undefined): TaskInfo {
    const entry = this.#tasks.get(id)!;
    if (entry.lifetime) clearTimeout(entry.lifetime);
    const status: TaskStatus = exit.killReason !== undefined ? 'killed' : exit.code === 0 ? 'completed' : 'failed';
    entry.info = {
      ...entry.info,
      status,
      exitCode: exit.code,
      signal: exit.signal,
      killReason: exit.killReason,
      endedAt: Date.now(),
    };
    // The model asked for TaskStop and got its answer; shutdown has no next turn. Everything else is news.
    if (notifications !== undefined && exit.killReason !== 'stop' && exit.killReason !== 'shutdown') {
      notifications.push(taskNotification(entry.info));
    }
    for (const listener of this.#listeners) {
      try {
        listener(entry.info);
      } catch {
        // A listener's failure must not change the task's recorded end.
      }
    }
    return entry.info;
  }
}

export function createTaskRegistry(): TaskRegistry {
  return new TaskRegistry();
}

declare module '../../tool/tool-use-context.js' {
  interface ToolServices {
    /** Background tasks of this runtime (Bash, TaskOutput, TaskStop). */
    readonly tasks?: TaskRegistry;
  }
}

let defaultRegistry: TaskRegistry | undefined;

/**
 * The context's registry, or — only when the context has none — one process-wide default registry. Embedders that
 * run several sessions in one process should give each its own through `services.tasks`.
 */
export function getTaskRegistry(context: Pick<ToolUseContext, 'services'>): TaskRegistry {
  if (context.services.tasks !== undefined) return context.services.tasks;
  defaultRegistry ??= createTaskRegistry();
  return defaultRegistry;
}
