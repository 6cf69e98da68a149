/**
 * TodoWrite: the model's checklist, replaced whole on every call. Kept per agent (the main thread and each
 * sub-agent have their own list), cleared once every item is completed, and shown through `ui.onTodosChanged`.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolServices, ToolUseContext } from '../../tool/tool-use-context.js';
import { TODO_WRITE_RESULT, TODO_WRITE_TOOL_NAME, todoWritePrompt } from './prompt.js';

export const todoItemSchema = z.strictObject({
  content: z.string().min(1).describe('What to do, in the imperative ("Run the tests")'),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().min(1).describe('The same while it happens ("Running the tests")'),
});
/** One entry of an agent's to-do list (TodoWrite), as `onTodosChanged` reports it. */
export type TodoItem = z.infer<typeof todoItemSchema>;

export const todoWriteInputSchema = z.strictObject({
  todos: z.array(todoItemSchema).describe('The whole updated list'),
});

export interface TodoWriteOutput {
  oldTodos: TodoItem[];
  newTodos: TodoItem[];
}

declare module '../../tool/tool-use-context.js' {
  interface ToolUseUICallbacks {
    /** The todo list of an agent changed (`agentId` undefined: the main thread); `[]` when it was cleared. */
    readonly onTodosChanged?: (todos: readonly TodoItem[], agentId: string | undefined) => void;
  }
}

// Lists live beside the session's services (one object per runtime, shared with its sub-agents).
const stores = new WeakMap<ToolServices, Map<string, TodoItem[]>>();
const MAIN = '\u0000main';

function storeOf(context: ToolUseContext): Map<string, TodoItem[]> {
  let store = stores.get(context.services);
  if (!store) stores.set(context.services, (store = new Map()));
  return store;
}

/** The current list of an agent (the main thread's when `agentId` is undefined). */
export function getTodos(context: ToolUseContext, agentId = context.agentId): readonly TodoItem[] {
  return storeOf(context).get(agentId ?? MAIN) ?? [];
}

export const TodoWriteTool = buildTool<typeof todoWriteInputSchema, TodoWriteOutput>({
  name: TODO_WRITE_TOOL_NAME,
  asyncSafe: true,
  searchHint: 'task checklist progress plan steps',
  inputSchema: todoWriteInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  strict: true,
  prompt: async () => todoWritePrompt(),
  // It changes the session's own checklist, nothing on disk or beyond: read-only for permissions and plan mode.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  checkPermissions: async (input) => ({ behavior: 'allow', updatedInput: input }),
  async call(input, context) {
    const store = storeOf(context);
    const key = context.agentId ?? MAIN;
    const oldTodos = store.get(key) ?? [];
    const allDone = input.todos.length > 0 && input.todos.every((t) => t.status === 'completed');
    const kept = allDone ? [] : input.todos.map((t) => ({ ...t }));
    if (kept.length === 0) store.delete(key);
    else store.set(key, kept);
    try {
      context.ui?.onTodosChanged?.(kept, context.agentId);
    } catch {
      // A failing display must not fail the call.
    }
    return { data: { oldTodos, newTodos: input.todos } };
  },
  mapToolResultToToolResultBlockParam: (_data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: TODO_WRITE_RESULT }),
  renderToolUseMessage: (input) => `${input.todos?.length ?? 0} items`,
  loadViews: () => import('./render.js').then((m) => m.todoWriteViews),
});
