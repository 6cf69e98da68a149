/**
 * `getAllBaseTools()`: every built-in tool that could exist in this process, in a deliberate order (the tools a
 * coding agent reaches for most come first). Each entry loads its module lazily: a tool whose gate is closed is
 * never imported, so a disabled tool costs nothing at start-up.
 */
import type { AnyTool, Tools } from '../tool/tool.js';
import { lazyTool, type Describe } from './lazy-tool.js';
import { toolManifest } from './tool-manifest.js';

export interface BaseToolEntry {
  readonly name: string;
  /** Included only when this returns true (a flag or an environment variable); always included when absent. */
  readonly gate?: (env: NodeJS.ProcessEnv) => boolean;
  readonly load: () => Promise<AnyTool>;
  /**
   * The tool's prompt from its prompt module, without the tool's module: the same call its `prompt()` makes
   * (tool-manifest.test.ts checks the two agree). Absent: the description needs the module.
   */
  readonly describe?: () => Promise<Describe>;
}

/** The catalogue. Built-in tools add themselves here as they land. */
export const BASE_TOOL_ENTRIES: readonly BaseToolEntry[] = [
  { name: 'TaskOutput', load: () => import('../tools/task-output/index.js').then((m) => m.TaskOutputTool), describe: () => import('../tools/task-output/prompt.js').then((m): Describe => async () => m.taskOutputPrompt()) },
  { name: 'Bash', load: () => import('../tools/bash/index.js').then((m) => m.BashTool), describe: () => import('../tools/bash/prompt.js').then((m): Describe => async (o) => m.bashPrompt({ persistEnvironment: o.settings?.bash?.persistEnvironment !== false })) },
  { name: 'Glob', load: () => import('../tools/glob/index.js').then((m) => m.GlobTool), describe: () => import('../tools/glob/prompt.js').then((m): Describe => async (o) => m.globPrompt(o.tools)) },
  { name: 'Grep', load: () => import('../tools/grep/index.js').then((m) => m.GrepTool), describe: () => import('../tools/grep/prompt.js').then((m): Describe => async (o) => m.grepPrompt(o.tools)) },
  { name: 'Read', load: () => import('../tools/read/index.js').then((m) => m.ReadTool), describe: () => Promise.all([import('../tools/read/prompt.js'), import('../tools/read/limits.js')]).then(([m, l]): Describe => async () => m.readPrompt(l.maxReadTokens())) },
  { name: 'Edit', load: () => import('../tools/edit/index.js').then((m) => m.EditTool), describe: () => import('../tools/edit/prompt.js').then((m): Describe => async () => m.editPrompt()) },
  { name: 'Write', load: () => import('../tools/write/index.js').then((m) => m.WriteTool), describe: () => import('../tools/write/prompt.js').then((m): Describe => async () => m.writePrompt()) },
  { name: 'NotebookEdit', load: () => import('../tools/notebook-edit/index.js').then((m) => m.NotebookEditTool), describe: () => import('../tools/notebook-edit/prompt.js').then((m): Describe => async () => m.notebookEditPrompt()) },
  { name: 'Agent', load: () => import('../tools/agent/index.js').then((m) => m.AgentTool), describe: () => import('../tools/agent/definitions-for.js').then((m): Describe => async (o) => m.agentToolPrompt(o)) },
  { name: 'TodoWrite', load: () => import('../tools/todo-write/index.js').then((m) => m.TodoWriteTool), describe: () => import('../tools/todo-write/prompt.js').then((m): Describe => async () => m.todoWritePrompt()) },
  { name: 'AskUserQuestion', load: () => import('../tools/ask-user-question/index.js').then((m) => m.AskUserQuestionTool), describe: () => import('../tools/ask-user-question/prompt.js').then((m): Describe => async () => m.askUserQuestionPrompt()) },
  { name: 'EnterPlanMode', load: () => import('../tools/plan-mode/index.js').then((m) => m.EnterPlanModeTool), describe: () => import('../tools/plan-mode/prompt.js').then((m): Describe => async () => m.enterPlanModePrompt()) },
  { name: 'ExitPlanMode', load: () => import('../tools/plan-mode/index.js').then((m) => m.ExitPlanModeTool), describe: () => import('../tools/plan-mode/prompt.js').then((m): Describe => async () => m.exitPlanModePrompt()) },
  { name: 'WebFetch', load: () => import('../tools/web-fetch/index.js').then((m) => m.WebFetchTool), describe: () => import('../tools/web-fetch/prompt.js').then((m): Describe => async () => m.webFetchPrompt()) },
  { name: 'WebSearch', load: () => import('../tools/web-search/index.js').then((m) => m.WebSearchTool), describe: () => import('../tools/web-search/prompt.js').then((m): Describe => async () => m.webSearchPrompt()) },
  { name: 'ToolSearch', load: () => import('../tools/tool-search/index.js').then((m) => m.ToolSearchTool), describe: () => import('../tools/tool-search/prompt.js').then((m): Describe => async () => m.toolSearchPrompt()) },
  { name: 'TaskStop', load: () => import('../tools/task-stop/index.js').then((m) => m.TaskStopTool), describe: () => import('../tools/task-stop/prompt.js').then((m): Describe => async () => m.taskStopPrompt()) },
  { name: 'EnterWorktree', load: () => import('../tools/worktree/index.js').then((m) => m.EnterWorktreeTool), describe: () => import('../tools/worktree/prompt.js').then((m): Describe => async () => m.enterWorktreePrompt()) },
  { name: 'ExitWorktree', load: () => import('../tools/worktree/index.js').then((m) => m.ExitWorktreeTool), describe: () => import('../tools/worktree/prompt.js').then((m): Describe => async () => m.exitWorktreePrompt()) },
  { name: 'CronCreate', load: () => import('../tools/cron/index.js').then((m) => m.CronCreateTool), describe: () => import('../tools/cron/prompt.js').then((m): Describe => async () => m.cronCreatePrompt()) },
  { name: 'CronList', load: () => import('../tools/cron/index.js').then((m) => m.CronListTool), describe: () => import('../tools/cron/prompt.js').then((m): Describe => async () => m.cronListPrompt()) },
  { name: 'CronDelete', load: () => import('../tools/cron/index.js').then((m) => m.CronDeleteTool), describe: () => import('../tools/cron/prompt.js').then((m): Describe => async () => m.cronDeletePrompt()) },
  { name: 'LSP', load: () => import('../tools/lsp/index.js').then((m) => m.LspTool), describe: () => import('../tools/lsp/prompt.js').then((m): Describe => async () => m.lspPrompt()) },
  { name: 'Monitor', load: () => import('../tools/monitor/index.js').then((m) => m.MonitorTool), describe: () => import('../tools/monitor/prompt.js').then((m): Describe => async () => m.monitorPrompt()) },
  { name: 'ScheduleWakeup', load: () => import('../tools/schedule-wakeup/index.js').then((m) => m.ScheduleWakeupTool), describe: () => import('../tools/schedule-wakeup/prompt.js').then((m): Describe => async (o) => m.scheduleWakeupToolPrompt(o.settings)) },
  { name: 'SendMessage', load: () => import('../tools/send-message/index.js').then((m) => m.SendMessageTool), describe: () => import('../tools/send-message/prompt.js').then((m): Describe => async () => m.sendMessagePrompt()) },
  { name: 'TeamCreate', load: () => import('../tools/team-create/index.js').then((m) => m.TeamCreateTool), describe: () => import('../tools/team-create/prompt.js').then((m): Describe => async () => m.teamCreatePrompt()) },
  { name: 'TeamDelete', load: () => import('../tools/team-delete/index.js').then((m) => m.TeamDeleteTool), describe: () => import('../tools/team-delete/prompt.js').then((m): Describe => async () => m.teamDeletePrompt()) },
  { name: 'TaskCreate', load: () => import('../tools/task-list/index.js').then((m) => m.TaskCreateTool), describe: () => import('../tools/task-list/prompt.js').then((m): Describe => async () => m.taskCreatePrompt()) },
  { name: 'TaskGet', load: () => import('../tools/task-list/index.js').then((m) => m.TaskGetTool), describe: () => import('../tools/task-list/prompt.js').then((m): Describe => async () => m.taskGetPrompt()) },
  { name: 'TaskUpdate', load: () => import('../tools/task-list/index.js').then((m) => m.TaskUpdateTool), describe: () => import('../tools/task-list/prompt.js').then((m): Describe => async () => m.taskUpdatePrompt()) },
  { name: 'TaskList', load: () => import('../tools/task-list/index.js').then((m) => m.TaskListTool), describe: () => import('../tools/task-list/prompt.js').then((m): Describe => async () => m.taskListPrompt()) },
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
  /**
   * Built-ins the build's manifest holds come as stubs whose module loads when a call needs it (lazy-tool.ts): for
   * callers that run calls through the tool run or `runToolUse`, which await the load. Only the catalogue's own
   * entries (also in a filtered copy of the catalogue): the manifest describes those modules and no others.
   */
  readonly lazy?: boolean;
}

