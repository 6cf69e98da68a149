/**
 * `getAllBaseTools()`: every built-in tool that could exist in this process, in a deliberate order (the tools a
 * coding agent reaches for most come first). Each entry loads its module lazily: a tool whose gate is closed is
 * never imported, so a disabled tool costs nothing at start-up.
 */
import type { AnyTool, Tools } from '../tool/tool.js';

export interface BaseToolEntry {
  readonly name: string;
  /** Included only when this returns true (a flag or an environment variable); always included when absent. */
  readonly gate?: (env: NodeJS.ProcessEnv) => boolean;
  readonly load: () => Promise<AnyTool>;
}

/** The catalogue. Built-in tools add themselves here as they land. */
export const BASE_TOOL_ENTRIES: readonly BaseToolEntry[] = [
  { name: 'TaskOutput', load: () => import('../tools/task-output/index.js').then((m) => m.TaskOutputTool) },
  { name: 'Bash', load: () => import('../tools/bash/index.js').then((m) => m.BashTool) },
  { name: 'Glob', load: () => import('../tools/glob/index.js').then((m) => m.GlobTool) },
  { name: 'Grep', load: () => import('../tools/grep/index.js').then((m) => m.GrepTool) },
  { name: 'Read', load: () => import('../tools/read/index.js').then((m) => m.ReadTool) },
  { name: 'Edit', load: () => import('../tools/edit/index.js').then((m) => m.EditTool) },
  { name: 'Write', load: () => import('../tools/write/index.js').then((m) => m.WriteTool) },
  { name: 'NotebookEdit', load: () => import('../tools/notebook-edit/index.js').then((m) => m.NotebookEditTool) },
  { name: 'Agent', load: () => import('../tools/agent/index.js').then((m) => m.AgentTool) },
  { name: 'TodoWrite', load: () => import('../tools/todo-write/index.js').then((m) => m.TodoWriteTool) },
  { name: 'AskUserQuestion', load: () => import('../tools/ask-user-question/index.js').then((m) => m.AskUserQuestionTool) },
  { name: 'EnterPlanMode', load: () => import('../tools/plan-mode/index.js').then((m) => m.EnterPlanModeTool) },
  { name: 'ExitPlanMode', load: () => import('../tools/plan-mode/index.js').then((m) => m.ExitPlanModeTool) },
  { name: 'WebFetch', load: () => import('../tools/web-fetch/index.js').then((m) => m.WebFetchTool) },
  { name: 'WebSearch', load: () => import('../tools/web-search/index.js').then((m) => m.WebSearchTool) },
  { name: 'ToolSearch', load: () => import('../tools/tool-search/index.js').then((m) => m.ToolSearchTool) },
  { name: 'TaskStop', load: () => import('../tools/task-stop/index.js').then((m) => m.TaskStopTool) },
  { name: 'EnterWorktree', load: () => import('../tools/worktree/index.js').then((m) => m.EnterWorktreeTool) },
  { name: 'ExitWorktree', load: () => import('../tools/worktree/index.js').then((m) => m.ExitWorktreeTool) },
  { name: 'CronCreate', load: () => import('../tools/cron/index.js').then((m) => m.CronCreateTool) },
  { name: 'CronList', load: () => import('../tools/cron/index.js').then((m) => m.CronListTool) },
  { name: 'CronDelete', load: () => import('../tools/cron/index.js').then((m) => m.CronDeleteTool) },
  { name: 'LSP', load: () => import('../tools/lsp/index.js').then((m) => m.LspTool) },
  { name: 'Monitor', load: () => import('../tools/monitor/index.js').then((m) => m.MonitorTool) },
  { name: 'ScheduleWakeup', load: () => import('../tools/schedule-wakeup/index.js').then((m) => m.ScheduleWakeupTool) },
  { name: 'SendMessage', load: () => import('../tools/send-message/index.js').then((m) => m.SendMessageTool) },
  { name: 'TeamCreate', load: () => import('../tools/team-create/index.js').then((m) => m.TeamCreateTool) },
  { name: 'TeamDelete', load: () => import('../tools/team-delete/index.js').then((m) => m.TeamDeleteTool) },
  { name: 'TaskCreate', load: () => import('../tools/task-list/index.js').then((m) => m.TaskCreateTool) },
  { name: 'TaskGet', load: () => import('../tools/task-list/index.js').then((m) => m.TaskGetTool) },
  { name: 'TaskUpdate', load: () => import('../tools/task-list/index.js').then((m) => m.TaskUpdateTool) },
  { name: 'TaskList', load: () => import('../tools/task-list/index.js').then((m) => m.TaskListTool) },
];

/**
 * Each entry's loaded module, by the entry itself: an embedder's catalogue (`entries`) may name its own tool as a
 * built-in is named, and a memo by name gave whichever loaded first to both (docs/security.md).
 */
const loaded = new WeakMap<BaseToolEntry, Promise<AnyTool>>();

function load(entry: BaseToolEntry): Promise<AnyTool> {
  let promise = loaded.get(entry);
  if (!promise) {
    promise = entry.load();
    loaded.set(entry, promise);
    // A failed import must not stay cached: the next call tries again and reports the real error.
    promise.catch(() => loaded.delete(entry));
  }
  return promise;
}

export interface GetAllBaseToolsOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Replaces the catalogue (tests, embedders with their own built-ins). */
  readonly entries?: readonly BaseToolEntry[];
}

/**
 * The list per catalogue and open set, kept: the pool is assembled again between turns, and a Promise.all over the
 * catalogue's loads each time made a promise per tool for a list that had not changed. Callers copy it (it is
 * readonly). A failed load is not kept, as in `load`.
 */
const lists = new WeakMap<readonly BaseToolEntry[], Map<string, Promise<Tools>>>();

export function getAllBaseTools(options: GetAllBaseToolsOptions = {}): Promise<Tools> {
  const env = options.env ?? process.env;
  const catalogue = options.entries ?? BASE_TOOL_ENTRIES;
  const entries = catalogue.filter((entry) => entry.gate?.(env) ?? true);
  let byOpenSet = lists.get(catalogue);
  if (!byOpenSet) lists.set(catalogue, (byOpenSet = new Map()));
  const key = entries.map((e) => e.name).join('\u0000');
  let list = byOpenSet.get(key);
  if (!list) {
    list = Promise.all(entries.map(load));
    byOpenSet.set(key, list);
    const kept = list;
    list.catch(() => byOpenSet.get(key) === kept && byOpenSet.delete(key));
  }
  return list;
}

/**
 * One built-in by its name (loading only that tool's module), or undefined when no open entry has that name. For
 * callers that need a single tool, such as `toolgate check`, whose start-up would otherwise pay for every module.
 */
export async function loadBaseTool(name: string, options: GetAllBaseToolsOptions = {}): Promise<AnyTool | undefined> {
  const env = options.env ?? process.env;
  const entry = (options.entries ?? BASE_TOOL_ENTRIES).find((e) => e.name === name && (e.gate?.(env) ?? true));
  return entry ? load(entry) : undefined;
}
