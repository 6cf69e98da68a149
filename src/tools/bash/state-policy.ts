/**
 * What of a command's shell state may carry over to later commands (docs/security.md, "1. Bash session state"). The
 * records the shell writes after a command are under that command's control, so every one is untrusted data: what
 * is kept must pass this policy whatever the records say, and a later command runs it only as the engine judged it
 * (state-review.ts). The policy is the second wall: a variable carries over only from a call whose text sets and
 * exports it and that a person, an allow rule naming it or a mode approved (state-review.ts asks for every such call).
 *
 * Never carried over, by name:
 *  - bash's own and toolgate's (`PWD`, `SHLVL`, the process marker, `__toolgate_*`, `__tg_*`, `BASH_*`) and what bash
 *    reads before toolgate's prologue or around every command (`BASH_ENV`, `ENV`, `SHELLOPTS`, `BASHOPTS`,
 *    `PROMPT_COMMAND`, `PS0`–`PS4`, `IFS`, `CDPATH`, `GLOBIGNORE`, `EXECIGNORE`, …);
 *  - variables that make a program run other code or read its configuration elsewhere: interpreter options and
 *    library paths (`NODE_*` but `NODE_ENV`, `PYTHON*`, `PERL*`, `RUBY*`, `JAVA_*`, `CLASSPATH`, `LUA_*`, …), the
 *    loader (`LD_*`, `GCONV_PATH`, `GLIBC_TUNABLES`, …), git (`GIT_*`, all of them: `GIT_CONFIG_*` would otherwise
 *    override the git safety configuration), package managers (`npm_config_*`, `YARN_*`, `PIP_*`, `CARGO_*`, …),
 *    compilers and make (`CC`, `CFLAGS`, `MAKEFLAGS`, …), pagers and editors (`PAGER`, `LESS*`, `EDITOR`, …),
 *    configuration homes (`HOME`, `XDG_*`, `TMPDIR`, `GNUPGHOME`, `KUBECONFIG`, `DOCKER_*`, `AWS_*`, …), proxies and
 *    certificate stores, and the options of tools the engine lets run without asking (`RIPGREP_CONFIG_PATH`,
 *    `TAR_OPTIONS`, `GREP_OPTIONS`, `MAGIC`, …). The names the Bash analyser strips as harmless
 *    (`isStrippableAssignmentName`: `NODE_ENV`, `PYTHONUNBUFFERED`, `TZ`, …) may be kept, except under `GIT_`.
 *  - a locale variable (`LC_*`, `LANG`, `LANGUAGE`) whose value is not C, POSIX or a UTF-8 locale: in BIG5, GBK or
 *    GB18030 bash reads a later command's bytes otherwise than the engine (permissions/bash/locale-switch.ts).
 *  - an unset or empty PATH (bash then uses its own default, which ends in `.`), or one with a relative or empty entry
 *    anywhere (its meaning moves with the directory). Other PATH values are kept, and the engine judges each later
 *    command with them (state-review.ts).
 *  - a function named like a builtin, a keyword, a program on PATH, or a hook bash calls on its own
 *    (`command_not_found_handle`), or with a name outside bash's plain ones.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isStrippableAssignmentName } from '../../permissions/bash/assignments.js';
import { isLocaleVariable, isSafeLocaleValue } from '../../permissions/bash/locale-switch.js';
import { PGROUP_ENV } from '../../hooks/process-marker.js';
import { isExecutableFile } from '../shared/executable.js';

/** Builtins and keywords (toolgate's prologue runs some by their bare names). */
export const BASH_WORDS: ReadonlySet<string> = new Set(
  ('. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable ' +
    'eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd ' +
    'read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias ' +
    'unset wait if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc').split(' '),
);

/** Functions bash calls by itself, whatever the command says. */
const HOOK_FUNCTIONS: ReadonlySet<string> = new Set(['command_not_found_handle']);
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,255}$/;

/** Bash's own and toolgate's per-command variables: never carried, and not worth a note. */
const INTERNAL: ReadonlySet<string> = new Set(['_', 'SHLVL', 'PWD', 'OLDPWD', 'TOOLGATE', PGROUP_ENV]);