/**
 * The list per catalogue and open set, kept: the pool is assembled again between turns, and a Promise.all over the
 * catalogue's loads each time made a promise per tool for a list that had not changed. Callers copy it (it is
 * readonly). A failed load is not kept, as in `load`.
 */
const lists = new WeakMap<readonly BaseToolEntry[], Map<string, Promise<Tools>>>();
const lazyLists = new WeakMap<readonly BaseToolEntry[], Map<string, Promise<Tools>>>();

/**
 * One stub per catalogue entry (the pool keeps tool objects stable across turns); the module itself if loaded. By the
 * entry, never the name: an embedder's entry named as a built-in got the built-in's stub (as `loaded` above).
 */
const stubs = new WeakMap<BaseToolEntry, AnyTool>();

function stubOrLoad(entry: BaseToolEntry): Promise<AnyTool> | AnyTool {
  const known = stubs.get(entry);
  if (known) return known;
  // The manifest describes the catalogue's modules: an entry of an embedder's own catalogue loads as before.
  const manifestEntry = BASE_TOOL_ENTRIES.includes(entry) ? toolManifest().get(entry.name) : undefined;
  if (!manifestEntry) return load(entry);
  const stub = lazyTool({ entry: manifestEntry, load: () => load(entry), ...(entry.describe ? { describe: entry.describe } : {}) });
  stubs.set(entry, stub);
  return stub;
}

export function getAllBaseTools(options: GetAllBaseToolsOptions = {}): Promise<Tools> {
  const env = options.env ?? process.env;
  const catalogue = options.entries ?? BASE_TOOL_ENTRIES;
  const entries = catalogue.filter((entry) => entry.gate?.(env) ?? true);
  const lazy = options.lazy === true;
  let byOpenSet = (lazy ? lazyLists : lists).get(catalogue);
  if (!byOpenSet) (lazy ? lazyLists : lists).set(catalogue, (byOpenSet = new Map()));
  const key = entries.map((e) => e.name).join('\u0000');
  let list = byOpenSet.get(key);
  if (!list) {
    list = Promise.all(entries.map(lazy ? stubOrLoad : load));
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
