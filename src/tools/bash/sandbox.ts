/**
 * The OS sandbox (Linux): bubblewrap. The whole filesystem is mounted read-only, the working directories (and any
 * extra `allowWrite` paths) writable, /tmp private, the network unshared unless allowed, and the paths through
 * which a command could make something run later — `.git/hooks`, `.git/config`, `.claude/`, `.toolgate/`,
 * `.mcp.json` — read-only again inside the writable directories.
 *
 * Whether bwrap can run is probed once per process by running it (it may be installed but unusable: no user
 * namespaces, seccomp in a container…). The answer is never assumed.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

export type SandboxAvailability =
  | { readonly available: true; readonly bwrapPath: string }
  | { readonly available: false; readonly reason: string };

export interface SandboxPlan {
  readonly bwrapPath: string;
  /** Absolute directories writable inside (the working directories); missing ones are skipped. */
  readonly writableDirs: readonly string[];
  readonly allowNetwork: boolean;
  /** Files or folders that must stay visible (read-only) even when they live in the private /tmp. */
  readonly readOnlyPaths?: readonly string[];
  readonly cwd: string;
}

/** Relative to each writable directory: what must stay read-only so a command cannot plant code that runs later. */
export const PROTECTED_RELATIVE_PATHS: readonly string[] = [
  '.git/hooks',
  '.git/config',
  '.claude',
  '.toolgate',
  '.mcp.json',
];

let probe: Promise<SandboxAvailability> | undefined;

/** Cached per process. `refresh` probes again (after installing bubblewrap, in tests). */
export function detectSandbox(options: { refresh?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<SandboxAvailability> {
  if (probe === undefined || options.refresh === true) probe = runProbe(options.env ?? process.env);
  return probe;
}

async function runProbe(env: NodeJS.ProcessEnv): Promise<SandboxAvailability> {
  if (process.platform !== 'linux') {
    return { available: false, reason: `the bubblewrap sandbox is Linux-only (this is ${process.platform})` };
  }
  const bwrapPath = findOnPath('bwrap', env.PATH ?? '');
  if (bwrapPath === undefined) {
    return { available: false, reason: 'bwrap (package bubblewrap) is not installed or not on PATH' };
  }
  const args = [...baseArgs(false), '--chdir', '/', '--', 'true'];
  return new Promise((resolve) => {
    execFile(bwrapPath, args, { timeout: 5_000, env }, (error, _stdout, stderr) => {
      if (error === null) resolve({ available: true, bwrapPath });
      else {
        const detail = stderr.trim() || error.message;
        resolve({ available: false, reason: `bwrap is installed but cannot create a sandbox here: ${detail}` });
      }
    });
  });
}

function baseArgs(allowNetwork: boolean): string[] {
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];
  if (!allowNetwork) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  return args;
}

/** The bwrap arguments up to (not including) `--`; the caller appends `-- bash -c …`. */
export function buildBwrapArgs(plan: SandboxPlan): string[] {
  const args = baseArgs(plan.allowNetwork);
  const writable = unique(plan.writableDirs.map((d) => path.resolve(d))).filter(isDirectory);
  // Parents before children, so a nested bind is not hidden by its parent's.
  writable.sort((a, b) => a.length - b.length);
  for (const dir of plan.readOnlyPaths ?? []) {
    if (existsSync(dir)) args.push('--ro-bind', dir, dir);
  }
  for (const dir of writable) args.push('--bind', dir, dir);
  for (const dir of writable) {
    for (const rel of protectedPathsIn(dir)) args.push('--ro-bind', rel, rel);
  }
  args.push('--chdir', plan.cwd);
  return args;
}

/**
 * The protected paths that exist under `dir`. An existing `.git` directory always gets its `hooks` folder created
 * (git creates it anyway) so that a command cannot add the first hook through a missing, hence unprotected, path.
 */
function protectedPathsIn(dir: string): string[] {
  const gitDir = path.join(dir, '.git');
  if (isDirectory(gitDir) && !existsSync(path.join(gitDir, 'hooks'))) {
    try {
      mkdirSync(path.join(gitDir, 'hooks'));
    } catch {
      // Not ours to create (read-only checkout): then it cannot be written inside the sandbox either.
    }
  }
  return PROTECTED_RELATIVE_PATHS.map((rel) => path.join(dir, rel)).filter((p) => existsSync(p));
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

export function findOnPath(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      const st = statSync(candidate);
      if (st.isFile() && (st.mode & 0o111) !== 0) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
