/**
 * The session's task list (TaskCreate, TaskGet, TaskUpdate, TaskList): one per session — kept per task registry, so
 * the lead and every teammate (each a runtime of its own) share it —, in creation order. Ids are 1, 2, 3… as Claude
 * Code's. Kept in the session's folder too (`<sessionDir>/task-list.json`, written whole after each change through
 * the one writer), so a resumed session — same id, same folder — finds it again. The file is the session's own (the
 * person's state folder, not the repository); read strictly all the same: anything malformed starts an empty list.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { atomicWriteFile } from '../shared/atomic-write.js';
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
  /** Where it is kept, and the write under way (saves run one after another, each writing the list as it is then). */
  readonly file?: string;
  saving?: Promise<void>;
}

const lists = new WeakMap<TaskRegistry, TaskList>();
const FILE = 'task-list.json';

export function taskListOf(context: Pick<ToolUseContext, 'services' | 'options'>): TaskList {
  const registry = getTaskRegistry(context);
  let list = lists.get(registry);
  const dir = context.options.sessionDir;
  if (!list) lists.set(registry, (list = load(dir ? path.join(dir, FILE) : undefined)));
  return list;
}

/** Writes the list to the session's folder; resolves once this change (and those before it) are on disk. */
export function saveTaskList(list: TaskList): Promise<void> {
  const file = list.file;
  if (file === undefined) return Promise.resolve();
  const write = async () => {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await atomicWriteFile(file, `${JSON.stringify(serialize(list), null, 2)}\n`, { mode: 0o600 });
  };
  const next = (list.saving ?? Promise.resolve()).then(write, write);
  list.saving = next.catch(() => {});
  return next;
}

interface StoredTask {
  id: string;
  subject: string;
  description: string;
  activeForm?: string;
  status: TaskItemStatus;
  owner?: string;
  blocks: string[];
  blockedBy: string[];
  metadata: Record<string, unknown>;
}

function serialize(list: TaskList): { version: 1; nextId: number; tasks: StoredTask[] } {
  const tasks = [...list.items.values()].map((t) => ({
    id: t.id,
    subject: t.subject,
    description: t.description,
    ...(t.activeForm !== undefined ? { activeForm: t.activeForm } : {}),
    status: t.status,
    ...(t.owner !== undefined ? { owner: t.owner } : {}),
    blocks: [...t.blocks],
    blockedBy: [...t.blockedBy],
    metadata: t.metadata,
  }));
  return { version: 1, nextId: list.nextId, tasks };
}

const STATUSES: readonly string[] = ['pending', 'in_progress', 'completed'];
const isString = (v: unknown): v is string => typeof v === 'string';
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

function load(file: string | undefined): TaskList {
  const empty: TaskList = { nextId: 1, items: new Map(), ...(file !== undefined ? { file } : {}) };
  if (file === undefined) return empty;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return empty;
  }
  const r = raw as { version?: unknown; nextId?: unknown; tasks?: unknown };
  if (r?.version !== 1 || !Number.isSafeInteger(r.nextId) || (r.nextId as number) < 1 || !Array.isArray(r.tasks)) return empty;
  const items = new Map<string, TaskItem>();
  for (const t of r.tasks as Partial<StoredTask>[]) {
    const ok =
      isString(t?.id) && /^\d+$/.test(t.id) && isString(t.subject) && isString(t.description) && STATUSES.includes(t.status as string) &&
      (t.activeForm === undefined || isString(t.activeForm)) && (t.owner === undefined || isString(t.owner)) &&
      isStrings(t.blocks) && isStrings(t.blockedBy) && t.metadata !== null && typeof t.metadata === 'object' && !Array.isArray(t.metadata);
    if (!ok || items.has(t.id!)) return empty;
    items.set(t.id!, {
      id: t.id!,
      subject: t.subject!,
      description: t.description!,
      ...(t.activeForm !== undefined ? { activeForm: t.activeForm } : {}),
      status: t.status!,
      ...(t.owner !== undefined ? { owner: t.owner } : {}),
      blocks: new Set(t.blocks),
      blockedBy: new Set(t.blockedBy),
      metadata: { ...t.metadata },
    });
  }
  return { ...empty, nextId: r.nextId as number, items };
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
