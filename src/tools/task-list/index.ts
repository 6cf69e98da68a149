/**
 * Claude Code 2.1.328's task list tools — TaskCreate, TaskGet, TaskUpdate, TaskList — over the session's one list
 * (store.ts), which an agent team shares. They change only the session's own state: read-only for permissions and plan
 * mode, no prompt, deferred, and `asyncSafe`, since teammates (background agents) work from the list.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { currentTeam, senderOf } from '../shared/team.js';
import * as P from './prompt.js';
import { openBlockers, removeTask, saveTaskList, taskListOf, type TaskItem, type TaskItemStatus } from './store.js';

const metadata = z.record(z.string(), z.unknown());
const status = z.enum(['pending', 'in_progress', 'completed']);

export const taskCreateInputSchema = z.strictObject({
  subject: z.string().min(1).describe('A brief title for the task'),
  description: z.string().describe('What needs to be done'),
  activeForm: z.string().optional().describe('Present continuous form shown while in progress (e.g., "Running tests")'),
  metadata: metadata.optional().describe('Arbitrary metadata to attach to the task'),
});
export const taskGetInputSchema = z.strictObject({ taskId: z.string().min(1).describe('The ID of the task to retrieve') });
export const taskUpdateInputSchema = z.strictObject({
  taskId: z.string().min(1).describe('The ID of the task to update'),
  subject: z.string().min(1).optional().describe('New subject for the task'),
  description: z.string().optional().describe('New description for the task'),
  activeForm: z.string().optional().describe('Present continuous form shown while in progress'),
  status: z.union([status, z.literal('deleted')]).optional().describe('New status for the task ("deleted" removes it)'),
  addBlocks: z.array(z.string()).optional().describe('Task IDs that this task blocks'),
  addBlockedBy: z.array(z.string()).optional().describe('Task IDs that block this task'),
  owner: z.string().optional().describe('New owner for the task'),
  metadata: metadata.optional().describe('Metadata keys to merge into the task; a key set to null is deleted'),
});
export const taskListInputSchema = z.strictObject({});

export interface TaskCreateOutput {
  readonly task: { readonly id: string; readonly subject: string; readonly description: string };
}
export interface TaskGetOutput {
  readonly task: { id: string; subject: string; description: string; status: TaskItemStatus; owner?: string; blocks: string[]; blockedBy: string[] } | null;
}
export interface TaskUpdateOutput {
  readonly success: boolean;
  readonly taskId: string;
  readonly updatedFields: string[];
  readonly error?: string;
  readonly statusChange?: { readonly from: string; readonly to: string };
}
export interface TaskListOutput {
  readonly tasks: { id: string; subject: string; status: TaskItemStatus; owner?: string; blockedBy: string[] }[];
}

const common = { maxResultSizeChars: 100_000, shouldDefer: true, asyncSafe: true, isReadOnly: () => true } as const;
const json = (value: unknown, toolUseId: string) => ({ type: 'tool_result' as const, tool_use_id: toolUseId, content: JSON.stringify(value) });

export const TaskCreateTool = buildTool<typeof taskCreateInputSchema, TaskCreateOutput>({
  ...common,
  name: P.TASK_CREATE_TOOL_NAME,
  searchHint: 'task list add todo team work item',
  inputSchema: taskCreateInputSchema,
  prompt: async () => P.taskCreatePrompt(),
  toAutoClassifierInput: (input) => input.subject,
  async call(input, context) {
    const list = taskListOf(context);
    const id = String(list.nextId++);
    const item: TaskItem = { id, subject: input.subject, description: input.description, status: 'pending', blocks: new Set(), blockedBy: new Set(), metadata: { ...input.metadata } };
    if (input.activeForm !== undefined) item.activeForm = input.activeForm;
    list.items.set(id, item);
    await saveTaskList(list);
    return { data: { task: { id, subject: item.subject, description: item.description } } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: `Task #${data.task.id} created: ${data.task.subject}` }),
  renderToolUseMessage: (input) => input.subject ?? '',
  renderToolResultMessage: (data) => `#${data.task.id} ${data.task.subject}`,
});

export const TaskGetTool = buildTool<typeof taskGetInputSchema, TaskGetOutput>({
  ...common,
  name: P.TASK_GET_TOOL_NAME,
  searchHint: 'task list read one task',
  inputSchema: taskGetInputSchema,
  isConcurrencySafe: () => true,
  prompt: async () => P.taskGetPrompt(),
  toAutoClassifierInput: (input) => input.taskId,
  async call(input, context) {
    const item = taskListOf(context).items.get(input.taskId);
    if (!item) return { data: { task: null } };
    const { id, subject, description, status: s, owner } = item;
    return { data: { task: { id, subject, description, status: s, ...(owner !== undefined ? { owner } : {}), blocks: [...item.blocks], blockedBy: [...item.blockedBy] } } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => (data.task ? json(data.task, toolUseId) : { type: 'tool_result', tool_use_id: toolUseId, content: 'Task not found' }),
  renderToolUseMessage: (input) => `#${input.taskId ?? ''}`,
});

function update(input: z.infer<typeof taskUpdateInputSchema>, context: ToolUseContext): TaskUpdateOutput {
  const list = taskListOf(context);
  const item = list.items.get(input.taskId);
  const failed = (error: string): TaskUpdateOutput => ({ success: false, taskId: input.taskId, updatedFields: [], error });
  if (!item) return failed(`Task not found: ${input.taskId}`);
  const links = [...(input.addBlocks ?? []), ...(input.addBlockedBy ?? [])];
  const unknown = links.filter((id) => !list.items.has(id) || id === item.id);
  if (unknown.length > 0) return failed(`Not a task this one can depend on: ${unknown.join(', ')}`);
  if (input.status === 'deleted') {
    removeTask(list, item.id);
    return { success: true, taskId: item.id, updatedFields: ['deleted'], statusChange: { from: item.status, to: 'deleted' } };
  }
  const fields: string[] = [];
  const from = item.status;
  if (input.subject !== undefined) {
    item.subject = input.subject;
    fields.push('subject');
  }
  if (input.description !== undefined) {
    item.description = input.description;
    fields.push('description');
  }
  if (input.activeForm !== undefined) {
    item.activeForm = input.activeForm;
    fields.push('activeForm');
  }
  if (input.status !== undefined) {
    item.status = input.status;
    fields.push('status');
  }
  const team = currentTeam(context);
  const claimant = input.status === 'in_progress' && item.owner === undefined && team ? senderOf(context, team) : undefined;
  const owner = input.owner ?? claimant;
  if (owner !== undefined) {
    item.owner = owner;
    fields.push('owner');
  }
  for (const id of input.addBlocks ?? []) {
    item.blocks.add(id);
    list.items.get(id)!.blockedBy.add(item.id);
  }
  for (const id of input.addBlockedBy ?? []) {
    item.blockedBy.add(id);
    list.items.get(id)!.blocks.add(item.id);
  }
  if (input.addBlocks?.length) fields.push('blocks');
  if (input.addBlockedBy?.length) fields.push('blockedBy');
  if (input.metadata !== undefined) {
    for (const [k, v] of Object.entries(input.metadata)) {
      if (v === null) delete item.metadata[k];
      else item.metadata[k] = v;
    }
    fields.push('metadata');
  }
  return { success: true, taskId: item.id, updatedFields: fields, ...(input.status !== undefined && input.status !== from ? { statusChange: { from, to: input.status } } : {}) };
}

export const TaskUpdateTool = buildTool<typeof taskUpdateInputSchema, TaskUpdateOutput>({
  ...common,
  name: P.TASK_UPDATE_TOOL_NAME,
  searchHint: 'task list update status owner claim complete',
  inputSchema: taskUpdateInputSchema,
  prompt: async () => P.taskUpdatePrompt(),
  toAutoClassifierInput: (input) => `#${input.taskId}${input.status ? ` ${input.status}` : ''}`,
  async call(input, context) {
    const data = update(input, context);
    if (data.success) await saveTaskList(taskListOf(context));
    return { data };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: data.success ? `Updated task #${data.taskId}: ${data.updatedFields.join(', ') || 'nothing'}` : (data.error ?? 'not updated'),
    ...(data.success ? {} : { is_error: true }),
  }),
  renderToolUseMessage: (input) => `#${input.taskId ?? ''}${input.status ? ` → ${input.status}` : ''}`,
});

export const TaskListTool = buildTool<typeof taskListInputSchema, TaskListOutput>({
  ...common,
  name: P.TASK_LIST_TOOL_NAME,
  searchHint: 'task list show all tasks team',
  inputSchema: taskListInputSchema,
  isConcurrencySafe: () => true,
  prompt: async () => P.taskListPrompt(),
  toAutoClassifierInput: () => '',
  async call(_input, context) {
    const list = taskListOf(context);
    const tasks = [...list.items.values()].map((t) => ({ id: t.id, subject: t.subject, status: t.status, ...(t.owner !== undefined ? { owner: t.owner } : {}), blockedBy: openBlockers(list, t) }));
    return { data: { tasks } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content:
      data.tasks.length === 0
        ? 'No tasks.'
        : data.tasks.map((t) => `#${t.id} [${t.status}] ${t.subject}${t.owner ? ` (owner: ${t.owner})` : ''}${t.blockedBy.length ? ` (blocked by ${t.blockedBy.map((b) => `#${b}`).join(', ')})` : ''}`).join('\n'),
  }),
  renderToolUseMessage: () => '',
  renderToolResultMessage: (data) => `${data.tasks.length} tasks`,
});