const REFUSED_EXACT: ReadonlySet<string> = new Set([
  // bash
  'ENV', 'SHELLOPTS', 'BASHOPTS', 'PROMPT_COMMAND', 'PS0', 'PS1',
  'PS2', 'PS3', 'PS4', 'IFS', 'CDPATH', 'GLOBIGNORE', 'EXECIGNORE', 'FIGNORE', 'HOSTFILE', 'HISTFILE', 'INPUTRC', 'TMOUT',
  'FUNCNEST', 'POSIXLY_CORRECT', 'SHELL', 'ZDOTDIR', 'FCEDIT', 'MAIL', 'MAILPATH', 'MAILCHECK',
  // homes, temp folders and configuration found through the environment
  'HOME', 'TMPDIR', 'TMP', 'TEMP', 'TEMPDIR', 'GNUPGHOME', 'KUBECONFIG', 'WGETRC', 'REQUESTS_CA_BUNDLE', 'MAGIC',
  'TERMINFO', 'TERMINFO_DIRS', 'TERMCAP', 'RIPGREP_CONFIG_PATH', 'GREP_OPTIONS', 'TAR_OPTIONS', 'GZIP', 'BZIP',
  'BZIP2', 'XZ_OPT', 'XZ_DEFAULTS', 'UNZIP', 'UNZIPOPT', 'ZIPINFO', 'ZIPINFOOPT', 'ZIPOPT', 'RSYNC_RSH', 'CVS_RSH',
  'CVSEDITOR', 'AWKPATH', 'AWKLIBPATH', 'SUDO_ASKPASS',
  // the loader
  'GCONV_PATH', 'LOCPATH', 'NLSPATH', 'HOSTALIASES', 'RESOLV_HOST_CONF', 'RES_OPTIONS', 'LOCALDOMAIN', 'GLIBC_TUNABLES',
  // interpreters
  'CLASSPATH', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'MAVEN_OPTS', 'SBT_OPTS', 'ANT_OPTS', 'TCLLIBPATH', 'TCL_LIBRARY',
  'PHPRC', 'PHP_INI_SCAN_DIR', 'ELIXIR_ERL_OPTIONS', 'RUSTFLAGS', 'GOFLAGS', 'GOENV', 'GOTOOLCHAIN', 'GOROOT', 'GOPATH',
  'GOPROXY', 'GOPRIVATE', 'GONOPROXY', 'GONOSUMDB', 'GONOSUMCHECK', 'GOSUMDB', 'GOINSECURE', 'GOWORK', 'GOEXPERIMENT',
  'GOBIN', 'GOCACHE', 'GOMODCACHE', 'GOTMPDIR',
  // compilers and make
  'CC', 'CXX', 'CPP', 'FC', 'LD', 'AS', 'AR', 'NM', 'RANLIB', 'STRIP', 'OBJCOPY', 'CFLAGS', 'CXXFLAGS', 'CPPFLAGS',
  'LDFLAGS', 'LDLIBS', 'MAKEFLAGS', 'MAKEFILES', 'MFLAGS', 'GNUMAKEFLAGS', 'PKG_CONFIG',
  // pagers, editors, browsers
  'PAGER', 'MANPAGER', 'MANOPT', 'MANPATH', 'MANROFFOPT', 'MORE', 'EDITOR', 'VISUAL', 'BROWSER', 'VIMINIT', 'EXINIT',
  'MYVIMRC', 'VIMRUNTIME', 'GVIMINIT', 'EMACSLOADPATH',
]);

