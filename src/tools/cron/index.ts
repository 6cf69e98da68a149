/**
 * CronCreate, CronList, CronDelete: prompts scheduled with cron syntax, with Claude Code's input and output shapes.
 * The scheduling itself is `scheduler.ts`; the project file `durable-file.ts`. An in-memory task changes nothing
 * outside the session, so it needs no permission (read-only); a durable one writes `.claude/scheduled_tasks.json` and
 * is judged as a write (a person is asked unless a rule allows CronCreate). Deleting only narrows what runs.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import type { ValidationResult } from '../../tool/tool.js';
import { CronSyntaxError, nextFireAfter, parseCron } from './cron-expression.js';
import { CRON_CREATE_TOOL_NAME, CRON_DELETE_TOOL_NAME, CRON_LIST_TOOL_NAME, cronCreatePrompt, cronDeletePrompt, cronListPrompt } from './prompt.js';
import { cronSchedulerFor, type CronJob } from './scheduler.js';

export const cronCreateInputSchema = z.strictObject({
  cron: z.string().describe('5-field cron expression in local time: "M H DoM Mon DoW" (e.g. "*/5 * * * *")'),
  prompt: z.string().describe('The prompt to give back at each fire time'),
  recurring: z.boolean().optional().describe('true (default): fire at every match until deleted or expired after 7 days; false: fire once at the next match, then delete'),
  durable: z.boolean().optional().describe("true: also keep it in the project's .claude/scheduled_tasks.json so later sessions restore it; false (default): this session only"),
});
export type CronCreateInput = z.infer<typeof cronCreateInputSchema>;

export interface CronCreateOutput {
  readonly id: string;
  readonly humanSchedule: string;
  readonly recurring: boolean;
  readonly durable?: boolean;
  readonly nextFireAt?: number;
}

export const cronDeleteInputSchema = z.strictObject({ id: z.string().describe('The task ID CronCreate returned') });
export type CronDeleteInput = z.infer<typeof cronDeleteInputSchema>;
export interface CronDeleteOutput {
  readonly id: string;
}

export const cronListInputSchema = z.strictObject({});
export type CronListInput = z.infer<typeof cronListInputSchema>;
export interface CronListOutput {
  readonly jobs: readonly Omit<CronJob, 'createdAt' | 'lastFiredAt' | 'restored'>[];
}

function mainThreadOnly(context: ToolUseContext): ValidationResult {
  if (context.agentDepth > 0) return { result: false, message: 'Scheduled tasks belong to the main session; a sub-agent cannot make or delete them.', errorCode: 1 };
  return { result: true };
}

function validateCreate(input: CronCreateInput, context: ToolUseContext): ValidationResult {
  const thread = mainThreadOnly(context);
  if (!thread.result) return thread;
  if (input.prompt.trim() === '') return { result: false, message: 'prompt must not be empty.', errorCode: 2 };
  try {
    const schedule = parseCron(input.cron);
    if (nextFireAfter(schedule, new Date()) === undefined) return { result: false, message: `"${input.cron}" never matches a date in the next five years.`, errorCode: 3 };
  } catch (error) {
    if (error instanceof CronSyntaxError) return { result: false, message: `Invalid cron expression: ${error.message}`, errorCode: 3 };
    throw error;
  }
  return { result: true };
}

const when = (ms: number | undefined) => (ms === undefined ? 'not again' : new Date(ms).toString());

export const CronCreateTool = buildTool<typeof cronCreateInputSchema, CronCreateOutput>({
  name: CRON_CREATE_TOOL_NAME,
  searchHint: 'schedule a recurring or one-shot prompt with cron syntax',
  inputSchema: cronCreateInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => cronCreatePrompt(),
  isReadOnly: (input) => input.durable !== true,
  toAutoClassifierInput: (input) => `${input.cron}${input.durable ? ' durable' : ''}: ${input.prompt}`,
  validateInput: async (input, context) => validateCreate(input, context),
  call: async (input, context) => {
    const check = validateCreate(input, context);
    if (!check.result) throw new Error(check.message);
    const job = await cronSchedulerFor(context).create({ cron: input.cron, prompt: input.prompt, recurring: input.recurring ?? true, durable: input.durable ?? false });
    return {
      data: { id: job.id, humanSchedule: job.humanSchedule, recurring: job.recurring, ...(job.durable ? { durable: true } : {}), ...(job.nextFireAt !== undefined ? { nextFireAt: job.nextFireAt } : {}) },
    };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: `Scheduled task ${data.id}: ${data.humanSchedule}, ${data.recurring ? 'recurring (expires after 7 days)' : 'one-shot'}${data.durable ? ', durable (kept in .claude/scheduled_tasks.json)' : ', this session only'}. Next fire: ${when(data.nextFireAt)}.`,
  }),
  renderToolUseMessage: (input) => `${input.cron ?? ''}${input.durable ? ' (durable)' : ''}`,
  renderToolResultMessage: (data) => `${data.id}: ${data.humanSchedule}`,
  loadViews: () => import('./render.js').then((m) => m.cronCreateViews),
});

export const CronListTool = buildTool<typeof cronListInputSchema, CronListOutput>({
  name: CRON_LIST_TOOL_NAME,
  searchHint: 'list scheduled cron tasks',
  inputSchema: cronListInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => cronListPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: async (_input, context) => ({
    data: { jobs: cronSchedulerFor(context).list().map(({ createdAt: _c, lastFiredAt: _l, restored: _r, ...job }) => job) },
  }),
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content:
      data.jobs.length === 0
        ? 'No scheduled tasks.'
        : data.jobs
            .map((j) => `${j.id}  ${j.cron}  (${j.humanSchedule}; ${j.recurring ? 'recurring' : 'one-shot'}${j.durable ? ', durable' : ''}; next: ${when(j.nextFireAt)})\n  ${j.prompt}`)
            .join('\n'),
  }),
  renderToolUseMessage: () => '',
  renderToolResultMessage: (data) => `${data.jobs.length} scheduled task${data.jobs.length === 1 ? '' : 's'}`,
  loadViews: () => import('./render.js').then((m) => m.cronListViews),
});

export const CronDeleteTool = buildTool<typeof cronDeleteInputSchema, CronDeleteOutput>({
  name: CRON_DELETE_TOOL_NAME,
  searchHint: 'cancel delete a scheduled cron task',
  inputSchema: cronDeleteInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => cronDeletePrompt(),
  // It only takes away a prompt that would have run: nothing it does needs a person's yes.
  isReadOnly: () => true,
  validateInput: async (input, context) => {
    const thread = mainThreadOnly(context);
    if (!thread.result) return thread;
    if (cronSchedulerFor(context).get(input.id) === undefined) return { result: false, message: `No scheduled task with ID ${input.id} (CronList shows them).`, errorCode: 2 };
    return { result: true };
  },
  call: async (input, context) => {
    if (!(await cronSchedulerFor(context).delete(input.id))) throw new Error(`No scheduled task with ID ${input.id} (CronList shows them).`);
    return { data: { id: input.id } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: `Deleted scheduled task ${data.id}.` }),
  renderToolUseMessage: (input) => input.id ?? '',
  renderToolResultMessage: (data) => `Deleted ${data.id}`,
  loadViews: () => import('./render.js').then((m) => m.cronDeleteViews),
});
