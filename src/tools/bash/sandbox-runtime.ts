/**
 * The adapter to `@anthropic-ai/sandbox-runtime` (chosen over toolgate's former hand-written bubblewrap arguments:
 * it also hides Read-denied files, filters the network by host through a proxy, and blocks Unix sockets with seccomp;
 * see docs/architecture.md, "Sandbox"). The runtime is one object per process: its proxy is started once, file rules
 * are passed per command, and the network allow-list is process-wide — so while several sandboxed commands with
 * different lists run at once, a host is reachable only if every one of them allows it (fail closed).
 *
 * Two of its process-wide habits are undone here: it adds SIGINT/SIGTERM listeners (which would stop Node's default
 * exit on Ctrl-C — the CLI's own handlers decide that), and its proxy and socat bridges would keep the event loop
 * alive after the last command.
 */
import path from 'node:path';
import type { SandboxManager as SandboxManagerType, SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { PGROUP_ENV, PROCESS_MARKER } from '../../hooks/process-marker.js';
import type { SandboxAvailability } from './sandbox.js';
import type { SandboxNetworkPolicy, SandboxPolicy } from './sandbox-policy.js';

type Available = Extract<SandboxAvailability, { available: true }>;

let initialized: Promise<void> | undefined;
// Loaded on first use: the library costs ~0.6 s to import, which every CLI start and tool-pool build would pay.
let SandboxManager: typeof SandboxManagerType;

function baseConfig(available: Available): SandboxRuntimeConfig {
  return {
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    ripgrep: { command: available.rgPath },
    bwrapPath: available.bwrapPath,
    socatPath: available.socatPath,
  } as SandboxRuntimeConfig;
}

async function ensureInitialized(available: Available): Promise<void> {
  initialized ??= (async () => {
    ({ SandboxManager } = await import('@anthropic-ai/sandbox-runtime'));
    const handlesBefore = new Set(activeHandles());
    const listenersBefore = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))] as const));
    // The runtime's host-side socat bridges inherit process.env: marked, the orphan watchdog ends them if we die by
    // SIGKILL (the runtime's own exit handler covers every other exit). Not a `<marker>.` prefix: the exit hook's scan
    // must leave them to that handler. A child the embedder spawns in these few milliseconds is marked too.
    const markerBefore = process.env[PGROUP_ENV];
    process.env[PGROUP_ENV] = `${PROCESS_MARKER}-sandbox-runtime`;
    try {
      await SandboxManager.initialize(baseConfig(available), askForUnlisted);
      await SandboxManager.waitForNetworkInitialization();
    } finally {
      if (markerBefore === undefined) delete process.env[PGROUP_ENV];
      else process.env[PGROUP_ENV] = markerBefore;
      for (const [signal, before] of listenersBefore) {
        for (const listener of process.listeners(signal)) if (!before.has(listener)) process.removeListener(signal, listener);
      }
      for (const handle of activeHandles()) if (!handlesBefore.has(handle)) handle.unref?.();
    }
  })();
  try {
    await initialized;
  } catch (error) {
    initialized = undefined;
    await SandboxManager?.reset().catch(() => {});
    throw error;
  }
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

function activeHandles(): { unref?: () => void }[] {
  const get = (process as unknown as { _getActiveHandles?: () => { unref?: () => void }[] })._getActiveHandles;
  return typeof get === 'function' ? get.call(process) : [];
}

// — the process-wide network list: the intersection of the lists of the commands running now —

/** The sandboxed commands running now (in this process, any session): what each may reach and write. */
const inFlight = new Map<number, { readonly network: SandboxNetworkPolicy; readonly allowWrite: readonly string[]; readonly command: string }>();
let nextId = 0;

/** Hosts not on the (intersected) allow-list reach this: allowed only when every running command is unrestricted. */
async function askForUnlisted(): Promise<boolean> {
  if (inFlight.size === 0) return false;
  for (const { network } of inFlight.values()) if (!network.unrestricted) return false;
  return true;
}

