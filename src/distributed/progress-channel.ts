/**
 * Progress of remote calls, straight from the worker to the coordinator over HTTP, outside the durable engine.
 *
 * Why not through the engine: progress is for the eyes of whoever watches the live coordinator. Journaling it would
 * cost a durable write per event (a Bash call streams many), and after a crash nobody is left to show it to. So the
 * coordinator listens on a small HTTP server, puts a one-time URL into each call that has a listener, and the worker
 * posts events there — coalesced, fire-and-forget. Losing progress loses nothing that matters: results travel through
 * the engine, durably. On several machines the coordinator's `progressHost` must be reachable from the workers
 * (docs/distributed.md); when it is not, calls work the same, only without live progress.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolProgressData } from '../tool/tool.js';
import { randomBytes } from '../tool/crypto.js';

/** The coordinator's HTTP endpoint where workers post the progress of remote calls (`startProgressReceiver`). */
export interface ProgressReceiver {
  /** A URL for one call; events posted there go to `listener` until `release()`. */
  open(listener: (data: ToolProgressData) => void): { readonly url: string; release(): void };
  close(): Promise<void>;
}

export interface ProgressReceiverOptions {
  /** Interface to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** Host name workers use to reach it (default: `host`). */
  readonly advertisedHost?: string;
  readonly port?: number;
}

const MAX_BODY = 1024 * 1024;

/** Starts the progress endpoint a durable backend hands to workers; without one, remote calls report no progress. */
export async function startProgressReceiver(options: ProgressReceiverOptions = {}): Promise<ProgressReceiver> {
  const listeners = new Map<string, (data: ToolProgressData) => void>();
  const server = http.createServer((req, res) => {
    const token = req.url?.startsWith('/progress/') ? req.url.slice('/progress/'.length) : '';
    const listener = listeners.get(token);
    if (req.method !== 'POST' || !listener) {
      res.writeHead(404).end();
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      res.writeHead(204).end();
      if (size > MAX_BODY) return;
      try {
        const events = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        for (const data of Array.isArray(events) ? events : [events]) {
          if (data !== null && typeof data === 'object' && typeof (data as { type?: unknown }).type === 'string') listener(data as ToolProgressData);
        }
      } catch {
        // a malformed post is dropped: progress is best effort
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  const base = `http://${formatHost(options.advertisedHost ?? host)}:${port}/progress/`;
  return {
    open(listener) {
      const token = randomBytes(16).toString('hex');
      listeners.set(token, listener);
      return { url: base + token, release: () => listeners.delete(token) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        listeners.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The worker's side: events for one call, sent at most every `intervalMs` in one post (a burst of Bash output is one
 * request, not hundreds). `flush()` sends what is left; nothing here ever throws or blocks the call.
 */
export function createProgressSender(url: string | undefined, intervalMs = 100): { send(data: ToolProgressData): void; flush(): Promise<void> } {
  if (!url) return { send: () => {}, flush: async () => {} };
  let pending: ToolProgressData[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const post = () => {
    timer = undefined;
    if (pending.length === 0) return inFlight;
    const batch = pending;
    pending = [];
    inFlight = inFlight.then(() =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch), signal: AbortSignal.timeout(5_000) })
        .then((r) => void r.body?.cancel())
        .catch(() => undefined),
    );
    return inFlight;
  };
  return {
    send(data) {
      // Only the newest few matter to a live view; a flood is cut, not queued without bound.
      if (pending.length >= 64) pending.shift();
      pending.push(data);
      timer ??= setTimeout(post, intervalMs);
    },
    flush() {
      if (timer) clearTimeout(timer);
      return post();
    },
  };
}
