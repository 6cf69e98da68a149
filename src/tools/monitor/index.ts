/**
 * Monitor: a watched command (Claude Code's input: `description`, `timeout_ms`, `command` xor `ws`; output `taskId`,
 * `timeoutMs`). The command is judged as a Bash command — its traits say shell (so Bash's deny and ask rules judge
 * it, its allow rules are `Monitor(...)`), a whole-tool `Bash` deny or ask covers it (`alsoDeniedAs`), and its own
 * check is the Bash tool's (sandbox auto-allow) — and started exactly as Bash's
 * `run_in_background` starts one, through `services.shellTasks` (sandbox, environment, process group, output file, a
 * task of the registry that TaskStop ends). Each new line of its output goes to the session's notification queue
 * (`watch.ts`), the path every background task's news takes: the executor drains it into the next tool results, a
 * ScheduleWakeup wait wakes on it. Exit or the deadline ends the watch, and the model is told.
 */
import * as z from 'zod';
import { isReadOnlyCommand } from '../../permissions/bash/index.js';
import { buildTool } from '../../tool/build-tool.js';
import { NotificationQueue } from '../../tool/notification-queue.js';
import type { ValidationResult } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import '../shared/shell-tasks.js';
import { getTaskRegistry } from '../shared/task-registry.js';
import { MONITOR_DEFAULT_TIMEOUT_MS, MONITOR_MAX_TIMEOUT_MS, MONITOR_TOOL_NAME, monitorPrompt } from './prompt.js';
import { watchTask } from './watch.js';

export { MONITOR_TOOL_NAME };

/** Monitor's settings (`toolgate.monitor`). */
export interface MonitorSettings {
  /** How often the output file is read for new lines (default 250 ms). */
  readonly pollIntervalMs?: number;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolSettings {
    readonly monitor?: MonitorSettings;
  }
}

export const monitorInputSchema = z.strictObject({
  description: z.string().describe('A short phrase saying what is watched; it labels the events'),
  timeout_ms: z
    .number()
    .optional()
    .describe(`End the watch after this many ms (default ${MONITOR_DEFAULT_TIMEOUT_MS}; above ${MONITOR_MAX_TIMEOUT_MS} it is shortened to that). You are told when it ends`),
  command: z.string().optional().describe('The shell command to watch: each line it prints is an event; its exit ends the watch'),
  ws: z
    .strictObject({ url: z.string(), protocols: z.array(z.string()).optional() })
    .optional()
    .describe('A WebSocket to watch instead of a command (not supported by toolgate: refused)'),
});
export type MonitorInput = z.infer<typeof monitorInputSchema>;

export interface MonitorOutput {
  readonly taskId: string;
  readonly timeoutMs: number;
  /** The same id, under the name every face's background-task tracking reads (as Bash's background commands). */
  readonly backgroundTaskId: string;
  readonly outputFile: string;
  readonly description: string;
  /** The command runs inside the OS sandbox. */
  readonly sandboxed?: boolean;
  /** What the launch said (a command run outside the sandbox, a note of the sandbox policy). */
  readonly notes?: string;
}

function readOnly(input: MonitorInput): boolean {
  if (input.command === undefined) return false;
  try {
    return isReadOnlyCommand(input.command);
  } catch {
    return false;
  }
}

function validate(input: MonitorInput, context: ToolUseContext): ValidationResult {
  if (input.ws !== undefined) {
    return { result: false, message: 'Monitor with ws (a WebSocket) is not supported by toolgate; watch a command instead (for example one that prints each message it receives).', errorCode: 1 };
  }
  if (input.command === undefined || input.command.trim() === '') return { result: false, message: 'Give the command to watch in command.', errorCode: 2 };
  if (input.command.includes('\0')) return { result: false, message: 'The command contains a NUL byte, which cannot be passed to bash.', errorCode: 3 };
  if (input.timeout_ms !== undefined && (!Number.isFinite(input.timeout_ms) || input.timeout_ms <= 0)) {
    return { result: false, message: `timeout_ms must be a positive number of milliseconds (got ${input.timeout_ms}).`, errorCode: 4 };
  }
  if (context.services.shellTasks === undefined) return { result: false, message: 'This session cannot start shell commands for Monitor (no shell task service).', errorCode: 5 };
  return { result: true };
}

export const MonitorTool = buildTool<typeof monitorInputSchema, MonitorOutput>({
  name: MONITOR_TOOL_NAME,
  asyncSafe: true,
  waitsFor: 'condition',
  permissionTraits: { kind: 'shell', commandField: 'command', alsoDeniedAs: 'Bash' },
  searchHint: 'watch monitor a process log or command, each output line as a live notification',
  inputSchema: monitorInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => monitorPrompt(),
  isReadOnly: readOnly,
  isConcurrencySafe: readOnly,
  toAutoClassifierInput: (input) => input.command ?? '',
  validateInput: async (input, context) => validate(input, context),
  checkPermissions: async (input, context) => {
    const shell = context.services.shellTasks;
    if (input.command === undefined || shell === undefined) return { behavior: 'allow', updatedInput: input };
    const result = await shell.checkPermissions(input.command, context);
    // Bash's answer is about its own input shape: the call keeps Monitor's.
    return result.behavior === 'allow' ? { ...result, updatedInput: input } : result;
  },
  call: async (input, context) => {
    const check = validate(input, context);
    if (!check.result) throw new Error(check.message);
    const timeoutMs = Math.min(input.timeout_ms ?? MONITOR_DEFAULT_TIMEOUT_MS, MONITOR_MAX_TIMEOUT_MS);
    // The shell task's own end-of-task message goes to a queue of the watch's: the watch reports the end itself,
    // after the last lines.
    const own = new NotificationQueue();
    const started = await context.services.shellTasks!.start(
      { command: input.command!, description: input.description, lifetimeMs: timeoutMs },
      { ...context, services: { ...context.services, notifications: own } },
    );
    if (!started.ok) throw new Error(started.error);
    watchTask({
      registry: getTaskRegistry(context),
      taskId: started.taskId,
      outputFile: started.outputFile,
      description: input.description,
      timeoutMs,
      ...(context.services.notifications !== undefined ? { queue: context.services.notifications } : {}),
      pollIntervalMs: context.options.settings.monitor?.pollIntervalMs ?? 250,
    });
    return {
      data: {
        taskId: started.taskId,
        timeoutMs,
        backgroundTaskId: started.taskId,
        outputFile: started.outputFile,
        description: input.description,
        ...(started.sandboxed ? { sandboxed: true } : {}),
        ...(started.notes !== '' ? { notes: started.notes } : {}),
      },
    };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content:
      `Monitor started (task ID: ${data.taskId}): each line the command prints reaches you as an event. The watch ends when the command exits or after ${Math.round(data.timeoutMs / 1000)}s; you will be told. TaskStop ends it early; all output is in ${data.outputFile}.` +
      (data.notes ? `\n${data.notes}` : ''),
  }),
  renderToolUseMessage: (input) => `${input.description ?? ''}${input.command ? `: ${input.command.replace(/\s+/g, ' ').slice(0, 120)}` : ''}`,
  renderToolResultMessage: (data) => `Watching (${data.taskId})`,
  loadViews: () => import('./render.js').then((m) => m.monitorViews),
});
