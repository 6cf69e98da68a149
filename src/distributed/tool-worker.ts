/**
 * A toolgate worker: an HTTP/2 endpoint that Restate invokes, serving the tool-call service (and, where a session
 * runner is given, durable sessions) for the workspaces it can see.
 *
 * Restate pushes invocations to a deployment URL. Every worker of a pool must answer on that one URL, so that a call
 * whose worker died is retried on another: on one machine the worker processes share one listening port (Node's
 * cluster module hands each new connection to the next process, `runWorkerPool`); across machines a TCP/HTTP/2 load
 * balancer in front of them is the URL (docs/distributed.md). Restate multiplexes many invocations on one HTTP/2
 * connection, so the server's `http2-streams-per-connection-limit` decides how many connections — and so how many
 * processes — share the load.
 */
import './node20-compat.js';
import cluster from 'node:cluster';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createEndpointHandler } from '@restatedev/restate-sdk/node';
import type * as restate from '@restatedev/restate-sdk';

export interface ToolWorkerEndpointOptions {
  /** Restate services to serve (`toolCallService(...)`, `sessionObject(...)`). */
  readonly services: readonly (restate.ServiceDefinition<string, unknown> | restate.VirtualObjectDefinition<string, unknown>)[];
  readonly host?: string;
  /** 0: any free port. Processes of one cluster pool pass the same port and share it. */
  readonly port?: number;
}

export interface ToolWorkerEndpoint {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startToolWorkerEndpoint(options: ToolWorkerEndpointOptions): Promise<ToolWorkerEndpoint> {
  const handler = createEndpointHandler({
    services: [...options.services],
    // The SDK logs every invocation at info level; a worker serving thousands of calls keeps to warnings.
    logger: (meta, message, ...rest) => {
      if (meta.level === 'warn' || meta.level === 'error') {
        if (typeof message === 'string' && message.includes('without validating request signatures')) return;
        process.stderr.write(`[toolgate worker ${meta.level}] ${[message, ...rest].map(String).join(' ')}\n`);
      }
    },
  });
  const server = http2.createServer(handler);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sessions) s.destroy();
      }),
  };
}

/**
 * Registers (or refreshes) the deployment at `uri` with the Restate admin API. Registering the same URI again is
 * harmless; registering a different URI for the same services makes it the one new calls go to, which is why all
 * workers of a pool register the one shared URL.
 */
export async function registerDeployment(adminUrl: string, uri: string, attempts = 20): Promise<void> {
  let last = '';
  for (let i = 0; i < attempts; i++) {
    try {
      const r = await fetch(`${adminUrl.replace(/\/+$/, '')}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri, force: true }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await r.text();
      if (r.ok) return;
      last = `${r.status}: ${text.slice(0, 500)}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** i)));
  }
  throw new Error(`could not register ${uri} with the Restate admin API at ${adminUrl} (${last})`);
}

export interface WorkerPoolOptions {
  readonly processes: number;
  /** The port the processes share (the primary picks one when 0). */
  readonly port: number;
  readonly host: string;
  /** Called in the primary once every process listens. */
  readonly onReady?: (port: number) => Promise<void> | void;
  readonly log?: (line: string) => void;
}

/**
 * In the primary: forks `processes` copies of this program (each re-runs the same command and, seeing it is a cluster
 * worker, serves), restarts any that dies, and stops them all on SIGINT/SIGTERM. Resolves when the pool has stopped.
 */
export async function runWorkerPool(options: WorkerPoolOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let stopping = false;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {});
    let left = workers.length;
    if (left === 0) stopped();
    for (const w of workers) {
      w?.once('exit', () => {
        if (--left === 0) stopped();
      });
      w?.process.kill('SIGTERM');
    }
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      stopped();
    }, 5_000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const env = { TOOLGATE_WORKER_PORT: String(options.port), TOOLGATE_WORKER_HOST: options.host };
  const fork = () => cluster.fork(env);
  let listening = 0;
  const ready = new Promise<void>((resolve) => {
    cluster.on('listening', () => {
      if (++listening === options.processes) resolve();
    });
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log(`toolgate worker: process ${worker.process.pid} ended (${signal ?? code}); Restate retries its calls on the others; starting a new one`);
    fork();
  });
  for (let i = 0; i < options.processes; i++) fork();
  await Promise.race([ready, done]);
  if (!stopping) {
    try {
      // A SIGTERM during registration (a Restate that does not answer) stops the pool without waiting for it.
      await Promise.race([options.onReady?.(options.port), done]);
    } catch (error) {
      stop();
      await done;
      throw error;
    }
  }
  await done;
}

export function isPoolProcess(): boolean {
  return cluster.isWorker;
}

/** In a pool process: end when the primary goes away (it was killed), rather than serve on unsupervised. */
export function exitWithPrimary(): void {
  cluster.worker?.on('disconnect', () => process.exit(0));
}
