/**
 * TaskOutput: a background task's state and latest output, optionally waiting for it to end. The state is the
 * registry's (from the process itself); the output is read back from the task's file, bounded to the Bash inline size.
 */
import { z } from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { inlineOutputChars } from '../bash/bash-settings.js';
import { collapseCarriageReturns, readOutputTail } from '../bash/output-file.js';
import { getTaskRegistry, type TaskInfo, type TaskStatus } from '../bash/task-registry.js';
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, TASK_OUTPUT_TOOL_NAME, taskOutputPrompt } from './prompt.js';

export const taskOutputInputSchema = z.object({
  task_id: z.string().describe('The task ID to get output from'),
  block: z.boolean().optional().describe('Whether to wait for the task to end (default true)'),
  timeout: z.number().optional().describe(`Max wait time in ms (default ${DEFAULT_WAIT_MS}, max ${MAX_WAIT_MS})`),
});

export type TaskOutputInput = z.infer<typeof taskOutputInputSchema>;

export interface TaskOutputData {
  /** `success`: the task has ended; `timeout`: still running after the wait; `not_ready`: still running, no wait. */
  readonly retrieval_status: 'success' | 'timeout' | 'not_ready';
  readonly task: {
    readonly task_id: string;
    readonly task_type: 'local_bash';
    readonly status: TaskStatus;
    readonly command: string;
    readonly description?: string;
    readonly exit_code: number | null;
    readonly signal: string | null;
    readonly kill_reason?: string;
    readonly output: string;
    readonly output_file: string;
    /** True when `output` is only the end of the file. */
    readonly truncated: boolean;
    readonly output_bytes: number;
  };
}

function describeTask(task: TaskInfo, context: ToolUseContext, retrieval: TaskOutputData['retrieval_status']): TaskOutputData {
  const limit = inlineOutputChars(context.options.settings);
  const tail = readOutputTail(task.outputFile, limit * 4);
  const text = collapseCarriageReturns(tail.text);
  const output = text.length > limit ? text.slice(-limit) : text;
  return {
    retrieval_status: retrieval,
    task: {
      task_id: task.id,
      task_type: task.type,
      status: task.status,
      command: task.command,
      description: task.description,
      exit_code: task.exitCode,
      signal: task.signal,
      kill_reason: task.killReason,
      output,
      output_file: task.outputFile,
      truncated: !tail.complete || output.length < text.length,
      output_bytes: tail.sizeBytes,
    },
  };
}

export const TaskOutputTool = buildTool<typeof taskOutputInputSchema, TaskOutputData>({
  name: TASK_OUTPUT_TOOL_NAME,
  searchHint: 'read background task output',
  inputSchema: taskOutputInputSchema,
  maxResultSizeChars: 100_000,
  prompt: async () => taskOutputPrompt(),
  description: async (input) => `Read output of task ${input.task_id}`,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  validateInput: async (input, context) => {
    if (input.timeout !== undefined && (!Number.isFinite(input.timeout) || input.timeout < 0 || input.timeout > MAX_WAIT_MS)) {
      return { result: false, message: `timeout must be between 0 and ${MAX_WAIT_MS} ms (got ${input.timeout}).`, errorCode: 1 };
    }
    if (getTaskRegistry(context).get(input.task_id) === undefined) {
      return { result: false, message: `No task found with ID: ${input.task_id}`, errorCode: 2 };
    }
    return { result: true };
  },
  call: async (input, context) => {
    const registry = getTaskRegistry(context);
    const current = registry.get(input.task_id);
    if (current === undefined) throw new Error(`No task found with ID: ${input.task_id}`);
    if (current.status !== 'running') return { data: describeTask(current, context, 'success') };
    if (input.block === false) return { data: describeTask(current, context, 'not_ready') };
    const after = await registry.wait(input.task_id, {
      timeoutMs: input.timeout ?? DEFAULT_WAIT_MS,
      signal: context.abortController.signal,
    });
    const task = after ?? current;
    return { data: describeTask(task, context, task.status === 'running' ? 'timeout' : 'success') };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => {
    const t = data.task;
    const lines = [
      `<retrieval_status>${data.retrieval_status}</retrieval_status>`,
      `<task_id>${t.task_id}</task_id>`,
      `<task_type>${t.task_type}</task_type>`,
      `<status>${t.status}</status>`,
      ...(t.exit_code !== null ? [`<exit_code>${t.exit_code}</exit_code>`] : []),
      ...(t.signal !== null ? [`<signal>${t.signal}</signal>`] : []),
      ...(t.kill_reason !== undefined ? [`<kill_reason>${t.kill_reason}</kill_reason>`] : []),
      `<output_file>${t.output_file}</output_file>`,
    ];
    if (t.truncated) lines.push(`[showing the last ${t.output.length} characters of ${t.output_bytes} bytes; the full output is in the file]`);
    lines.push('<output>', t.output.trimEnd(), '</output>');
    return { type: 'tool_result', tool_use_id: toolUseId, content: lines.join('\n') };
  },
  renderToolUseMessage: (input) => `${input.task_id ?? ''}${input.block === false ? ' (no wait)' : ''}`,
  renderToolResultMessage: (data) => `${data.task.task_id}: ${data.task.status}`,
  loadViews: () => import('./render.js').then((m) => m.taskOutputViews),
});
