/** What the model reads about TaskOutput. */
import { formatCount } from '../../tool/format-count.js';
export const TASK_OUTPUT_TOOL_NAME = 'TaskOutput';

export const DEFAULT_WAIT_MS = 30_000;
export const MAX_WAIT_MS = 600_000;

export function taskOutputPrompt(): string {
  return `Retrieves the output and state of a background task: a Bash command started with run_in_background (or moved to the background by its timeout or by the user), or a sub-agent started with Agent's run_in_background.

- task_id: the ID the call's result gave ("Command running in background with ID: <id>", or the background agent's ID).
- block (default true): wait until the task ends, at most \`timeout\` ms (default ${formatCount(DEFAULT_WAIT_MS)}, maximum ${formatCount(MAX_WAIT_MS)}). With block: false it returns at once with the output so far.
- The result gives the status (running, completed, failed, killed), how it ended (a command's exit code or signal; an agent's tool uses and the permissions it was denied), and the latest output: a command's output, an agent's progress and, once it ended, its final report (the end of it when it is long; the complete output is in the task's output file, which Read can open).
- You are notified automatically when a background task ends, so there is no need to poll; reading the output file with Read works as well.`;
}
