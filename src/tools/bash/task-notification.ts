/**
 * The message the model gets on its next turn when a background command ends: what ended, how (status, exit code or
 * signal), where its output is, and the last lines of it.
 */
import { taskNotificationText } from '../../tool/message-origin.js';
import type { MessageParam } from '../../tool/tool.js';
import { collapseCarriageReturns, lastLines, readOutputTail } from '../shared/output-file.js';
import type { TaskInfo } from '../shared/task-registry.js';

const TAIL_BYTES = 4_096;
const TAIL_LINES = 10;
const TAIL_CHARS = 1_000;

const exitCodeOf = (task: TaskInfo) => (typeof task.facts.exit_code === 'number' ? task.facts.exit_code : null);
const signalOf = (task: TaskInfo) => (typeof task.facts.signal === 'string' ? task.facts.signal : null);

export function describeTaskEnd(task: TaskInfo): string {
  const label = task.description ? `"${task.description}"` : `"${truncate(task.label, 80)}"`;
  const exitCode = exitCodeOf(task);
  switch (task.status) {
    case 'completed':
      return `Background command ${label} completed (exit code 0)`;
    case 'failed':
      return exitCode !== null
        ? `Background command ${label} failed with exit code ${exitCode}`
        : `Background command ${label} was killed by signal ${signalOf(task) ?? 'unknown'}`;
    case 'killed':
      return `Background command ${label} was killed (${killReasonText(task)})`;
    default:
      return `Background command ${label} is still running`;
  }
}

function killReasonText(task: TaskInfo): string {
  switch (task.killReason) {
    case 'lifetime':
      return 'it ran past its time limit';
    case 'output-limit':
      return 'its output exceeded the size limit';
    case 'stop':
      return 'stopped on request';
    case 'shutdown':
      return 'the session ended';
    default:
      return task.killReason ?? 'by toolgate';
  }
}

export function taskNotification(task: TaskInfo): MessageParam {
  const tail = readOutputTail(task.outputFile, TAIL_BYTES);
  let excerpt = lastLines(collapseCarriageReturns(tail.text), TAIL_LINES);
  if (excerpt.length > TAIL_CHARS) excerpt = excerpt.slice(-TAIL_CHARS);
  const exitCode = exitCodeOf(task);
  const signal = signalOf(task);
  const body = [
    `<task-id>${task.id}</task-id>`,
    `<task-type>${task.type}</task-type>`,
    `<status>${task.status}</status>`,
    ...(exitCode !== null ? [`<exit-code>${exitCode}</exit-code>`] : []),
    ...(signal !== null ? [`<signal>${signal}</signal>`] : []),
    `<summary>${describeTaskEnd(task)}</summary>`,
    `<output-file>${task.outputFile}</output-file>`,
    ...(excerpt !== '' ? ['<output-tail>', excerpt, '</output-tail>'] : []),
  ];
  return { role: 'user', content: taskNotificationText(body, ['Read the output file (or use TaskOutput) for the full output.']) };
}

function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
