/** What the model reads about Bash: how a call really behaves here (cwd, environment, timeouts, output, background). */
import { DEFAULT_TIMEOUT_MS, ENV_OUTPUT_CHARS, MAX_TIMEOUT_MS } from './bash-settings.js';
import { formatCount } from '../../tool/format-count.js';

export const BASH_TOOL_NAME = 'Bash';

export const BASH_DESCRIPTION_FIELD = `Clear, concise description of what this command does in 5-10 words, in active voice. Examples:
Input: ls → Output: List files in current directory
Input: git status → Output: Show working tree status
Input: npm install → Output: Install package dependencies`;

export function bashPrompt(options: { readonly persistEnvironment?: boolean } = {}): string {
  const fmt = formatCount;
  return `Executes a bash command and returns its output.

How a call runs:
- Every call starts a fresh, non-interactive \`bash -c\`: no rc files, no aliases, stdin is empty (/dev/null). Commands that wait for input or open an editor or pager will hang until the timeout.
- Working directory: a \`cd\` carries over to the next call as long as it stays inside the project's working directories. If a command ends outside them, the next call starts back in the project directory and the result says "Shell cwd was reset to <dir>". Prefer absolute paths over \`cd\`.
- Environment: ${environmentLine(options.persistEnvironment !== false)} If the user configured an env file (TOOLGATE_ENV_FILE / CLAUDE_ENV_FILE), it is sourced before every command.
- Secrets are removed from the environment: ANTHROPIC_API_KEY and variables named like *_API_KEY, *_TOKEN, *_SECRET, *_PASSWORD are not visible to commands unless the user passes them through in settings. Do not try to find or print credentials.
- stdout and stderr are merged in the order they were written.

Timeouts:
- \`timeout\` is in milliseconds: default ${fmt(DEFAULT_TIMEOUT_MS)} (${DEFAULT_TIMEOUT_MS / 60_000} minutes), maximum ${fmt(MAX_TIMEOUT_MS)} (${MAX_TIMEOUT_MS / 60_000} minutes); larger values are rejected.
- When a command runs past its timeout it is moved to the background (the result gives a task ID and its output file) rather than killed, except commands that start with \`sleep\` or that cannot be parsed: those are killed. The result says which happened.
- The whole process group is ended when a call is interrupted or times out and is killed. A commit, merge, rebase or package install is not interrupted by the user; it finishes first. Processes started with \`&\` inside a normal call are ended when the call ends; use \`run_in_background\` for anything that must keep running.

Background tasks:
- \`run_in_background: true\` returns immediately with "Command running in background with ID: <id>. Output is being written to: <file>". Here \`timeout\` bounds the task's lifetime (default 30 minutes, maximum 2 hours).
- A person may move a running command to the background; the result then says "Command was manually backgrounded by user with ID: <id>…" and the command keeps running as such a task.
- You are notified on a later turn when a background task ends (status, exit code, output file). Do not poll with \`sleep\`: when Monitor is available, a command that starts with a sleep of 2 seconds or more is refused (use Monitor to wait for a condition, ScheduleWakeup to wait for time). Read the output file (Read) or use TaskOutput to check on a task, and TaskStop to end it.

Output:
- Up to ${fmt(ENV_OUTPUT_CHARS)} characters are returned inline (progress lines overwritten with \\r count only once). A successful command with more output returns the path of a file holding all of it plus a short preview: read it in parts with Read (offset/limit) or search it with Grep rather than printing it again. A failing command with long output returns its beginning and its end; the middle is in the file named in the result.
- A non-zero exit code is reported as "Exit code N" on the first line and the call counts as failed — except exit code 1 from grep, rg, egrep, fgrep, find, diff, test, [, git diff and git grep, which means "no match" / "different" and is not an error.
- Output that is a PNG or JPEG image (raw bytes or a data:image/…;base64 URL) is returned as an image.

Sandbox: when the user enabled it, commands run in an OS sandbox (bubblewrap): the filesystem is read-only except the working directories and a private /tmp, the network is off unless allowed, and every repository's metadata (.git), .claude/ and .toolgate/ stay read-only; git commands that write the repository (commit, fetch, checkout, …) run outside the sandbox and need the user's permission. If a command fails because of the sandbox, you may retry with \`dangerouslyDisableSandbox: true\`; that always asks the user for permission. If the sandbox is enabled but cannot run on this machine, commands are refused with a message saying so.

Use the dedicated tools instead of shell equivalents when they exist: Read (not cat/head/tail), Edit (not sed/awk), Write (not echo >/heredoc), Glob (not find/ls for finding files), Grep (not grep/rg). Use Bash for git, builds, tests, package managers and other programs.

Guidelines:
- Quote paths that contain spaces with double quotes.
- Independent commands: several Bash calls in one message (read-only ones run in parallel). Dependent commands: one call joined with \`&&\`. Use \`;\` only when a later command must run even if an earlier one fails.
- Never run destructive or irreversible commands (rm -rf, git push --force, git reset --hard) unless the user asked for them.`;
}


function environmentLine(persists: boolean): string {
  if (!persists) {
    return 'variables set with `export` or `source` do NOT persist between calls (each call is a new shell). Set what a command needs in the same call (`source .venv/bin/activate && pytest`).';
  }
  return (
    'each call is a new shell, but what a command leaves behind is where the next call starts: exported variables (`export FOO=1`, `unset FOO`, PATH changes, `source .venv/bin/activate`, `nvm use`) and shell functions, also when the command fails. ' +
    'Not kept: plain (unexported) shell variables, aliases and shell options (`set -e`, `shopt`); anything from a command that was interrupted, timed out or runs in the background (a background command starts from the current environment and gives nothing back); variables that look like credentials; variables that make programs run other code or read their configuration elsewhere (`NODE_OPTIONS`, `PYTHONPATH`, `LD_*`, `GIT_*`, `npm_config_*`, `PAGER`, `EDITOR`, `HOME`, …) and relative PATH entries — set those in the command that needs them; functions named like an existing command or a shell hook. ' +
    'A later command that calls a kept function, or whose program a kept PATH change replaces, needs permission. ' +
    'Commands that run outside the sandbox do not get what sandboxed commands left. Calls made in parallel each start from the environment as it was when they started.'
  );
}
