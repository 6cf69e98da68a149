/**
 * The script a fresh `bash -c` runs: a short prologue, then the model's command as written.
 *
 * The prologue moves descriptor 3 (a file the parent opened for the final working directory) to a descriptor bash
 * picks (≥ 10) so a command that uses fd 3 itself cannot clobber it, records `pwd -P` there on exit (any exit:
 * success, failure, `exit N`), and sources the env file when there is one. It shares the command's first line, so
 * bash's line numbers in error messages (and `$LINENO`) are the command's own.
 */

/** The variable holding the cwd descriptor inside the shell; visible to the command, so named to avoid clashes. */
const CWD_FD_VAR = '__toolgate_cwd_fd';

export function buildShellScript(command: string, envFile?: string): string {
  const lines = [
    `exec {${CWD_FD_VAR}}>&3 3>&-`,
    `trap 'builtin pwd -P >&"$${CWD_FD_VAR}" 2>/dev/null' EXIT`,
  ];
  if (envFile !== undefined) lines.push(`if [ -r ${quote(envFile)} ]; then . ${quote(envFile)}; fi`);
  lines.push(command);
  return lines.join('; ');
}

/** Single-quotes a string for bash. */
export function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
