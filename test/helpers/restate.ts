/**
 * A real Restate server (from npm, 127.0.0.1, temp data dir) and a real `toolgate worker` pool started through the
 * CLI, for the distributed tests. Everything started here is stopped by `stop()`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRestateServer, type RestateServer } from '../../src/distributed/restate-server.js';
import { repoRoot } from './cli.js';

export interface WorkerPool {
  readonly child: ChildProcess;
  /** The pool's processes (cluster children of `child`). */
  processPids(): number[];
  stop(): Promise<void>;
}

export const FIXTURE_TOOLS = path.join(repoRoot, 'test/fixtures/distributed-tools.ts');

/**
 * Few HTTP/2 streams per connection: Restate then opens several connections to the pool's one URL, and the pool's
 * processes share them (it would otherwise multiplex everything on one connection, so one process).
 */
export function startTestRestate(): Promise<RestateServer> {
  return startRestateServer({ env: { RESTATE_WORKER__INVOKER__HTTP2_STREAMS_PER_CONNECTION_LIMIT: '8' } });
}

export async function startWorkerPool(
  server: RestateServer,
  options: { processes: number; workspace: string; markers: string; concurrency?: number; extraArgs?: readonly string[]; env?: NodeJS.ProcessEnv; fixtureTools?: boolean },
): Promise<WorkerPool> {
  const args = [
    '--import',
    'tsx',
    path.join(repoRoot, 'src/cli/main.ts'),
    'worker',
    '--restate',
    server.ingressUrl,
    '--admin',
    server.adminUrl,
    '--processes',
    String(options.processes),
    '--concurrency',
    String(options.concurrency ?? 64),
    '--workspace',
    options.workspace,
    ...(options.fixtureTools === false ? [] : ['--tools', FIXTURE_TOOLS]),
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...options.env, TOOLGATE_TEST_MARKERS: options.markers },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const deadline = Date.now() + 180_000;
  while (!stderr.includes('serving on')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`toolgate worker exited: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`toolgate worker did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    processPids: () => childPids(child.pid!),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          for (const pid of childPids(child.pid!)) killQuietly(pid);
          child.kill('SIGKILL');
        }, 8_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => Number.isInteger(n) && n > 0);
  } catch {
    return [];
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function tempWorkspace(): { dir: string; markers: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-dist-'));
  const markers = path.join(dir, 'markers.log');
  writeFileSync(markers, '');
  return { dir, markers, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Marker lines → executions per call id (lines ending in "aborted" are counted separately). */
export function countExecutions(text: string): { runs: Map<string, number>; pids: Set<string>; aborted: Set<string> } {
  const runs = new Map<string, number>();
  const pids = new Set<string>();
  const aborted = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const [id, pid, tag] = line.split(' ');
    if (!id || !pid) continue;
    if (tag === 'aborted') {
      aborted.add(id);
      continue;
    }
    runs.set(id, (runs.get(id) ?? 0) + 1);
    pids.add(pid);
  }
  return { runs, pids, aborted };
}

/**
 * Which of `pids` (a pool's processes) runs a command: for every process on the machine whose command line
 * (arguments joined by spaces) is exactly `command`, the first of `pids` among its ancestors. Linux (/proc) only.
 * Processes of other pools or other programs with the same command line are ignored.
 */
export function poolProcessesRunning(pids: readonly number[], command: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline !== command) continue;
    for (let pid = Number(entry), hops = 0; pid > 1 && hops < 32; pid = parentPid(pid), hops++) {
      if (pids.includes(pid)) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}

function parentPid(pid: number): number {
  try {
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Polls `probe` until it returns a value (not undefined), or throws `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Kills the Restate server binary with SIGKILL (a crash: no shutdown, nothing flushed beyond what it had made
 * durable) and waits until it is gone. Its watchdog then ends too; `startRestateServer({ restart })` brings it back.
 */
export async function crashRestate(server: RestateServer): Promise<void> {
  const binary = descendants(server.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.endsWith('restate-server');
    } catch {
      return false;
    }
  });
  if (binary.length === 0) throw new Error('no restate-server process under the watchdog');
  for (const pid of binary) process.kill(pid, 'SIGKILL');
  await waitFor('restate-server to be gone', () => (binary.every((pid) => !isAlive(pid)) ? true : undefined), 30_000);
}

function descendants(pid: number): number[] {
  const children = childPids(pid);
  return [...children, ...children.flatMap(descendants)];
}

function isAlive(pid: number): boolean {
  try {
    // A zombie (killed, not yet reaped by its parent) is gone for our purpose.
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