function applyNetwork(): void {
  if (SandboxManager === undefined) return;
  const config = SandboxManager.getConfig();
  if (config === undefined) return;
  const restricted = [...inFlight.values()].map((c) => c.network).filter((p) => !p.unrestricted);
  let allowed: string[] = [];
  if (restricted.length > 0) {
    allowed = [...restricted[0]!.allowedDomains];
    for (const p of restricted.slice(1)) allowed = allowed.filter((d) => p.allowedDomains.includes(d));
  }
  const denied = [...new Set([...inFlight.values()].flatMap((c) => c.network.deniedDomains))];
  SandboxManager.updateConfig({ ...config, network: { ...config.network, allowedDomains: allowed, deniedDomains: denied, strictAllowlist: restricted.length > 0 } });
}

/**
 * The sandboxed commands running now that may write inside or above any of `dirs` (their command texts). Their mounts
 * were fixed when they started: a repository made since then on the host is writable to them.
 */
export function sandboxedCommandsWriting(dirs: readonly string[]): string[] {
  const overlaps = (a: string, b: string) => a === b || a.startsWith(b.endsWith(path.sep) ? b : b + path.sep) || b.startsWith(a.endsWith(path.sep) ? a : a + path.sep);
  return [...inFlight.values()].filter((c) => c.allowWrite.some((w) => dirs.some((d) => overlaps(path.resolve(w), path.resolve(d))))).map((c) => c.command);
}

export interface SandboxLaunch {
  readonly file: string;
  readonly args: readonly string[];
  /** Call once the command (and everything it started) has ended: releases its network rights. */
  readonly release: () => void;
}

/**
 * The argv that runs `script` under the policy. Throws when the runtime cannot start (the caller refuses the command).
 */
export async function wrapInSandbox(
  script: string,
  policy: SandboxPolicy,
  available: Available,
  options: { commandId: string; commandText: string },
): Promise<SandboxLaunch> {
  // The runtime waits on unref'd timers (bridge sockets appearing): without a handle of our own, a short-lived
  // process with nothing else to do would exit in the middle of the wait.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    return await wrap(script, policy, available, options);
  } finally {
    clearInterval(keepAlive);
  }
}

async function wrap(
  script: string,
  policy: SandboxPolicy,
  available: Available,
  options: { commandId: string; commandText: string },
): Promise<SandboxLaunch> {
  await ensureInitialized(available);
  const id = nextId++;
  inFlight.set(id, { network: policy.network, allowWrite: policy.allowWrite, command: options.commandText });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    inFlight.delete(id);
    try {
      applyNetwork();
      SandboxManager.cleanupAfterCommand();
    } catch {
      // bookkeeping only: the command has ended either way
    }
  };
  try {
    applyNetwork();
    const custom: Partial<SandboxRuntimeConfig> = {
      filesystem: { denyRead: [...policy.denyRead], allowWrite: [...policy.allowWrite], denyWrite: [...policy.denyWrite] },
    } as Partial<SandboxRuntimeConfig>;
    const { argv } = await SandboxManager.wrapWithSandboxArgv(WAIT_FOR_BRIDGES + script, 'bash', custom, undefined, undefined, options);
    const [file, ...args] = argv;
    if (file === undefined) throw new Error('the sandbox runtime returned no command');
    return { file, args, release };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * The runtime starts its two in-sandbox socat listeners (HTTP proxy on 3128, SOCKS on 1080) in the background and runs
 * the command at once, so a command that goes to the network first thing could find nothing listening yet ("Couldn't
 * connect to server"). This waits, 3 s at most, until both listen in the sandbox's own network namespace: read from
 * /proc/net/tcp so no connection is made to the proxy, with bash built-ins and sleep only.
 */
const WAIT_FOR_BRIDGES =
  '__tg_n=0; while [ -r /proc/net/tcp ] && [ $__tg_n -lt 300 ]; do __tg_t=$(</proc/net/tcp); ' +
  "[[ $__tg_t == *':0C38 00000000:0000 0A'* && $__tg_t == *':0438 00000000:0000 0A'* ]] && break; " +
  'sleep 0.01; __tg_n=$((__tg_n+1)); done; unset __tg_n __tg_t\n';

/** Stops the runtime's proxy and bridges (tests, embedders closing a session; it also runs on process exit). */
export async function shutdownSandboxRuntime(): Promise<void> {
  if (initialized === undefined) return;
  initialized = undefined;
  inFlight.clear();
  // reset() waits for the bridges (whose handles were unref'd) to exit: hold the loop open meanwhile, 5 s at most.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([(SandboxManager?.reset() ?? Promise.resolve()).catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
  clearTimeout(timer);
}
