/**
 * The project's scheduled-tasks file, `.claude/scheduled_tasks.json`, in Claude Code's shape: `{ "tasks": [{ id, cron,
 * prompt, createdAt, lastFiredAt?, recurring? }] }`. A repository supplies it, so it is read as hostile input
 * (`read-config-file.ts`): an entry that is not well formed is skipped, and a file that cannot be read as a list of
 * tasks is never written over — the change is refused instead, and the person repairs the file.
 */
import path from 'node:path';
import { parseConfigJson, readConfigText } from '../../tool/read-config-file.js';
import { atomicWriteFile } from '../shared/atomic-write.js';
import { CronSyntaxError, parseCron } from './cron-expression.js';
import { scheduledTasksPath } from './restore.js';

export interface StoredTask {
  readonly id: string;
  readonly cron: string;
  readonly prompt: string;
  readonly createdAt: number;
  readonly lastFiredAt?: number;
  readonly recurring?: boolean;
}

/** The file could not be read as a list of tasks: it was left as it is. */
export class ScheduledTasksFileError extends Error {
  override readonly name = 'ScheduledTasksFileError';
}

function wellFormed(entry: unknown): StoredTask | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
  const e = entry as Record<string, unknown>;
  if (typeof e.id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(e.id)) return undefined;
  if (typeof e.cron !== 'string' || typeof e.prompt !== 'string' || typeof e.createdAt !== 'number' || !Number.isFinite(e.createdAt)) return undefined;
  try {
    parseCron(e.cron);
  } catch (error) {
    if (error instanceof CronSyntaxError) return undefined;
    throw error;
  }
  return {
    id: e.id,
    cron: e.cron,
    prompt: e.prompt,
    createdAt: e.createdAt,
    ...(typeof e.lastFiredAt === 'number' && Number.isFinite(e.lastFiredAt) ? { lastFiredAt: e.lastFiredAt } : {}),
    ...(e.recurring === true ? { recurring: true } : {}),
  };
}

/** Every well-formed task of the file (none when there is no file); throws ScheduledTasksFileError when unreadable. */
export function readScheduledTasks(projectDir: string): { tasks: StoredTask[]; skipped: number } {
  const file = scheduledTasksPath(projectDir);
  const read = readConfigText(file);
  if (read.kind === 'missing') return { tasks: [], skipped: 0 };
  if (read.kind === 'error') throw new ScheduledTasksFileError(`${file}: ${read.message}`);
  if (read.text.trim() === '') return { tasks: [], skipped: 0 };
  const parsed = parseConfigJson(read.text);
  const list = parsed.ok && parsed.json !== null && typeof parsed.json === 'object' ? (parsed.json as { tasks?: unknown }).tasks : undefined;
  if (!Array.isArray(list)) throw new ScheduledTasksFileError(`${file} could not be read as a list of tasks ({ "tasks": [...] }), so it was not changed; repair it and try again`);
  const tasks = list.map(wellFormed).filter((t): t is StoredTask => t !== undefined);
  return { tasks, skipped: list.length - tasks.length };
}

/**
 * Reads the file afresh, applies `change` to its tasks and writes it back atomically: tasks another session added
 * meanwhile are kept. Entries that were not well formed are dropped with the write.
 */
export async function updateScheduledTasks(projectDir: string, change: (tasks: StoredTask[]) => StoredTask[]): Promise<void> {
  const { tasks } = readScheduledTasks(projectDir);
  const next = change(tasks);
  const file = scheduledTasksPath(projectDir);
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path.dirname(file), { recursive: true });
  await atomicWriteFile(file, `${JSON.stringify({ tasks: next }, null, 2)}\n`, { confineTo: [projectDir] });
}
