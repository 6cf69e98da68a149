/** Real temp directories and contexts for the Bash, TaskOutput and TaskStop tests (no mocks of the shell). */
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NotificationQueue } from '../../../tool/notification-queue.js';
import { getEmptyToolPermissionContext, type ToolPermissionContext } from '../../../tool/permission-types.js';
import { localToolCallBackend, type ToolCallBackend } from '../../../execution/backend.js';
import { runToolUse } from '../../../execution/pipeline.js';
import type { AnyTool, AssistantMessage, CanUseToolFn, ToolProgress, ToolResultBlockParam, ToolUseBlock } from '../../../tool/tool.js';
import { toolResultText } from '../../../tool/tool-result.js';
import { createToolUseContext, type ToolSettings, type ToolUseContext } from '../../../tool/tool-use-context.js';
import { createTaskRegistry, type TaskRegistry } from '../../shared/task-registry.js';

export interface TestProject {
  readonly dir: string;
  readonly sessionDir: string;
  readonly context: ToolUseContext;
  readonly tasks: TaskRegistry;
  readonly notifications: NotificationQueue;
  cleanup(): Promise<void>;
}

export interface MakeContextOptions {
  readonly settings?: ToolSettings;
  readonly additionalDirs?: readonly string[];
  readonly abortController?: AbortController;
  /** Permission rules of the context (the sandbox derives its file and network limits from them). */
  readonly rules?: Partial<Pick<ToolPermissionContext, 'alwaysAllowRules' | 'alwaysDenyRules' | 'alwaysAskRules'>>;
  /** An existing directory to use as the project (default: a new temporary one); removed by cleanup too. */
  readonly dir?: string;
}

/** A project directory (realpath'd: /tmp may be a symlink elsewhere), a session directory, a task registry. */
export function makeProject(options: MakeContextOptions = {}): TestProject {
  const dir = options.dir ?? realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bash-')));
  const sessionDir = path.join(dir, '.session');
  const tasks = createTaskRegistry();
  const notifications = new NotificationQueue();
  const base = getEmptyToolPermissionContext(dir);
  const permissionContext = {
    ...base,
    ...options.rules,
    additionalWorkingDirectories: new Map((options.additionalDirs ?? []).map((d) => [d, { path: d, source: 'session' as const }])),
  };
  const context = createToolUseContext({
    tools: [],
    permissionContext,
    sessionDir,
    settings: { bash: { killGraceMs: 200, progressIntervalMs: 50 }, ...options.settings },
    services: { tasks, notifications },
    abortController: options.abortController,
  });
  return {
    dir,
    sessionDir,
    context,
    tasks,
    notifications,
    async cleanup() {
      await tasks.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const allowAll: CanUseToolFn = async () => ({ behavior: 'allow' });
export const assistantMessage: AssistantMessage = { role: 'assistant', content: [] };

export interface CallResult<T> {
  readonly data: T;
  readonly block: ToolResultBlockParam;
  readonly text: string;
  readonly progress: ToolProgress[];
}

let calls = 0;

/**
 * One call through the real pipeline (`runToolUse`), allowed by the gate (the engine has its own tests). The output
 * data is read off the backend; a call that never reached `call()` (invalid input…) throws with the model's text.
 */
export async function callTool<T>(tool: AnyTool, input: Record<string, unknown>, context: ToolUseContext): Promise<CallResult<T>> {
  const progress: ToolProgress[] = [];
  let data: { value: unknown } | undefined;
  const backend: ToolCallBackend = {
    name: 'local (recording the output for the test)',
    async call(request) {
      const output = await localToolCallBackend.call(request);
      data = { value: output.data };
      return output;
    },
  };
  const block = { type: 'tool_use', id: `toolu_test_${++calls}`, name: tool.name, input } as ToolUseBlock;
  const withTool: ToolUseContext = { ...context, options: { ...context.options, tools: [tool] } };
  const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, allowAll, withTool, {
    backend,
    onProgress: (p) => progress.push(p),
  });
  if (data === undefined) throw new Error(`${tool.name} did not run (${outcome.stage}): ${toolResultText(outcome.result)}`);
  return { data: data.value as T, block: outcome.result, text: toolResultText(outcome.result), progress };
}

/** Live (non-zombie) processes whose command line contains `marker`. */
export function processesWithMarker(marker: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (!cmdline.includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && Number(entry) !== process.pid) found.push({ pid: Number(entry), cmdline: cmdline.trim() });
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** Resolves when `predicate` holds, polling every 20 ms; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
