/**
 * What the sandbox enforces for one command, derived from the same rules the permission engine applies, so a program
 * the engine cannot see into (`python3 script.py`, `make`) is held to them by the kernel:
 * - read: every Read deny rule (and Glob/Grep/… deny rules) becomes an unreadable path, plus `sandbox.filesystem.denyRead`,
 *   plus toolgate's own state (`toolgateStatePaths`: transcripts, tool results, MCP OAuth tokens, user grants);
 * - write: the working directories, the session temp folder, directories an `Edit(…/**)` allow rule names, and
 *   `sandbox.filesystem.allowWrite` — minus Edit/Write deny rules, `sandbox.filesystem.denyWrite` and the paths through
 *   which a command could plant code that the host runs later: every repository's metadata, `.claude`, `.bashrc`…
 *   (sandbox-protected-paths.ts), resolved against every working directory, not the process's;
 * - network: the hosts `WebFetch(domain:…)` allow rules and `sandbox.network.allowedDomains` name, minus the denied ones.
 */
import os from 'node:os';
import path from 'node:path';
import { domainPatternOf } from '../../permissions/domains.js';
import { caseFoldGlob, compilePathPatternVariants, type CompiledPathPattern } from '../../permissions/path-pattern.js';
import { workingDirectories } from '../../permissions/paths.js';
import type { PermissionRule, ToolPermissionContext } from '../../tool/permission-types.js';
import { distrustProgramsIn } from '../../tool/executable-path.js';
import { stateDirectory } from '../../tool/state-directory.js';
import type { SandboxSettings } from './bash-settings.js';
import { scanProtectedPaths } from './sandbox-protected-paths.js';

export interface SandboxNetworkPolicy {
  /** `unrestricted`: the legacy `allowNetwork: true`; otherwise only these hosts, through the proxy. */
  readonly unrestricted: boolean;
  readonly allowedDomains: readonly string[];
  readonly deniedDomains: readonly string[];
}

export interface SandboxPolicy {
  readonly denyRead: readonly string[];
  readonly allowWrite: readonly string[];
  readonly denyWrite: readonly string[];
  readonly network: SandboxNetworkPolicy;
  /**
   * What the look for repositories could not cover (too many folders, an unreadable index), for the command's notes;
   * a command is then not approved for being sandboxed (tools/bash/index.ts).
   */
  readonly incomplete?: string;
  /** Why the command must not run sandboxed at all: protected files with a second name (a hard link) it may write. */
  readonly refusal?: string;
}

