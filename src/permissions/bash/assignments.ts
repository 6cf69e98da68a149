/**
 * Which variable assignments are harmless. A leading `VAR=value` on a command is stripped for allow matching only
 * when VAR is on an allowlist (the value then cannot change what the command does); everything else stays part of
 * the command. Bare assignments (`x=1;`) are neutral unless they set a variable that changes how later commands
 * run (`PATH`, `LD_PRELOAD`, `IFS`, `GIT_*`, …).
 */

const SAFE_ENV = new Set([
  'NODE_ENV', 'CI', 'DEBUG', 'FORCE_COLOR', 'NO_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'TERM', 'COLORTERM', 'TZ', 'LANG',
  'LANGUAGE', 'RUST_BACKTRACE', 'RUST_LOG', 'GOOS', 'GOARCH', 'CGO_ENABLED', 'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'NODE_NO_WARNINGS', 'VERBOSE', 'LOG_LEVEL', 'COLUMNS', 'LINES',
  'GIT_TERMINAL_PROMPT', 'HUSKY', 'NPM_CONFIG_LOGLEVEL', 'TIMING', 'PYTEST_ADDOPTS_DISABLED',
]);

const DANGEROUS_EXACT = new Set([
  'PATH', 'IFS', 'ENV', 'BASH_ENV', 'CDPATH', 'GLOBIGNORE', 'HOME', 'SHELL', 'SHELLOPTS', 'BASHOPTS', 'PS1', 'PS2',
  'PS3', 'PS4', 'PROMPT_COMMAND', 'PAGER', 'MANPAGER', 'EDITOR', 'VISUAL', 'BROWSER', 'LESSOPEN', 'LESSCLOSE',
  'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PERL5LIB', 'PERL5OPT', 'PERLLIB',
  'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH', 'GOFLAGS',
  'RIPGREP_CONFIG_PATH', 'TMPDIR', 'XDG_CONFIG_HOME', 'ZDOTDIR', 'HISTFILE', 'INPUTRC', 'SSH_ASKPASS', 'SUDO_ASKPASS',
  'TERMINFO', 'MAIL', 'FCEDIT', 'CC', 'CXX', 'LD', 'MAKEFLAGS', 'GREP_OPTIONS', 'SYSTEMD_PAGER', 'OLDPWD', 'PWD',
]);
const DANGEROUS_PREFIX = /^(LD_|DYLD_|GIT_|BASH_|NPM_CONFIG_|npm_config_|YARN_|PIP_|CARGO_|RUSTC|RUSTFLAGS|SSH_|GCONV_|LC_|PYTHON|NODE_|DOCKER_|KUBE|AWS_|GOOGLE_|AZURE_)/;

export function assignmentName(text: string): string {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)/.exec(text);
  return m ? m[1]! : text;
}

/** May a leading `NAME=…` be stripped before allow matching? */
export function isStrippableAssignmentName(name: string): boolean {
  return SAFE_ENV.has(name) || /^LC_[A-Z]+$/.test(name);
}

/** Can setting NAME (bare, or for one command) change which program runs or what it runs? */
export function isDangerousVariable(name: string): boolean {
  if (isStrippableAssignmentName(name)) return false;
  if (DANGEROUS_EXACT.has(name) || DANGEROUS_PREFIX.test(name)) return true;
  // Environment variables are conventionally upper-case; an unknown one may be read by any tool (`*_OPTIONS`,
  // `*_CONFIG`), so only lower/mixed-case shell variables are neutral.
  return name === name.toUpperCase();
}
