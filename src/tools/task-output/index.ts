/**
 * TaskOutput: a background task's state and latest output, optionally waiting for it to end — any kind of task (a
 * shell command, a sub-agent). The state is the registry's (from the task itself); the output is what the task's
 * kind shows of it (a command's file tail, an agent's progress log), bounded by that kind.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import { getTaskRegistry, type TaskFacts, type TaskInfo, type TaskRegistry, type TaskStatus } from '../shared/task-registry.js';
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, TASK_OUTPUT_TOOL_NAME, taskOutputPrompt } from './prompt.js';

export const taskOutputInputSchema = z.strictObject({
  task_id: z.string().describe('The task ID to get output from'),
  block: z.boolean().optional().describe('Whether to wait for the task to end (default true)'),
  timeout: z.number().optional().describe(`Max wait time in ms (default ${DEFAULT_WAIT_MS}, max ${MAX_WAIT_MS})`),
});

export type TaskOutputInput = z.infer<typeof taskOutputInputSchema>;

export interface TaskOutputData {
  /** `success`: the task has ended; `timeout`: still running after the wait; `not_ready`: still running, no wait. */
  readonly retrieval_status: 'success' | 'timeout' | 'not_ready';
  /** The common fields, after the facts of the task's kind (a shell's `command`, `exit_code`, `signal`; an agent's `agent_id`…). */
  readonly task: TaskFacts & {
    readonly task_id: string;
    /** `local_bash`, `local_agent`, … */
    readonly task_type: string;
    readonly status: TaskStatus;
    readonly description?: string;
    /** How it ended, in its kind's words (`exit code 2`). */
    readonly summary?: string;
    readonly kill_reason?: string;
    readonly output: string;
    readonly output_file: string;
    /** True when `output` is only the end of it. */
    readonly truncated: boolean;
    readonly output_bytes: number;
  };
}

/** Facts that say the same as a common field and are not repeated in the model's text. */
const COMMON = new Set(['task_id', 'task_type', 'status', 'description', 'summary', 'kill_reason', 'output', 'output_file', 'truncated', 'output_bytes']);

function describeTask(task: TaskInfo, registry: TaskRegistry, retrieval: TaskOutputData['retrieval_status']): TaskOutputData {
  const out = registry.readOutput(task.id) ?? { text: '', truncated: false, sizeBytes: 0 };
  return {
    retrieval_status: retrieval,
    task: {
      ...task.facts,
      task_id: task.id,
      task_type: task.type,
      status: task.status,
      ...(task.description !== undefined ? { description: task.description } : {}),
      ...(task.summary !== undefined ? { summary: task.summary } : {}),
      ...(task.killReason !== undefined ? { kill_reason: task.killReason } : {}),
      output: out.text,
      output_file: task.outputFile,
      truncated: out.truncated,
      output_bytes: out.sizeBytes,
    },
  };
}

export const TaskOutputTool = buildTool<typeof taskOutputInputSchema, TaskOutputData>({
  name: TASK_OUTPUT_TOOL_NAME,
  searchHint: 'read background task output',
  inputSchema: taskOutputInputSchema,
  maxResultSizeChars: 100_000,
  prompt: async () => taskOutputPrompt(),
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
    if (current.status !== 'running') return { data: describeTask(current, registry, 'success') };
    if (input.block === false) return { data: describeTask(current, registry, 'not_ready') };
    const after = await registry.wait(input.task_id, {
      timeoutMs: input.timeout ?? DEFAULT_WAIT_MS,
      signal: context.abortController.signal,
    });
    const task = after ?? current;
    return { data: describeTask(task, registry, task.status === 'running' ? 'timeout' : 'success') };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => {
    const t = data.task;
    const facts = Object.entries(t).filter(([name, value]) => !COMMON.has(name) && value !== null && value !== undefined && value !== '');
    const lines = [
      `<retrieval_status>${data.retrieval_status}</retrieval_status>`,
      `<task_id>${t.task_id}</task_id>`,
      `<task_type>${t.task_type}</task_type>`,
      `<status>${t.status}</status>`,
      ...(t.description !== undefined ? [`<description>${t.description}</description>`] : []),
      ...facts.map(([name, value]) => `<${name}>${String(value)}</${name}>`),
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
