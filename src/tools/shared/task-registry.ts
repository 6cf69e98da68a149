/**
 * Background tasks of every kind: a shell command the Bash tool let run on, a sub-agent the Agent tool started in the
 * background — anything with a way to end it, an output to read and an end to wait for. The tool that starts a task
 * registers it with its own implementation (a `TaskSource`: Bash's kills a process group, Agent's aborts a loop); the
 * registry keeps the task's state, the lifetime timer and the end-of-task message, and TaskOutput and TaskStop read
 * and stop tasks through it alone, whatever their kind.
 *
 * A task's state comes from the task itself, never from guesses: `running` until its source says it ended, then
 * `completed`, `failed` or `killed` (toolgate ended it: TaskStop, its lifetime, shutdown, or a limit of its own).
 *
 * One registry per runtime lives in `context.services.tasks`; `createTaskRegistry()` makes one. A context without one
 * falls back to a process-wide default registry (`getTaskRegistry`), so tools work in a bare context too.
 */
import type { NotificationQueue } from '../../tool/notification-queue.js';
import type { MessageParam } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { randomBytes } from '../../tool/crypto.js';

export type TaskStatus = 'running' | 'completed' | 'failed' | 'killed';
/** `request`: started in the background; `timeout`: a foreground call that ran past its timeout; `user`: moved by a person. */
export type BackgroundedBy = 'request' | 'timeout' | 'user';
/** Why the registry ends a task: TaskStop, its lifetime, or the registry's shutdown. */
export type TaskStopReason = 'stop' | 'lifetime' | 'shutdown';
/** What a task's kind knows about it (a shell's exit code and pid, an agent's id and tool count), for TaskOutput. */
export type TaskFacts = Readonly<Record<string, string | number | boolean | null>>;

export interface TaskEnd {
  readonly status: Exclude<TaskStatus, 'running'>;
  /** Why toolgate ended it: a stop reason, or one of the task's own (`output-limit`). */
  readonly killReason?: string;
  /** How it ended, in the kind's words (`exit code 2`, `signal SIGKILL`, `3 tool uses, 1 permission denied`). */
  readonly summary?: string;
  /** Facts known only at the end, merged over the start's (an exit code, the final tool count). */
  readonly facts?: TaskFacts;
}

export interface TaskOutputSlice {
  /** The end of the output so far, bounded by the task's kind. */
  readonly text: string;
  /** True when `text` is only the end of the output (the rest is in the output file). */
  readonly truncated: boolean;
  readonly sizeBytes: number;
}

/** A task as the tool that started it hands it over. */
export interface TaskSource {
  readonly id: string;
  /** `local_bash`, `local_agent`, … (TaskOutput's `task_type`). */
  readonly type: string;
  /** What runs, in one line: the command, the agent's task. */
  readonly label: string;
  readonly description?: string;
  /** Where its output goes: a file the model can Read. */
  readonly outputFile: string;
  readonly startedAt: number;
  readonly facts?: TaskFacts;
  /** Resolves once the task has ended, whatever ended it. Must not reject. */
  readonly ended: Promise<TaskEnd>;
  /** Ends it; `ended` resolves afterwards (with `killed`). */
  kill(reason: TaskStopReason): Promise<void>;
  readOutput(): TaskOutputSlice;
  /** The model's message when the task ended and no one asked for that end (not TaskStop, not shutdown). */
  endNotification?(task: TaskInfo): MessageParam | undefined;
  /** One line on how it ended, for a person or a program (`TaskInfo.headline`). */
  describeEnd?(task: TaskInfo): string;
}

export interface TaskInfo {
  readonly id: string;
  readonly type: string;
  readonly label: string;
  readonly description?: string;
  readonly status: TaskStatus;
  readonly killReason?: string;
  /** How it ended, in its kind's words (set once it ended). */
  readonly summary?: string;
  /** What ended and how, in one line (set once it ended, when its kind describes its end). */
  readonly headline?: string;
  readonly outputFile: string;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly backgroundedBy: BackgroundedBy;
  readonly facts: TaskFacts;
}

export interface RegisterOptions {
  readonly backgroundedBy: BackgroundedBy;
  /** Where the end-of-task message goes (the executor drains it into the next results' newMessages). */
  readonly notifications?: NotificationQueue;
  /** Ended (`lifetime`) when still running this many ms after its start. */
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
  readonly source: TaskSource;
  readonly done: Promise<TaskInfo>;
  lifetime?: NodeJS.Timeout;
}

export class TaskRegistry {
  /**
   * Unique to this registry: a tool marks what its tasks may leave behind with it (Bash's process markers), so that a
   * shutdown step can find it.
   */
  readonly scope = randomBytes(4).toString('hex');
  #tasks = new Map<string, Entry>();
  #listeners = new Set<TaskEndListener>();
  #shutdownSteps = new Map<string, () => Promise<void>>();
  #closed = false;
  /** Foreground calls running now that a person may send to the background, by tool_use id. */
  #foreground = new Map<string, () => void>();

