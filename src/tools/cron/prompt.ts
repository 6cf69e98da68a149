/** What the model reads about CronCreate, CronList and CronDelete. */
export const CRON_CREATE_TOOL_NAME = 'CronCreate';
export const CRON_LIST_TOOL_NAME = 'CronList';
export const CRON_DELETE_TOOL_NAME = 'CronDelete';

export function cronCreatePrompt(): string {
  return `Schedules a prompt to be given back to you later, once or on a repeating schedule, using a standard 5-field cron expression in the machine's local time: "minute hour day-of-month month day-of-week" (for example "*/10 * * * *" is every ten minutes, "0 9 * * 1-5" is 09:00 on weekdays, "30 14 28 2 *" is 28 February at 14:30).

- recurring (default true): fire at every match until deleted; recurring tasks expire on their own 7 days after they were made. Use recurring: false for a one-time reminder ("at 3pm, check the deploy"): it fires at the next match and is then deleted.
- durable (default false): also keep the task in the project's .claude/scheduled_tasks.json, so that a later session of this project restores it. Only when the user asks for the task to outlive this session; this writes to the project and may need the user's approval.
- When a task fires, its prompt reaches you marked as a scheduled task's (with the next tool results, or at once while you wait in ScheduleWakeup). Carry it out as if the user had asked for it then; the permission rules apply to what you do as they always do.
- The result gives the task's ID (for CronDelete), its schedule in words and its next fire time. CronList shows every scheduled task of the session.`;
}

export function cronListPrompt(): string {
  return `Lists the scheduled tasks of this session (those made with CronCreate, and durable ones restored from the project's .claude/scheduled_tasks.json): ID, cron expression, schedule in words, prompt, whether it repeats and is durable, and when it fires next. Use it rather than reading the file, which does not show in-memory tasks.`;
}

export function cronDeletePrompt(): string {
  return `Deletes a scheduled task by the ID CronCreate returned (CronList shows them): it will not fire again. A durable task is removed from the project's .claude/scheduled_tasks.json too.`;
}
