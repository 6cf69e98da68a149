/** What the model reads about Monitor. */
export const MONITOR_TOOL_NAME = 'Monitor';
export const MONITOR_DEFAULT_TIMEOUT_MS = 300_000;
export const MONITOR_MAX_TIMEOUT_MS = 1_800_000;

export function monitorPrompt(): string {
  return `Watches a shell command in the background and tells you about each line it prints, as it prints it, between your other steps — instead of polling with sleep or re-running a check. Good for following a log (\`tail -f app.log | grep --line-buffered ERROR\`), waiting for a condition (\`until curl -sf http://127.0.0.1:8080/health; do sleep 2; done; echo ready\`), or watching a build or test run.

- command: the shell command. It runs like a Bash command with run_in_background — the same permission rules (Bash rules apply to it), the same sandbox, environment and working directory.
- Each line of output (stdout and stderr, in order) is an event: you receive the new lines in batches, marked with the monitor's task ID. Use line-buffered output (\`grep --line-buffered\`, \`stdbuf -oL\`) so lines arrive as they happen.
- The watch ends when the command exits, or at timeout_ms (default ${MONITOR_DEFAULT_TIMEOUT_MS}, at most ${MONITOR_MAX_TIMEOUT_MS}; a longer one is shortened): you are told either way, and can start a new Monitor to keep watching. TaskStop ends it early; its output file holds every line.
- description: a short phrase saying what is watched; it labels the events.
- Keep the output small and meaningful: filter the stream to the lines you care about. A command printing thousands of lines floods your context.
- Only \`command\` is supported: a \`ws\` (WebSocket) watch is refused.`;
}
