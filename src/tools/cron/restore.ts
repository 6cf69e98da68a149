/**
 * At a session's start: the durable scheduled tasks of the project (`.claude/scheduled_tasks.json`) are taken over by
 * the session's scheduler. Costs one `stat` when there is no file; the scheduler's module loads only when there is.
 * Sub-agents restore nothing (the main session owns the schedule).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { systemReminderText } from '../../tool/message-origin.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';

/** Where a project keeps its durable scheduled tasks (Claude Code's file). */
export const SCHEDULED_TASKS_FILE = path.join('.claude', 'scheduled_tasks.json');

export function scheduledTasksPath(projectDir: string): string {
  return path.join(projectDir, SCHEDULED_TASKS_FILE);
}

/** How many tasks were restored; a file that cannot be read is reported to the model, never written over. */
export async function restoreScheduledTasks(context: ToolUseContext): Promise<number> {
  if (context.agentDepth > 0) return 0;
  if (!existsSync(scheduledTasksPath(context.getAppState().toolPermissionContext.cwd))) return 0;
  const { cronSchedulerFor } = await import('./scheduler.js');
  try {
    return await cronSchedulerFor(context).restore();
  } catch (error) {
    const text = systemReminderText(`The project's scheduled tasks were not restored: ${error instanceof Error ? error.message : String(error)}`);
    context.services.notifications?.push({ role: 'user', content: [{ type: 'text', text }] });
    return 0;
  }
}