const READ_RESTRICT_TOOLS = new Set(['Read', 'Glob', 'Grep', 'LSP', 'NotebookRead']);
const WRITE_RESTRICT_TOOLS = new Set(['Edit', 'Write', 'NotebookEdit', 'MultiEdit']);
const GLOB_CHARS = /[*?[\\]/;

/** An environment a session may run with: the process's, the runtime's (`options.env`), the settings' `env`. */
export type SessionEnv = Readonly<Record<string, string | undefined>>;

/**
 * toolgate's state, which no sandboxed command may read: the state directory (every session's transcript and tool
 * results, the MCP OAuth token store) wherever any of the session's environments put it — the Agent SDK files
 * sessions and McpClientManager its OAuth tokens under the state directory of `options.env`, not of the process —
 * and the default one, this session's folder wherever the caller put it (its `tmp`, the command's TMPDIR, stays:
 * writable paths are restored over a read deny), `~/.toolgate` (user settings and expiring grants), and the user-level
 * files toolgate writes grants and MCP servers to (`~/.claude/settings.json`, `~/.claude.json`, which can hold a
 * server's headers and environment). A folder that holds a working directory is left out: hiding it would hide the
 * project.
 */
export function toolgateStatePaths(home: string, sessionDir: string, workingDirs: readonly string[], envs: readonly (SessionEnv | undefined)[] = [process.env]): string[] {
  const stateDirs = [stateDirectory({}, home)];
  for (const env of envs) {
    if (env === undefined) continue;
    stateDirs.push(stateDirectory(env as NodeJS.ProcessEnv, home));
    // session-setup.ts and sessions.ts take the home folder from that environment's HOME.
    if (env.HOME !== undefined && path.isAbsolute(env.HOME)) stateDirs.push(stateDirectory(env as NodeJS.ProcessEnv, env.HOME));
  }
  const candidates = [
    ...stateDirs,
    path.resolve(sessionDir),
    path.join(home, '.toolgate'),
    path.join(home, '.claude', 'settings.json'),
    path.join(home, '.claude.json'),
  ];
  const holdsWorkingDir = (p: string) => workingDirs.some((d) => d === p || d.startsWith(p.endsWith(path.sep) ? p : p + path.sep));
  return [...new Set(candidates)].filter((p) => !holdsWorkingDir(p));
}

export interface SandboxPolicyOptions {
  /** The session's folder; by construction the session temp folder is its `tmp` (run-bash.ts). */
  readonly sessionDir?: string;
  /** The session's environments besides the process's: the runtime's (`settings.baseEnv`) and the settings' `env`. */
  readonly envs?: readonly (SessionEnv | undefined)[];
}

export async function buildSandboxPolicy(
  ctx: ToolPermissionContext,
  settings: SandboxSettings,
  sessionTmpDir: string,
  options: SandboxPolicyOptions = {},
): Promise<SandboxPolicy> {
  const sessionDir = options.sessionDir ?? path.dirname(sessionTmpDir);
  const home = ctx.homeDir ?? os.homedir();
  const dirs = workingDirectories(ctx);
  const expand = (p: string) => (p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : path.resolve(ctx.cwd, p));

  const denyRead = new Set<string>(toolgateStatePaths(home, sessionDir, dirs, [process.env, ...(options.envs ?? [])]));
  for (const pattern of compiled(ctx.alwaysDenyRules, READ_RESTRICT_TOOLS, ctx)) {
    for (const glob of patternGlobs(pattern, [...dirs, home])) denyRead.add(glob);
  }
  for (const p of settings.filesystem?.denyRead ?? []) denyRead.add(expand(p));

  const allowWrite = new Set<string>([...dirs, sessionTmpDir]);
  for (const pattern of compiled(ctx.alwaysAllowRules, new Set(['Edit']), ctx)) {
    const dir = writableDirOf(pattern);
    if (dir !== undefined) allowWrite.add(dir);
  }
  for (const p of settings.filesystem?.allowWrite ?? []) allowWrite.add(expand(p));
  // What a sandboxed command may write, toolgate never runs as its own program (git, bwrap: executable-path.ts).
  distrustProgramsIn(allowWrite);

  const denyWrite = new Set<string>();
  const scan = await scanProtectedPaths({ workingDirs: dirs, writableRoots: [...allowWrite], home });
  for (const p of scan.paths) denyWrite.add(p);
  for (const pattern of compiled(ctx.alwaysDenyRules, WRITE_RESTRICT_TOOLS, ctx)) {
    // The runtime takes literal write denies only; a glob deny is still enforced by the engine for Edit/Write.
    if (!pattern.segments.some((s) => GLOB_CHARS.test(s) || s === '**')) denyWrite.add(`/${pattern.segments.join('/')}`);
  }
  for (const p of settings.filesystem?.denyWrite ?? []) denyWrite.add(expand(p));

  return {
    denyRead: [...denyRead],
    allowWrite: [...allowWrite],
    denyWrite: [...denyWrite],
    network: networkPolicy(ctx, settings),
    ...(scan.incomplete !== undefined ? { incomplete: scan.incomplete } : {}),
    ...(scan.linked !== undefined ? { refusal: linkedRefusal(scan.linked) } : {}),
  };
}

function linkedRefusal(files: readonly string[]): string {
  const shown = files.slice(0, 5).join(', ') + (files.length > 5 ? `, and ${files.length - 5} more` : '');
  return (
    `The command was not run: the sandbox keeps repository metadata and the files git runs read-only, but ${shown} ` +
    `ha${files.length > 1 ? 've' : 's'} more than one name (a hard link), and another name could be written from inside. ` +
    'Find the other names with `find <folder> -samefile <file>` and remove them, then run the command again.'
  );
}

function networkPolicy(ctx: ToolPermissionContext, settings: SandboxSettings): SandboxNetworkPolicy {
  const domains = (rules: readonly PermissionRule[]) =>
    rules.flatMap((r) => {
      if (r.ruleValue.toolName !== 'WebFetch' || r.ruleValue.ruleContent === undefined) return [];
      const pattern = domainPatternOf(r.ruleValue.ruleContent);
      return pattern !== undefined && pattern !== '*' ? [pattern] : [];
    });
  return {
    unrestricted: settings.allowNetwork === true,
    allowedDomains: unique([...domains(ctx.alwaysAllowRules), ...(settings.network?.allowedDomains ?? [])]),
    deniedDomains: unique([...domains(ctx.alwaysDenyRules), ...(settings.network?.deniedDomains ?? [])]),
  };
}

function compiled(rules: readonly PermissionRule[], tools: ReadonlySet<string>, ctx: ToolPermissionContext): CompiledPathPattern[] {
  return rules
    .filter((r) => r.ruleValue.ruleContent !== undefined && tools.has(r.ruleValue.toolName))
    .flatMap((r) => {
      try {
        return compilePathPatternVariants(r, r.ruleValue.ruleContent!, ctx);
      } catch {
        return [];
      }
    });
}

/**
 * Globs the runtime expands (on Linux it needs a literal directory to start from): an anchored pattern as itself,
 * and once more with the part after its literal prefix case-folded (deny rules ignore case); a floating pattern
 * (`**\/.env`) under each directory that matters — the working directories and home.
 */
export function patternGlobs(pattern: CompiledPathPattern, roots: readonly string[]): string[] {
  const segs = pattern.segments;
  if (segs.length === 0) return [];
  if (segs[0] === '**') {
    const rest = segs.slice(1);
    if (rest.length === 0) return [...roots];
    const tail = rest.map((s) => (s === '**' ? s : caseFoldGlob(s))).join('/');
    return roots.map((r) => path.join(r, '**', tail));
  }
  let n = 0;
  while (n < segs.length - 1 && !GLOB_CHARS.test(segs[n]!) && segs[n] !== '**') n++;
  const prefix = `/${segs.slice(0, n).join('/')}`;
  const rest = segs.slice(n);
  const literal = `/${segs.join('/')}`;
  const folded = path.join(prefix, rest.map((s) => (s === '**' ? s : caseFoldGlob(s))).join('/'));
  return folded === literal ? [literal] : [literal, folded];
}

/** `Edit(/dir/**)`, `Edit(./src/**)` or a literal folder: the folder; anything narrower cannot become a bind mount. */
function writableDirOf(pattern: CompiledPathPattern): string | undefined {
  const segs = [...pattern.segments];
  while (segs[segs.length - 1] === '**') segs.pop();
  if (segs.length === 0 || segs[0] === '**' || segs.some((s) => GLOB_CHARS.test(s) || s === '**')) return undefined;
  return `/${segs.join('/')}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter((v) => v !== ''))];
}
