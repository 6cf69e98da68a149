/**
 * Whether the OS sandbox can run here. The sandbox itself is `@anthropic-ai/sandbox-runtime` (the library Claude Code
 * uses: bubblewrap on Linux, socat bridging a filtering proxy into a network-less namespace, ripgrep to find the
 * files it must protect); see `sandbox-runtime.ts`. This module finds its three programs and proves that bubblewrap
 * can create the namespaces it needs by running it once (it may be installed but unusable: user namespaces disabled,
 * seccomp in a container…). The answer is probed once per process and never assumed.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { findExecutableOnPath } from '../../tool/executable-path.js';
import { locateRipgrep } from '../shared/ripgrep.js';

/** Whether the OS sandbox can run here (`detectSandbox`): the programs it found, or why not. */
export type SandboxAvailability =
  | {
      readonly available: true;
      readonly engine: 'sandbox-runtime';
      readonly bwrapPath: string;
      readonly socatPath: string;
      readonly rgPath: string;
    }
  | { readonly available: false; readonly reason: string };

let probe: Promise<SandboxAvailability> | undefined;

/** Cached per process. `refresh` probes again (after installing bubblewrap, in tests). */
export function detectSandbox(options: { refresh?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<SandboxAvailability> {
  if (probe === undefined || options.refresh === true) probe = runProbe(options.env ?? process.env);
  return probe;
}

async function runProbe(env: NodeJS.ProcessEnv): Promise<SandboxAvailability> {
  if (process.platform !== 'linux') {
    return { available: false, reason: `toolgate's sandbox is Linux-only for now (this is ${process.platform})` };
  }
  const bwrapPath = findExecutableOnPath('bwrap', env.PATH);
  if (bwrapPath === undefined) {
    return { available: false, reason: 'bwrap (package bubblewrap) is not installed or not on PATH' };
  }
  const socatPath = findExecutableOnPath('socat', env.PATH);
  if (socatPath === undefined) {
    return { available: false, reason: 'socat (package socat) is not installed or not on PATH; the sandbox network proxy needs it' };
  }
  let rgPath: string;
  try {
    rgPath = (await locateRipgrep({ env, loadBundledPath: async () => bundledRipgrep() })).path;
  } catch (error) {
    return { available: false, reason: (error as Error).message };
  }
  // The namespaces the runtime asks for; a kernel or container that refuses them fails here, not on the first command.
  const args = ['--new-session', '--die-with-parent', '--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', 'true'];
  return new Promise((resolve) => {
    execFile(bwrapPath, args, { timeout: 10_000, env }, (error, _stdout, stderr) => {
      if (error === null) resolve({ available: true, engine: 'sandbox-runtime', bwrapPath, socatPath, rgPath });
      else {
        const detail = (stderr.trim() || error.message).split('\n')[0];
        resolve({ available: false, reason: `bwrap is installed but cannot create a sandbox here (user namespaces blocked?): ${detail}` });
      }
    });
  });
}

/**
 * `@vscode/ripgrep`'s binary, loaded synchronously: a dynamic import here can be the only thing a short CLI run
 * (`toolgate sandbox check` under tsx) waits on, and a loader-thread wait keeps no handle alive.
 */
function bundledRipgrep(): string | undefined {
  try {
    const mod = createRequire(import.meta.url)('@vscode/ripgrep') as { rgPath?: unknown };
    return typeof mod.rgPath === 'string' ? mod.rgPath : undefined;
  } catch {
    return undefined;
  }
}
