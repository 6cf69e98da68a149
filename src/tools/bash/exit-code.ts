/**
 * Exit code 1 is an answer, not a failure, for commands that report "no match" or "different" that way: `grep rg
 * egrep fgrep find diff test [` and `git diff` / `git grep`. Such a call is not an error (so it cannot cancel its
 * parallel siblings) and its result says what the code means.
 *
 * The exit status of a command line is the status of its last command, so the last simple command decides.
 */
import path from 'node:path';

export interface ExitInterpretation {
  readonly isError: boolean;
  /** What a benign non-zero code means (`No matches found`). */
  readonly message?: string;
}

const BENIGN_EXIT_1: Readonly<Record<string, string>> = {
  grep: 'No matches found',
  egrep: 'No matches found',
  fgrep: 'No matches found',
  rg: 'No matches found',
  find: 'Some paths could not be read',
  diff: 'Files differ',
  test: 'Condition is false',
  '[': 'Condition is false',
};

const BENIGN_GIT_EXIT_1: Readonly<Record<string, string>> = {
  diff: 'Files differ',
  grep: 'No matches found',
};

/** Git options that take a separate value (`git -C dir diff`). */
const GIT_VALUE_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path']);

/**
 * `lastArgv`: the last simple command's words (wrappers like `timeout` already stripped) when the command could be
 * parsed; otherwise a rough split of the text after the last separator is used.
 */
export function interpretExitCode(command: string, code: number, lastArgv?: readonly string[] | null): ExitInterpretation {
  if (code === 0) return { isError: false };
  if (code !== 1) return { isError: true };
  const argv = lastArgv ?? roughLastArgv(command);
  const name = argv[0] === undefined ? undefined : path.basename(argv[0]);
  if (name === undefined) return { isError: true };
  const direct = BENIGN_EXIT_1[name];
  if (direct !== undefined) return { isError: false, message: direct };
  if (name === 'git') {
    const sub = gitSubcommand(argv.slice(1));
    const message = sub === undefined ? undefined : BENIGN_GIT_EXIT_1[sub];
    if (message !== undefined) return { isError: false, message };
  }
  return { isError: true };
}

function gitSubcommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (GIT_VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return arg;
  }
  return undefined;
}

const WRAPPERS = new Set(['timeout', 'time', 'nice', 'nohup', 'stdbuf', 'command', 'builtin', 'noglob', 'xargs', 'sudo']);

/** The words of the last command after `; && || | &` or a newline, without leading assignments and wrappers. */
function roughLastArgv(command: string): string[] {
  const segments = command.split(/\|\||&&|[;|&\n]/);
  const words = (segments[segments.length - 1] ?? '').trim().split(/\s+/).filter(Boolean);
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
  while (words.length > 0 && WRAPPERS.has(words[0]!)) {
    words.shift();
    // `timeout 5 grep …`: drop the wrapper's own arguments (options and a bare duration).
    while (words.length > 0 && (words[0]!.startsWith('-') || /^\d+(\.\d+)?[smhd]?$/.test(words[0]!))) words.shift();
  }
  return words.map((w) => w.replace(/^['"]|['"]$/g, ''));
}
