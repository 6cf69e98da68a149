/**
 * A single-node Restate server from the `@restatedev/restate-server` npm package, for tests, benchmarks and trying
 * things out on one machine. Production runs a Restate cluster (docs/distributed.md); nothing else in toolgate starts
 * servers.
 *
 * It listens on 127.0.0.1 only, on free ports, with its data in a temporary folder that `stop()` removes. Telemetry
 * is off. The server binary also asks GitHub for its latest release once at start-up, and no setting turns that off;
 * where Linux lets an unprivileged process make a user + mount namespace, the server runs in one whose
 * /etc/resolv.conf names 127.0.0.1 as the only name server and whose /etc/hosts knows only localhost, so that lookup
 * fails on the loopback interface and nothing leaves the machine. `networkGuard` says whether that worked.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface RestateServerOptions {
  /** Partitions of the fresh cluster (default 4: enough parallelism for two cores, little memory). */
  readonly partitions?: number;
  /** Extra `RESTATE_*` environment settings (e.g. `RESTATE_WORKER__INVOKER__HTTP2_STREAMS_PER_CONNECTION_LIMIT`). */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for the server to answer on both ports (default 60 s). */
  readonly startTimeoutMs?: number;
  /** Where the server's log goes (default: kept in memory, shown when start-up fails). */
  readonly logFile?: string;
  /**
   * Start on the data of an earlier server (its `dataDir`, with its `ports`): a restart after a crash, with the same
   * invocations, journals and registered workers. The folder is then the caller's: `stop()` leaves it.
   */
  readonly restart?: { readonly dataDir: string; readonly ports: RestateServer['ports'] };
  /** Where fresh ports come from (default `freePort`); a test gives a taken one to see the start-up try again. */
  readonly pickPort?: () => Promise<number>;
}

export interface RestateServer {
  /** Ingress (where invocations are sent), e.g. `http://127.0.0.1:41234`. */
  readonly ingressUrl: string;
  /** Admin API (deployments, cancellation), e.g. `http://127.0.0.1:41235`. */
  readonly adminUrl: string;
  readonly dataDir: string;
  readonly ports: { readonly ingress: number; readonly admin: number; readonly fabric: number };
  /** The process that watches the server (the server is its child; stopping it stops the server). */
  readonly pid: number;
  /** True when the server runs without name resolution (see the module comment). */
  readonly networkGuard: boolean;
  /** Stops the server (SIGTERM, then SIGKILL after a grace period) and removes its data folder. Idempotent. */
  stop(): Promise<void>;
}

/** The server binary inside node_modules, for this platform. */
export function restateServerBinary(): string {
  const require = createRequire(import.meta.url);
  return require.resolve(`@restatedev/restate-server-${os.platform()}-${os.arch()}/bin/restate-server`);
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Start-ups on fresh ports before giving up when one of them was taken meanwhile. */
const PORT_ATTEMPTS = 5;

/**
 * A port that was free a moment ago is in the ephemeral range: any process's outgoing connection (or a server of a
 * test running beside us) can take it before the server binds it. Then the server exits at start-up saying
 * "Address in use", and starting again on fresh ports is all it takes. A restart keeps its ports: no second try.
 */
export async function startRestateServer(options: RestateServerOptions = {}): Promise<RestateServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      const taken = error instanceof Error && /Address in use|address already in use/i.test(error.message);
      if (options.restart || !taken || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

async function startOnce(options: RestateServerOptions): Promise<RestateServer> {
  const dataDir = options.restart?.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'toolgate-restate-'));
  const pick = options.pickPort ?? freePort;
  const ports = options.restart?.ports ?? { ingress: await pick(), admin: await pick(), fabric: await pick() };
  const { ingress, admin, fabric } = ports;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dataDir,
    DO_NOT_TRACK: 'true',
    RESTATE_DISABLE_TELEMETRY: 'true',
    RESTATE_ADMIN__DISABLE_WEB_UI: 'true',
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
    RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
    RESTATE_DEFAULT_NUM_PARTITIONS: String(options.partitions ?? 4),
    RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: '256MiB',
    RESTATE_NODE_NAME: 'toolgate-test',
    RESTATE_LOG_FORMAT: 'compact',
    RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
    ...options.env,
  };
  const args = ['--base-dir', dataDir, '--no-logo', '--listen-mode', 'tcp'];
  const guard = prepareNetworkGuard(dataDir);
  // A watchdog shell between us and the server: if this process dies without stopping it (SIGKILL, a crashed test
  // runner), the server goes too instead of running on forever.
  const watchdog = `${guard ?? ''}"$@" & child=$!; trap 'kill -TERM $child 2>/dev/null' TERM INT; while kill -0 ${process.pid} 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1; done; kill -TERM $child 2>/dev/null; wait $child`;
  const command = guard ? ['unshare', '--map-root-user', '--mount', 'sh'] : ['sh'];
  const child = spawn(command[0]!, [...command.slice(1), '-c', watchdog, 'restate-watchdog', restateServerBinary(), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    if (options.logFile) writeFileSync(options.logFile, chunk, { flag: 'a' });
    else if (log.length < 2000) log.push(chunk.toString());
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped = false;
  const stop = async () => {
    if (stopped) return exited;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    if (!options.restart) rmSync(dataDir, { recursive: true, force: true });
  };
  const server: RestateServer = {
    ingressUrl: `http://127.0.0.1:${ingress}`,
    adminUrl: `http://127.0.0.1:${admin}`,
    dataDir,
    ports,
    pid: child.pid ?? -1,
    networkGuard: guard !== undefined,
    stop,
  };
  try {
    await waitUntilReady(server, child, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    const tail = log.join('').slice(-4000);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- restate-server log ---\n${tail}`);
  }
  return server;
}

async function waitUntilReady(server: RestateServer, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`restate-server exited during start-up (${child.exitCode ?? child.signalCode})`);
    try {
      const [a, i] = await Promise.all([
        fetch(`${server.adminUrl}/health`, { signal: AbortSignal.timeout(2_000) }),
        fetch(`${server.ingressUrl}/restate/health`, { signal: AbortSignal.timeout(2_000) }),
      ]);
      if (a.ok && i.ok) return;
      last = `admin ${a.status}, ingress ${i.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`restate-server did not become ready within ${timeoutMs} ms (${last})`);
}

/**
 * The start of a shell script that replaces name resolution inside a private mount namespace; undefined when this
 * system cannot make one (no `unshare`, user namespaces off): the server then runs as it is.
 */
function prepareNetworkGuard(dir: string): string | undefined {
  if (os.platform() !== 'linux') return undefined;
  const hosts = path.join(dir, 'guard-hosts');
  const resolv = path.join(dir, 'guard-resolv.conf');
  writeFileSync(hosts, '127.0.0.1 localhost\n::1 localhost\n');
  writeFileSync(resolv, 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n');
  const script = `mount --bind '${resolv}' /etc/resolv.conf && mount --bind '${hosts}' /etc/hosts && `;
  const probe = spawnSync('unshare', ['--map-root-user', '--mount', 'sh', '-c', `${script}true`], { stdio: 'ignore', timeout: 5_000 });
  return probe.status === 0 ? script : undefined;
}
