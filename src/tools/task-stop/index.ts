/**
 * TaskStop (aliases KillShell, KillBash): ends a running background task of any kind through the registry (a
 * command's whole process group, a sub-agent's loop) and reports its final state. `shell_id` is Claude Code's
 * deprecated name for `task_id`. A teammate is found by its name too (shared/team.ts), as in Claude Code.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import type { ValidationResult } from '../../tool/tool.js';
import { getTaskRegistry, type TaskStatus } from '../shared/task-registry.js';
import { currentTeam } from '../shared/team.js';
import { TASK_STOP_TOOL_NAME, taskStopPrompt } from './prompt.js';

export const taskStopInputSchema = z.strictObject({
  task_id: z.string().optional().describe('The ID of the background task to stop (a teammate: its agent ID or its name)'),
  shell_id: z.string().optional().describe('Deprecated: use task_id instead'),
});

export type TaskStopInput = z.infer<typeof taskStopInputSchema>;

export interface TaskStopData {
  readonly message: string;
  readonly task_id: string;
  /** `local_bash`, `local_agent`, … */
  readonly task_type: string;
  /** What ran: the command, the agent's task. */
  readonly label: string;
  readonly status: TaskStatus;
  /** How it ended, in its kind's words (`signal SIGTERM`). */
  readonly summary?: string;
}

function taskIdOf(input: TaskStopInput): string | undefined {
  const id = input.task_id ?? input.shell_id;
  return id !== undefined && id.trim() !== '' ? id.trim() : undefined;
}

/** A task's id, or — as Claude Code accepts — a live teammate's name, for its agent's task. */
function resolveId(input: TaskStopInput, context: ToolUseContext): string | undefined {
  const id = taskIdOf(input);
  if (id === undefined || getTaskRegistry(context).get(id) !== undefined) return id;
  const member = currentTeam(context)?.members.get(id);
  return member && member.status !== 'ended' ? member.agentId : id;
}

function validate(input: TaskStopInput, context: ToolUseContext): ValidationResult {
  const id = resolveId(input, context);
  if (id === undefined) return { result: false, message: 'Give the ID of the task to stop in task_id.', errorCode: 1 };
  const task = getTaskRegistry(context).get(id);
  if (task === undefined) return { result: false, message: `No task found with ID: ${id}`, errorCode: 2 };
  if (task.status !== 'running') {
    const how = task.summary !== undefined ? `, ${task.summary}` : '';
    return { result: false, message: `Task ${id} is not running (status: ${task.status}${how}).`, errorCode: 3 };
  }
  return { result: true };
}

export const TaskStopTool = buildTool<typeof taskStopInputSchema, TaskStopData>({
  name: TASK_STOP_TOOL_NAME,
  aliases: ['KillShell', 'KillBash'],
  searchHint: 'stop kill background task',
  inputSchema: taskStopInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => taskStopPrompt(),
  validateInput: async (input, context) => validate(input, context),
  call: async (input, context) => {
    const check = validate(input, context);
    if (!check.result) throw new Error(check.message);
    const id = resolveId(input, context)!;
    const task = await getTaskRegistry(context).stop(id);
    if (task === undefined) throw new Error(`No task found with ID: ${id}`);
    return {
      data: {
        message: `Successfully stopped task: ${id} (${task.label})`,
        task_id: id,
        task_type: task.type,
        label: task.label,
        status: task.status,
        ...(task.summary !== undefined ? { summary: task.summary } : {}),
      },
    };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: data.message }),
  renderToolUseMessage: (input) => taskIdOf(input as TaskStopInput) ?? '',
  renderToolResultMessage: (data) => data.message,
  loadViews: () => import('./render.js').then((m) => m.taskStopViews),
});