  /**
   * A foreground call announces itself while it runs: `moveToBackground` makes the call return at once and hand its
   * work to `register()`. Returns the function that withdraws it (the call ended on its own).
   */
  registerForeground(toolUseId: string, moveToBackground: () => void): () => void {
    this.#foreground.set(toolUseId, moveToBackground);
    return () => {
      if (this.#foreground.get(toolUseId) === moveToBackground) this.#foreground.delete(toolUseId);
    };
  }

  /** The tool_use ids of the foreground calls that can be moved now. */
  foreground(): string[] {
    return [...this.#foreground.keys()];
  }

  /**
   * Moves the foreground call of `toolUseId` to the background, or every one when no id is given (Ctrl+B). Returns
   * the ids moved; an id that is not (or no longer) a running foreground call is not among them.
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

  /** Takes a running task over. After `shutdown()`, a registered task is ended at once. */
  register(source: TaskSource, options: RegisterOptions): TaskInfo {
    if (this.#tasks.has(source.id)) throw new Error(`a task with the id ${source.id} is registered already`);
    const info: TaskInfo = {
      id: source.id,
      type: source.type,
      label: source.label,
      ...(source.description !== undefined ? { description: source.description } : {}),
      status: 'running',
      outputFile: source.outputFile,
      startedAt: source.startedAt,
      backgroundedBy: options.backgroundedBy,
      facts: { ...source.facts },
    };
    const done = source.ended.then(
      (end) => this.#finish(source.id, end, options.notifications),
      (error: unknown) => this.#finish(source.id, { status: 'failed', facts: { error: error instanceof Error ? error.message : String(error) } }, options.notifications),
    );
    const entry: Entry = { info, source, done };
    this.#tasks.set(source.id, entry);
    if (this.#closed) {
      void source.kill('shutdown');
    } else if (options.lifetimeMs !== undefined) {
      const remaining = Math.max(0, options.lifetimeMs - (Date.now() - source.startedAt));
      entry.lifetime = setTimeout(() => void source.kill('lifetime'), remaining);
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

  /** The end of a task's output so far (its kind decides how much), or undefined for an unknown id. */
  readOutput(id: string): TaskOutputSlice | undefined {
    const entry = this.#tasks.get(id);
    if (entry === undefined) return undefined;
    try {
      return entry.source.readOutput();
    } catch (error) {
      return { text: `(the output could not be read: ${error instanceof Error ? error.message : String(error)})`, truncated: false, sizeBytes: 0 };
    }
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

  /** Ends a running task through its own kill; resolves with its final state. */
  async stop(id: string, reason: TaskStopReason = 'stop'): Promise<TaskInfo | undefined> {
    const entry = this.#tasks.get(id);
    if (entry === undefined) return undefined;
    if (entry.info.status !== 'running') return entry.info;
    await entry.source.kill(reason);
    return entry.done;
  }

  onTaskEnd(listener: TaskEndListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * A step `shutdown()` runs after every task ended (Bash: end what its commands detached and left behind). One per
   * key: registering the same key again keeps the first.
   */
  onShutdown(key: string, step: () => Promise<void>): void {
    if (!this.#shutdownSteps.has(key)) this.#shutdownSteps.set(key, step);
  }

  /** Ends every running task and reports each one, then runs the shutdown steps; later registrations end at once. */
  async shutdown(): Promise<TaskShutdownReport> {
    this.#closed = true;
    const running = [...this.#tasks.values()].filter((e) => e.info.status === 'running');
    const alreadyEnded = [...this.#tasks.values()].filter((e) => e.info.status !== 'running').map((e) => e.info);
    const ended = await Promise.all(running.map((e) => e.source.kill('shutdown').then(() => e.done)));
    for (const step of this.#shutdownSteps.values()) await step().catch(() => undefined);
    return { ended, alreadyEnded };
  }

  #finish(id: string, end: TaskEnd, notifications: NotificationQueue | undefined): TaskInfo {
    const entry = this.#tasks.get(id)!;
    if (entry.lifetime) clearTimeout(entry.lifetime);
    entry.info = {
      ...entry.info,
      status: end.status,
      ...(end.killReason !== undefined ? { killReason: end.killReason } : {}),
      ...(end.summary !== undefined ? { summary: end.summary } : {}),
      facts: { ...entry.info.facts, ...end.facts },
      endedAt: Date.now(),
    };
    try {
      const headline = entry.source.describeEnd?.(entry.info);
      if (headline !== undefined) entry.info = { ...entry.info, headline };
    } catch {
      // no line: the state above says how it ended
    }
    // The model asked for TaskStop and got its answer; shutdown has no next turn. Everything else is news.
    if (notifications !== undefined && end.killReason !== 'stop' && end.killReason !== 'shutdown') {
      try {
        const message = entry.source.endNotification?.(entry.info);
        if (message !== undefined) notifications.push(message);
      } catch {
        // A task that cannot describe its end still ended: its state is recorded above.
      }
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
    /** Background tasks of this runtime (Bash's commands, Agent's sub-agents; TaskOutput, TaskStop). */
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
