/** What the model reads about TaskStop. */
export const TASK_STOP_TOOL_NAME = 'TaskStop';

export function taskStopPrompt(): string {
  return `Stops a running background task by its ID: a Bash command started with run_in_background (or moved to the background), or a background sub-agent (a teammate also by its name).

- A command's whole process group is ended: SIGTERM, then SIGKILL after a short grace period. A sub-agent is stopped where it is: its running tool calls are cancelled and it makes no further request.
- The result confirms the task and its final state; a task that already ended, or an unknown ID, is an error.
- \`shell_id\` is accepted as a deprecated name for \`task_id\`.`;
}
