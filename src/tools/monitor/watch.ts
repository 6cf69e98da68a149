/**
 * Following a Monitor's task: every `pollIntervalMs` the new complete lines of its output file become one event
 * message (bounded: a flood is summarised, every line stays in the file); when the task ends, the last lines go out,
 * then the end — unless the model itself stopped it (TaskStop) or the session is shutting down, as for any task.
 */
import { monitorEndedText, monitorEventText } from '../../tool/message-origin.js';
import type { NotificationQueue } from '../../tool/notification-queue.js';
import type { MessageParam } from '../../tool/tool.js';
import type { TaskInfo, TaskRegistry } from '../shared/task-registry.js';
import { LineFollower } from './line-follower.js';

export const MAX_EVENT_LINES = 100;
export const MAX_EVENT_CHARS = 8_000;
const MAX_LINE_CHARS = 1_000;

export interface WatchOptions {
  readonly registry: TaskRegistry;
  readonly taskId: string;
  readonly outputFile: string;
  readonly description: string;
  readonly timeoutMs: number;
  readonly queue?: NotificationQueue;
  readonly pollIntervalMs: number;
}

function text(body: string): MessageParam {
  return { role: 'user', content: [{ type: 'text', text: body }] };
}

/** One event: the lines read together, at most MAX_EVENT_LINES lines and MAX_EVENT_CHARS characters. */
export function eventMessage(o: Pick<WatchOptions, 'taskId' | 'description' | 'outputFile'>, lines: readonly string[]): MessageParam {
  const shown: string[] = [];
  let chars = 0;
  for (const line of lines) {
    const cut = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
    if (shown.length >= MAX_EVENT_LINES || chars + cut.length > MAX_EVENT_CHARS) break;
    shown.push(cut);
    chars += cut.length + 1;
  }
  const rest = lines.length - shown.length;
  const more = rest > 0 ? `\n(${rest} more line${rest === 1 ? '' : 's'} in ${o.outputFile})` : '';
  return text(monitorEventText({ task: o.taskId, description: o.description }, `${shown.join('\n')}${more}`));
}

function endMessage(o: WatchOptions, task: TaskInfo): MessageParam {
  const why =
    task.killReason === 'lifetime'
      ? `its deadline of ${Math.round(o.timeoutMs / 1000)}s passed and the command was ended; start a new Monitor to keep watching`
      : task.status === 'completed'
        ? `the command exited (${task.summary ?? 'exit code 0'})`
        : `the command ended: ${task.summary ?? task.status}`;
  return text(monitorEndedText({ task: o.taskId, description: o.description }, `The watch ended: ${why}. All its output is in ${o.outputFile}.`));
}

/** Starts following; everything it holds (timer, listener) goes when the task ends. */
export function watchTask(o: WatchOptions): void {
  const follower = new LineFollower(o.outputFile);
  const flush = (final: boolean) => {
    const lines = follower.read(final);
    if (lines.length > 0) o.queue?.push(eventMessage(o, lines));
  };
  let finished = false;
  const finish = (task: TaskInfo) => {
    if (finished) return;
    finished = true;
    clearInterval(timer);
    off();
    flush(true);
    if (task.killReason !== 'stop' && task.killReason !== 'shutdown') o.queue?.push(endMessage(o, task));
  };
  const timer = setInterval(() => flush(false), o.pollIntervalMs);
  timer.unref();
  const off = o.registry.onTaskEnd((task) => {
    if (task.id === o.taskId) finish(task);
  });
  // It may have ended before the listener was there (a command that prints and exits at once).
  const now = o.registry.get(o.taskId);
  if (now === undefined || now.status !== 'running') finish(now ?? { id: o.taskId, type: '', label: '', status: 'failed', outputFile: o.outputFile, startedAt: 0, backgroundedBy: 'request', facts: {}, summary: 'the task is gone' });
}
