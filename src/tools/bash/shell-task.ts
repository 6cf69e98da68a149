/**
 * A shell command as a background task of the shared registry (`tools/shared/task-registry.ts`): its end comes from
 * the process itself (exit code, signal, whether toolgate killed it), TaskStop ends its whole process group, and its
 * output is the tail of its output file, bounded to the Bash inline size. What commands detach and leave running is
 * ended by a shutdown step of the registry, found by the environment marker every command carries.
 */
import type { NotificationQueue } from '../../tool/notification-queue.js';
import { collapseCarriageReturns, readOutputTail } from '../shared/output-file.js';
import type { BackgroundedBy, TaskEnd, TaskInfo, TaskRegistry, TaskSource } from '../shared/task-registry.js';
import { DEFAULT_KILL_GRACE_MS } from './bash-settings.js';
import { PROCESS_MARKER, terminateMarked } from '../../hooks/process-marker.js';
import type { ShellExit, ShellProcess } from './shell-process.js';
import { describeTaskEnd, taskNotification } from './task-notification.js';

export const SHELL_TASK_TYPE = 'local_bash';

export interface AdoptShellOptions {
  readonly description?: string;
  readonly backgroundedBy: BackgroundedBy;
  readonly notifications?: NotificationQueue;
  /** Killed (`lifetime`) when still running after this many ms from its start. */
  readonly lifetimeMs?: number;
  /** How much of the output TaskOutput shows (the Bash inline size of the call's settings). */
  readonly outputChars: number;
}

/**
 * Every command of a registry runs with the registry's marker scope; at the registry's shutdown, whatever they
 * detached from their group (`setsid cmd &`) and left running is ended too. Call it before a command starts.
 */
export function shellMarkerScope(registry: TaskRegistry): string {
  registry.onShutdown('bash:detached-processes', () =>
    terminateMarked(`${PROCESS_MARKER}.${registry.scope}.`, DEFAULT_KILL_GRACE_MS, { prefix: true }).then(() => undefined),
  );
  return registry.scope;
}

/** Hands a running command to the registry. After the registry's shutdown, it is killed at once. */
export function adoptShell(registry: TaskRegistry, process: ShellProcess, options: AdoptShellOptions): TaskInfo {
  process.detachFromEventLoop();
  const source: TaskSource = {
    id: process.id,
    type: SHELL_TASK_TYPE,
    label: process.command,
    ...(options.description !== undefined ? { description: options.description } : {}),
    outputFile: process.outputFile,
    startedAt: process.startedAt,
    facts: { command: process.command, pid: process.pid ?? null },
    ended: process.exited.then(shellEnd),
    kill: async (reason) => void (await process.kill(reason)),
    readOutput: () => {
      const tail = readOutputTail(process.outputFile, options.outputChars * 4);
      const text = collapseCarriageReturns(tail.text);
      const shown = text.length > options.outputChars ? text.slice(-options.outputChars) : text;
      return { text: shown, truncated: !tail.complete || shown.length < text.length, sizeBytes: tail.sizeBytes };
    },
    endNotification: (task) => taskNotification(task),
    describeEnd: (task) => describeTaskEnd(task),
  };
  return registry.register(source, {
    backgroundedBy: options.backgroundedBy,
    ...(options.notifications !== undefined ? { notifications: options.notifications } : {}),
    ...(options.lifetimeMs !== undefined ? { lifetimeMs: options.lifetimeMs } : {}),
  });
}

function shellEnd(exit: ShellExit): TaskEnd {
  const status = exit.killReason !== undefined ? 'killed' : exit.code === 0 ? 'completed' : 'failed';
  const summary = exit.code !== null ? `exit code ${exit.code}` : exit.signal !== null ? `signal ${exit.signal}` : 'no exit code';
  return {
    status,
    ...(exit.killReason !== undefined ? { killReason: exit.killReason } : {}),
    summary,
    facts: { exit_code: exit.code, signal: exit.signal },
  };
}
