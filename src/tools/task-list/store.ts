/**
 * The session's task list (TaskCreate, TaskGet, TaskUpdate, TaskList): one per session — kept per task registry, so
 * the lead and every teammate (each a runtime of its own) share it —, in memory, in creation order. Ids are 1, 2, 3…
 * as Claude Code's.
 */
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { getTaskRegistry, type TaskRegistry } from '../shared/task-registry.js';

export type TaskItemStatus = 'pending' | 'in_progress' | 'completed';

export interface TaskItem {
  readonly id: string;
  subject: string;
  description: string;
  activeForm?: string;
  status: TaskItemStatus;
  owner?: string;
  /** Tasks this one blocks / that block this one (kept on both sides). */
  readonly blocks: Set<string>;
  readonly blockedBy: Set<string>;
  metadata: Record<string, unknown>;
}

export interface TaskList {
  nextId: number;
  readonly items: Map<string, TaskItem>;
}

const lists = new WeakMap<TaskRegistry, TaskList>();

export function taskListOf(context: Pick<ToolUseContext, 'services'>): TaskList {
  const registry = getTaskRegistry(context);
  let list = lists.get(registry);
  if (!list) lists.set(registry, (list = { nextId: 1, items: new Map() }));
  return list;
}

/** Takes `id` out of the list and out of every other task's links. */
export function removeTask(list: TaskList, id: string): void {
  list.items.delete(id);
  for (const item of list.items.values()) {
    item.blocks.delete(id);
    item.blockedBy.delete(id);
  }
}

/** The tasks that still block `item` (a completed one no longer does). */
export function openBlockers(list: TaskList, item: TaskItem): string[] {
  return [...item.blockedBy].filter((id) => list.items.get(id)?.status !== 'completed');
}
