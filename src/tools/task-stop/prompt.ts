/** What the model reads about TaskStop. */
export const TASK_STOP_TOOL_NAME = 'TaskStop';

export function taskStopPrompt(): string {
  return `Stops a running background task by its ID (the ID a Bash result gave for a run_in_background command or a command moved to the background by its timeout).

- The task's whole process group is ended: SIGTERM, then SIGKILL after a short grace period.
- The result confirms the task and its final state; a task that already ended, or an unknown ID, is an error.
- \`shell_id\` is accepted as a deprecated name for \`task_id\`.`;
}
