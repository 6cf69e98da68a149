/**
 * The one way toolgate itself runs git (issue 32, invariant 3): EnterWorktree/ExitWorktree, the local-settings
 * exclude file, anything to come. A repository's configuration names programs git runs on its own — `core.fsmonitor`
 * on any status, hooks, clean/smudge filters on checkout and status, a pager, credential helpers, ssh — and a folder
 * laid out as a bare repository is a repository to git without any `.git`. The permission behind toolgate's own git
 * covers "make a worktree", "exclude a file", never "run what the repository's configuration says". So every run:
 *  - is git by absolute path (an absolute PATH entry: never a relative one, which would mean the repository itself,
 *    nor one inside the repository, the working folder or a folder sandboxed commands may write: executable-path.ts);
 *  - starts from an environment without any inherited `GIT_*` variable (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_*,
 *    GIT_EXEC_PATH, GIT_SSH*, GIT_ASKPASS, GIT_TRACE*, …) nor SSH_ASKPASS, and without the system configuration;
 *  - carries `RUNNER_SETTINGS` both as `-c` options and as GIT_CONFIG_COUNT entries (which every git it starts
 *    inherits): no fsmonitor, no hooks (`core.hooksPath=/dev/null`), bare repositories only when named with
 *    `--git-dir`, `cat` as pager, no credential helper or askpass, no external diff, no transport at all, no
 *    submodule recursion, and no look into submodules (`status` and `diff` would run git in each populated one, under
 *    its own configuration);
 *  - neutralises every clean/smudge/process filter its configuration defines, unless the command cannot convert file
 *    contents: git has no switch for "no filters", and `.gitattributes` picks a filter by a name the configuration
 *    defines, so the names are read first (`git config --get-regexp`, includes and `includeIf` resolved as the command
 *    itself will resolve them: same directory, same repository) and each is set to nothing, not required.
 * The user's global configuration stays (their ignore file, `user.*`): it is theirs, not the repository's, and every
 * program it could name is switched off all the same. Diff and merge drivers are not neutralised: a caller that runs a
 * command producing diffs passes `--no-ext-diff --no-textconv`, and no caller merges.
 */
import { execFile, spawnSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { findExecutableOnPath } from './executable-path.js';

/** Settings the Bash tool also sets for the model's commands (tools/bash/git-safety-env.ts): defined here, once. */
export const GIT_COMMAND_SETTINGS: readonly (readonly [key: string, value: string])[] = [
  ['core.fsmonitor', 'false'],
  ['safe.bareRepository', 'explicit'],
  ['core.pager', 'cat'],
];

/** What toolgate's own git runs with: the commands' settings, and no program or transport at all. */
export const RUNNER_SETTINGS: readonly (readonly [key: string, value: string])[] = [
  ...GIT_COMMAND_SETTINGS,
  ['core.hooksPath', '/dev/null'],
  ['credential.helper', ''],
  ['core.askPass', ''],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['diff.external', ''],
  ['core.alternateRefsCommand', ''],
  ['protocol.allow', 'never'],
  ['submodule.recurse', 'false'],
  // `git status` and `git diff` run `git status` inside every populated submodule, with the submodule's own
  // configuration (its filters, fsmonitor: names the runner never read). `dirty` looks no further than the
  // submodule's HEAD (a moved commit is still a change: ExitWorktree counts it). Also passed as
  // `--ignore-submodules=dirty` (SUBMODULE_LOOKERS), which a submodule's `ignore` setting in `.gitmodules` cannot
  // override, unlike this one.
  ['diff.ignoreSubmodules', 'dirty'],
  ['status.submoduleSummary', 'false'],
];

/** Subcommands that look into submodules: run with `--ignore-submodules=dirty` (the command line outranks `.gitmodules`). */
const SUBMODULE_LOOKERS = new Set(['status', 'diff']);

/** Environment variables dropped besides every `GIT_*`: git's askpass fallback. */
const DROPPED_ENV = new Set(['SSH_ASKPASS']);

/** Subcommands that never convert file contents (so never run a filter): no need to read the filter names first. */
const NO_CONTENT = new Set(['rev-parse', 'config', 'check-ref-format', 'rev-list', 'check-ignore', 'branch', 'symbolic-ref', 'show-ref', 'for-each-ref']);

export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    message: string,
    /** git's exit status (undefined: it did not run to an exit: not found, killed, timed out, aborted). */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface GitRunOptions {
  /** The directory git starts in (absolute). */
  readonly cwd: string;
  /** The repository, named explicitly (`--git-dir`) instead of found from `cwd`. */
  readonly gitDir?: string;
  readonly signal?: AbortSignal;
  /** Default 60 s. */
  readonly timeoutMs?: number;
  /** The environment to start from (default `process.env`); every `GIT_*` in it is dropped all the same. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Transports this run may use (`protocol.<name>.allow=always`; every other stays off): a plugin marketplace's clone
   * (`file` for a local repository, `https`). No `ssh` nor `ext`: they run programs the configuration names.
   */
  readonly transports?: readonly ('file' | 'https')[];
  /** Written to git's standard input (`--stdin`, `--pathspec-from-file=-`, `cat-file --batch`); default: none. */
  readonly input?: string;
  /** The most output kept (default 16 MiB). */
  readonly maxBuffer?: number;
}

function transportSettings(options: GitRunOptions): [string, string][] {
  return (options.transports ?? []).map((t) => [`protocol.${t}.allow`, 'always']);
}

export interface GitResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

const MAX_BUFFER = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * git's absolute path on the environment's PATH, or a GitError: absolute entries only, and none inside a folder the
 * model could have written (executable-path.ts) — nor inside `cwd` or the repository around it, whose files are the
 * repository's.
 */
export function gitBinary(env: NodeJS.ProcessEnv = process.env, cwd?: string): string {
  const found = findExecutableOnPath('git', env.PATH, cwd === undefined ? [] : [cwd, ...enclosingRepository(cwd)]);
  if (found === undefined) throw new GitError('git was not found on PATH (only absolute entries outside the project and the folders sandboxed commands may write are searched)');
  return found;
}

/** The nearest folder at or above `dir` that holds a `.git`: the top of the repository git will find there. */
function enclosingRepository(dir: string): string[] {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      lstatSync(path.join(d, '.git'));
      return [d];
    } catch {
      if (path.dirname(d) === d) return [];
    }
  }
}

