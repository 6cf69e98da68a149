/**
 * The script a fresh `bash -c` runs: a short prologue, then the model's command as written.
 *
 * The prologue moves descriptor 3 (a file the parent opened: the shell's state at the end) to a descriptor bash picks
 * (≥ 10) so a command that uses fd 3 itself cannot clobber it, and sets an EXIT trap that writes there on any exit
 * (success, failure, `exit N`): the working directory (`pwd -P`) and, when the environment persists, the exported
 * variables and the functions. With persistence it also writes the exported variables as they are just before the
 * command, so the parent keeps only what the command changed (the sandbox adds variables of its own). Everything is
 * bash built-ins, two process substitutions at most; records are NUL-terminated (session-env.ts reads them).
 *
 * The prologue shares the command's first line, so bash's line numbers in error messages (and `$LINENO`) are the
 * command's own.
 */

/** The variable holding the state descriptor inside the shell; visible to the command, so named to avoid clashes. */
const STATE_FD_VAR = '__toolgate_cwd_fd';
const FD = `"$${STATE_FD_VAR}"`;

export interface ShellScriptOptions {
  /** Sourced before the command when readable (`TOOLGATE_ENV_FILE` / `CLAUDE_ENV_FILE`). */
  readonly envFile?: string;
  /** Record the exported variables before and after the command, and the functions after it. */
  readonly capture?: boolean;
  /**
   * Functions the environment brings in (`BASH_FUNC_<name>%%`, from earlier commands): they stay plain functions of
   * this shell, not exported to the programs it starts.
   */
  readonly importedFunctions?: readonly string[];
}

/** `kind` + `NAME=value` for every exported variable that has a value (the trap's variables are not exported). */
function exportedVariables(kind: 'S' | 'E'): string {
  return (
    `builtin mapfile -t __toolgate_v < <(builtin compgen -e); ` +
    `for __toolgate_n in "\${__toolgate_v[@]}"; do [[ -v $__toolgate_n ]] && builtin printf "${kind}%s=%s\\0" "$__toolgate_n" "\${!__toolgate_n}"; done`
  );
}

/** `F` + name + newline + `declare -f` text for every function but the prologue's own. */
const FUNCTIONS =
  `builtin mapfile -t __toolgate_v < <(builtin compgen -A function); ` +
  `for __toolgate_n in "\${__toolgate_v[@]}"; do [[ $__toolgate_n == __toolgate_* ]] || { builtin printf "F%s\\n" "$__toolgate_n"; builtin declare -f -- "$__toolgate_n"; builtin printf "\\0"; }; done`;

export function buildShellScript(command: string, options: ShellScriptOptions = {}): string {
  const lines = [`exec {${STATE_FD_VAR}}>&3 3>&-`];
  const imported = options.importedFunctions ?? [];
  if (imported.length > 0) lines.push(`builtin export -fn -- ${imported.map(quote).join(' ')} 2>/dev/null`);
  // The trap's own text is single-quoted below: it must not contain a single quote (printf formats use "…").
  const atExit = ['builtin printf C', 'builtin pwd -P', 'builtin printf "\\0"'];
  if (options.capture === true) atExit.push(exportedVariables('E'), FUNCTIONS, 'builtin printf "Z\\0"');
  // xtrace off first: a command that ran `set -x` must not have the dump traced into its output.
  lines.push(`trap '{ builtin set +x; } 2>/dev/null; { ${atExit.join('; ')}; } >&${FD} 2>/dev/null' EXIT`);
  if (options.envFile !== undefined) lines.push(`if [ -r ${quote(options.envFile)} ]; then . ${quote(options.envFile)}; fi`);
  if (options.capture === true) {
    lines.push(`{ ${exportedVariables('S')}; builtin printf "R\\0"; } >&${FD} 2>/dev/null`, 'builtin unset __toolgate_v __toolgate_n');
  }
  lines.push(command);
  return lines.join('; ');
}

/** Single-quotes a string for bash. */
export function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