/** Prefixes (case-sensitive unless the pattern says otherwise). */
const REFUSED_PREFIX =
  /^(?:__toolgate|__tg_|BASH_|LD_|DYLD_|MALLOC_|GIT_|XDG_|NODE_|PYTHON|PYTEST_|PERL|RUBY|GEM_|BUNDLE_|JAVA_|GRADLE_|LUA_|R_|JULIA_|ERL_|DOTNET_|COMPlus_|CORECLR_|CARGO_|RUSTC|RUSTDOC|RUSTUP_|DENO_|BUN_|[Nn][Pp][Mm]_[Cc][Oo][Nn][Ff][Ii][Gg]_|NPM_|YARN_|PNPM_|COREPACK_|PIP_|UV_|POETRY_|PIPENV_|COMPOSER_|CCACHE_|DISTCC_|PKG_CONFIG_|CMAKE_|TS_NODE_|HG|SVN_|LESS|SYSTEMD_|BAT_|DELTA_|GROFF_|FZF_|SSH_|GPG_|SSL_|OPENSSL_|CURL_|DOCKER_|KUBE|AWS_|CLOUDSDK_|AZURE_)/;

const PROXY = /^(?:https?|ftp|all|no)_proxy$/i;

/**
 * Why variable `name` (set to `value`, or unset: null; left out: any value) is never carried over to a later
 * command, or undefined when it may be. A harmless name the Bash analyser strips before allow matching (`NODE_ENV`,
 * `TZ`) may, unless it is git's; a locale variable only with a value bash reads commands in as the engine does.
 */
export function refusedVariable(name: string, value?: string | null): 'internal' | 'git' | 'steers' | 'locale' | undefined {
  if (INTERNAL.has(name) || name.startsWith('__toolgate') || name.startsWith('__tg_')) return 'internal';
  if (name.startsWith('GIT_')) return 'git';
  if (isLocaleVariable(name)) return typeof value === 'string' && !isSafeLocaleValue(value) ? 'locale' : undefined;
  if (isStrippableAssignmentName(name)) return undefined;
  if (REFUSED_EXACT.has(name) || REFUSED_PREFIX.test(name) || PROXY.test(name)) return 'steers';
  return undefined;
}

/**
 * Why a PATH value is never carried over: unset or empty (bash falls back to its compiled-in default, whose last entry
 * is `.`), or with a relative or empty entry anywhere, a trailing `:` included (the current directory). Entries the
 * runtime's own PATH had are not excused: the kept PATH is the command's whole PATH.
 */
export function refusedPath(value: string | null): string | undefined {
  if (value === null) return 'an unset PATH (bash would search its default, which ends in the current directory)';
  if (value === '') return 'an empty PATH (the current directory)';
  const relative = value.split(':').find((dir) => !path.isAbsolute(dir));
  if (relative === undefined) return undefined;
  return relative === '' ? 'an empty PATH entry (the current directory)' : `the relative PATH entry ${relative}`;
}

/** Why an entry of the state is not applied to a command (the policy, checked again as the state is used). */
export function refusedEntry(name: string, value: string | null): string | undefined {
  const refused = refusedVariable(name, value);
  if (refused !== undefined) return refused;
  return name === 'PATH' ? refusedPath(value) : undefined;
}

/**
 * Why a function named `name` is never carried over: a name outside bash's plain ones, a builtin or keyword, a hook
 * bash calls by itself, or a program found on `pathVar` (a later `ls` would run it while the engine judges `ls`).
 */
export function refusedFunction(name: string, pathVar: string, cwd: string): string | undefined {
  return refusedFunctionName(name) ?? (findProgram(name, pathVar, cwd) !== undefined ? 'program' : undefined);
}

/** `refusedFunction` without the look along PATH. */
export function refusedFunctionName(name: string): string | undefined {
  if (!FUNCTION_NAME.test(name) || name.startsWith('__toolgate') || name.startsWith('__tg_')) return 'name';
  if (BASH_WORDS.has(name)) return 'builtin';
  if (HOOK_FUNCTIONS.has(name)) return 'hook';
  return undefined;
}

/** The file `name` runs as a program under `pathVar` (the exec's own search: the first executable regular file). */
export function findProgram(name: string, pathVar: string | undefined, cwd: string): string | undefined {
  if (pathVar === undefined || name.includes('/')) return undefined;
  for (const dir of pathVar.split(':')) {
    const file = path.resolve(cwd, dir === '' ? '.' : dir, name);
    // Most entries do not have the name: asked without an exception (an ENOENT thrown costs tens of microseconds).
    if (existsSync(file) && isExecutableFile(file)) return file;
  }
  return undefined;
}