/** The environment a run gets: the inherited one without GIT_* and SSH_ASKPASS, plus the settings and overrides. */
export function gitRunnerEnv(base: NodeJS.ProcessEnv, overrides: readonly (readonly [string, string])[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || key.startsWith('GIT_') || DROPPED_ENV.has(key)) continue;
    env[key] = value;
  }
  const settings = [...RUNNER_SETTINGS, ...overrides];
  settings.forEach(([key, value], n) => {
    env[`GIT_CONFIG_KEY_${n}`] = key;
    env[`GIT_CONFIG_VALUE_${n}`] = value;
  });
  env.GIT_CONFIG_COUNT = String(settings.length);
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_OPTIONAL_LOCKS = '0';
  env.GIT_PROTOCOL_FROM_USER = '0';
  env.GIT_PAGER = 'cat';
  env.GIT_EDITOR = ':';
  return env;
}

function argv(args: readonly string[], options: GitRunOptions): string[] {
  // A global option from a caller (`-c`, `--exec-path`) would come after the runner's and outrank them.
  if (args[0] === undefined || args[0].startsWith('-')) throw new GitError(`the runner takes a git subcommand first, not ${JSON.stringify(args[0] ?? '')}`);
  const c = [...RUNNER_SETTINGS, ...transportSettings(options)].flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  const sub = args[0];
  const rest = args.slice(1);
  const submodules = SUBMODULE_LOOKERS.has(sub) ? ['--ignore-submodules=dirty'] : [];
  return ['--no-pager', ...c, ...(options.gitDir !== undefined ? [`--git-dir=${options.gitDir}`] : []), sub, ...submodules, ...rest];
}

/**
 * Overrides that switch off every filter driver the configuration defines, read from `config -z --get-regexp` output
 * (`key\nvalue\0` records; the subsection keeps its case and may hold any character, hence environment entries, not
 * `-c`, which splits at `=`).
 */
export function filterOverrides(configOutput: string): [string, string][] {
  const names = new Set<string>();
  for (const record of configOutput.split('\0')) {
    const key = record.split('\n', 1)[0]!;
    const m = /^filter\.(.+)\.[a-z]+$/s.exec(key);
    if (m) names.add(m[1]!);
  }
  return [...names].flatMap((name): [string, string][] => [
    [`filter.${name}.smudge`, ''],
    [`filter.${name}.clean`, ''],
    [`filter.${name}.process`, ''],
    [`filter.${name}.required`, 'false'],
  ]);
}

const FILTER_QUERY = ['config', '-z', '--get-regexp', '^filter\\.'];

function needsFilterNames(args: readonly string[]): boolean {
  return !NO_CONTENT.has(args[0] ?? '') && !(args[0] === 'worktree' && args[1] === 'list');
}

