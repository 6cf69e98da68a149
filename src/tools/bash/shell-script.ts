/**
 * The script a fresh `bash -c` runs: a short prologue, then the model's command as written.
 *
 * The prologue moves descriptor 3 (a file the parent opened: the shell's state at the end) to a descriptor bash picks
 * (≥ 10) so a command that uses fd 3 itself cannot clobber it, and sets an EXIT trap that writes there on any exit
 * (success, failure, `exit N`): the working directory (`pwd -P`) and, when the environment persists, the exported
 * variables and the functions. With persistence it also writes the exported variables as they are just before the
 * command, so the parent keeps only what the command changed (the sandbox adds variables of its own). Variables are
 * one `declare -px` each time, in the shell itself; functions need a process substitution (a fork, and a pipe bash
 * reads byte by byte: tens of milliseconds on a loaded machine), so only for commands that may change them. Records
 * are NUL-terminated (session-env.ts reads them).
 *
 * The prologue shares the command's first line, so bash's line numbers in error messages (and `$LINENO`) are the
 * command's own.
 */
import { shellQuote } from '../shared/shell-word.js';

/** The variable holding the state descriptor inside the shell; visible to the command, so named to avoid clashes. */
const STATE_FD_VAR = '__toolgate_cwd_fd';
const FD = `"$${STATE_FD_VAR}"`;

export interface ShellScriptOptions {
  /** Sourced before the command when readable (`TOOLGATE_ENV_FILE` / `CLAUDE_ENV_FILE`). */
  readonly envFile?: string;
  /** Record the exported variables before and after the command. */
  readonly capture?: boolean;
  /** Also record the functions after it (with `capture`). */
  readonly captureFunctions?: boolean;
  /**
   * Functions the environment brings in (`BASH_FUNC_<name>%%`, from earlier commands): they stay plain functions of
   * this shell, not exported to the programs it starts.
   */
  readonly importedFunctions?: readonly string[];
}

/** `kind` + the shell's exported variables as `declare -px` prints them (one builtin call; session-env.ts parses it). */
function exportedVariables(kind: 'S' | 'E'): string {
  return `builtin printf ${kind}; builtin declare -px; builtin printf "\\0"`;
}

/**
 * `f`, then `F` + name + newline + `declare -f` text for every function but the prologue's own. The names come
 * through a pipe (`compgen -A function`), which costs a fork and a wait: done only for commands that may define or
 * remove functions (`mayChangeFunctions`).
 */
const FUNCTIONS =
  `builtin printf "f\\0"; builtin mapfile -t __toolgate_v < <(builtin compgen -A function); ` +
  `for __toolgate_n in "\${__toolgate_v[@]}"; do [[ $__toolgate_n == __toolgate_* ]] || { builtin printf "F%s\\n" "$__toolgate_n"; builtin declare -f -- "$__toolgate_n"; builtin printf "\\0"; }; done`;

/**
 * Whether `command` can define or remove a function of this shell: a definition (`name()`, `function`), `source` /
 * `.`, `eval` or `unset`. Anything else runs in child processes or leaves functions alone, so its functions need not
 * be read back. (A function defined in a way this misses is not kept: that errs on the side of keeping less.)
 */
export function mayChangeFunctions(command: string): boolean {
  return /\(\s*\)|\b(function|source|eval|unset)\b|(^|[\s;&|(){}`])\.(\s|$)/.test(command);
}

/**
 * Builtins and keywords that can set, export or remove a variable of this shell, or run text as commands (which can):
 * `read`/`mapfile`/`getopts`/`printf -v`/`wait -p` assign, `for`/`select` assign their variable, `set`/`enable`/
 * `trap`/`exec`/`command`/`builtin` change how the rest runs. `cd` is not here: PWD and OLDPWD are not carried.
 */
const ENV_CHANGING_WORDS =
  /(?:^|[\s|&;()<>!])(?:export|declare|typeset|local|readonly|unset|let|read|readarray|mapfile|getopts|printf|wait|source|eval|exec|command|builtin|enable|set|trap|for|select|\.)(?=$|[\s|&;()<>])/;

/**
 * Whether `command` can change an exported variable of its shell, so that the variables must be read before and after
 * it (two `declare -px`, one write(2) per variable, and their parse: ~0.4 ms of a short command). It cannot when,
 * quotes and backslashes taken out (so `ex'p'ort` is seen as `export`), its text has no assignment or expansion at
 * all (`=`, `$`, a backquote, arithmetic `((`, `[[` — whose operands are arithmetic —, braces, which expand to
 * words, glob characters, which can match a file named like a builtin) and none of the words above; and the shell
 * imports no function (`BASH_FUNC_*` in `env`): a function the command calls could export anything; and it defines or
 * removes none (`mayChangeFunctions`). `echo hi`, `git status`, `ls -la | head`, `npm test` need no reading back;
 * anything this cannot see through is read back.
 */
export function mayChangeEnvironment(command: string, env: NodeJS.ProcessEnv): boolean {
  for (const name in env) if (name.startsWith('BASH_FUNC_')) return true;
  // A function it defines is read back with the variables (`captureFunctions` needs `capture`).
  if (mayChangeFunctions(command)) return true;
  const words = command.replace(/\\\n/g, '').replace(/['"\\]/g, '');
  return /[=$`{}*?[]|\(\(/.test(words) || ENV_CHANGING_WORDS.test(words);
}

/**
 * Whether `command` may move its shell to another directory: `cd`, `pushd` or `popd` among its words (quotes and
 * backslashes taken out), or `source`/`.`, `eval`, `exec`, `trap`, which run code the text does not show. (A
 * function an earlier command left may `cd` too: `mayChangeEnvironment` is true whenever one is imported.)
 */
export function mayChangeDirectory(command: string): boolean {
  return /(?:^|[\s|&;()<>!{}`])(?:cd|pushd|popd|source|eval|exec|trap|\.)(?=$|[\s|&;()<>}`])/.test(command.replace(/\\\n/g, '').replace(/['"\\]/g, ''));
}

export function buildShellScript(command: string, options: ShellScriptOptions = {}): string {
  const lines = [`exec {${STATE_FD_VAR}}>&3 3>&-`];
  const imported = options.importedFunctions ?? [];
  if (imported.length > 0) lines.push(`builtin export -fn -- ${imported.map(quote).join(' ')} 2>/dev/null`);
  // The trap's own text is single-quoted below: it must not contain a single quote (printf formats use "…").
  const atExit = ['builtin printf C', 'builtin pwd -P', 'builtin printf "\\0"'];
  if (options.capture === true) {
    atExit.push(exportedVariables('E'));
    if (options.captureFunctions === true) atExit.push(FUNCTIONS);
    atExit.push('builtin printf "Z\\0"');
  }
  // xtrace off first: a command that ran `set -x` must not have the dump traced into its output.
  lines.push(`trap '{ builtin set +x; } 2>/dev/null; { ${atExit.join('; ')}; } >&${FD} 2>/dev/null' EXIT`);
  if (options.envFile !== undefined) lines.push(`if [ -r ${quote(options.envFile)} ]; then . ${quote(options.envFile)}; fi`);
  if (options.capture === true) {
    lines.push(`{ ${exportedVariables('S')}; builtin printf "R\\0"; } >&${FD} 2>/dev/null`);
  }
  lines.push(command);
  return lines.join('; ');
}

/** Single-quotes a string for bash. */
export const quote = shellQuote;