function failure(args: readonly string[], status: number | undefined, stderr: string, fallback: string): GitError {
  const text = (stderr.trim() || fallback).split('\n').slice(0, 3).join(' ');
  return new GitError(`git ${args[0] ?? ''} failed: ${text}`, status);
}

function execOnce(args: readonly string[], options: GitRunOptions, overrides: readonly (readonly [string, string])[]): Promise<GitResult> {
  return execRaw(args, options, overrides, 'utf8');
}

function execRaw<E extends 'utf8' | 'buffer'>(
  args: readonly string[],
  options: GitRunOptions,
  overrides: readonly (readonly [string, string])[],
  encoding: E,
): Promise<{ status: number; stdout: E extends 'utf8' ? string : Buffer; stderr: string }> {
  type Out = E extends 'utf8' ? string : Buffer;
  const base = options.env ?? process.env;
  let file: string;
  try {
    file = gitBinary(base, options.cwd);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      argv(args, options),
      {
        cwd: options.cwd,
        env: gitRunnerEnv(base, [...transportSettings(options), ...overrides]),
        maxBuffer: options.maxBuffer ?? MAX_BUFFER,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        encoding: encoding as BufferEncoding,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        const err = String(stderr);
        if (error === null) resolve({ status: 0, stdout: stdout as unknown as Out, stderr: err });
        else if (typeof error.code === 'number' && error.killed !== true) resolve({ status: error.code, stdout: stdout as unknown as Out, stderr: err });
        else reject(failure(args, undefined, err, error.message));
      },
    );
    // git that reads no input must not wait for any: its standard input ends at once.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input ?? '');
  });
}

function execOnceSync(args: readonly string[], options: GitRunOptions, overrides: readonly (readonly [string, string])[]): GitResult {
  const base = options.env ?? process.env;
  const r = spawnSync(gitBinary(base, options.cwd), argv(args, options), {
    cwd: options.cwd,
    env: gitRunnerEnv(base, [...transportSettings(options), ...overrides]),
    maxBuffer: options.maxBuffer ?? MAX_BUFFER,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    encoding: 'utf8',
    ...(options.input !== undefined ? { input: options.input, stdio: ['pipe', 'pipe', 'pipe'] } : { stdio: ['ignore', 'pipe', 'pipe'] }),
  });
  if (r.error !== undefined || r.status === null) throw failure(args, undefined, r.stderr ?? '', r.error?.message ?? `killed by ${r.signal}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function overridesFrom(query: GitResult): [string, string][] {
  // Status 1: no filter is defined. Anything else is a configuration git cannot read: the command would fail too.
  if (query.status === 1) return [];
  if (query.status !== 0) throw failure(FILTER_QUERY, query.status, query.stderr, 'cannot read the configuration');
  return filterOverrides(query.stdout);
}

/** Runs git hardened; resolves with its exit status and output (a non-zero status is not an error here). */
export async function gitResult(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  const overrides = needsFilterNames(args) ? overridesFrom(await execOnce(FILTER_QUERY, options, [])) : [];
  return execOnce(args, options, overrides);
}

/** Runs git hardened; its standard output, or a GitError when it exits non-zero. */
export async function runGit(args: readonly string[], options: GitRunOptions): Promise<string> {
  const r = await gitResult(args, options);
  if (r.status !== 0) throw failure(args, r.status, r.stderr, `exit status ${r.status}`);
  return r.stdout;
}

/** Runs git hardened; its standard output as bytes (blobs: `cat-file --batch`), or a GitError when it exits non-zero. */
export async function runGitBytes(args: readonly string[], options: GitRunOptions): Promise<Buffer> {
  const overrides = needsFilterNames(args) ? overridesFrom(await execOnce(FILTER_QUERY, options, [])) : [];
  const r = await execRaw(args, options, overrides, 'buffer');
  if (r.status !== 0) throw failure(args, r.status, r.stderr, `exit status ${r.status}`);
  return r.stdout;
}

/** `gitResult`, synchronously (for callers that cannot wait: the settings writer). */
export function gitResultSync(args: readonly string[], options: Omit<GitRunOptions, 'signal'>): GitResult {
  const overrides = needsFilterNames(args) ? overridesFrom(execOnceSync(FILTER_QUERY, options, [])) : [];
  return execOnceSync(args, options, overrides);
}

/** `runGit`, synchronously. */
export function runGitSync(args: readonly string[], options: Omit<GitRunOptions, 'signal'>): string {
  const r = gitResultSync(args, options);
  if (r.status !== 0) throw failure(args, r.status, r.stderr, `exit status ${r.status}`);
  return r.stdout;
}
