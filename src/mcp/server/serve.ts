/**
 * `toolgate mcp serve` transports. stdio: one client on stdin/stdout (nothing else may write to stdout), through a
 * transport that survives a hostile client (guarded-stdio-transport.ts). HTTP:
 * streamable HTTP on 127.0.0.1 only, every request carrying `Authorization: Bearer <token>` (401 otherwise), one MCP
 * session per client, the Host header checked against the address served (DNS rebinding), every SSE stream primed with
 * an event id and `retry` so a client can resume it (event-store.ts).
 */
// node:http only for `serve --http` (type-only here): stdio serving does not load it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
// The HTTP transport (Hono's Node server, which loads undici's fetch) only for `serve --http`: type-only here.
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { BoundedEventStore, SSE_RETRY_MS } from './event-store.js';
import { GuardedStdioTransport, type GuardedStdioOptions } from './guarded-stdio-transport.js';
import { ToolgateMcpServer, type ToolServerOptions } from './tool-server.js';
import { nodeCrypto, randomBytes, randomUUID } from '../../tool/crypto.js';

/**
 * After the client went away, how long the interrupted calls get to write their answers (read by a client that only
 * closed its input) before the server closes regardless. Their processes are ended before that, not after.
 */
const INTERRUPTED_ANSWER_MS = 1_000;

/** `serveStdio`'s options: the server's (project, mode, runtime) and the transport's limits. */
export interface StdioServeOptions extends ToolServerOptions, GuardedStdioOptions {}

/** Serves the tool pool as an MCP server on stdin/stdout (`toolgate mcp serve`), behind the permission engine. */
export async function serveStdio(options: StdioServeOptions = {}): Promise<{ readonly closed: Promise<void>; close(): Promise<void> }> {
  const tools = await ToolgateMcpServer.create(options);
  sayWarnings(tools, options.log);
  const inputEnded = new AbortController();
  const server = tools.createServer({ inputEnded: inputEnded.signal });
  // Not the SDK's StdioServerTransport: a hostile client must get an error for an oversized or broken line, not a
  // silent end or a stall, and closing its end must shut down cleanly (guarded-stdio-transport.ts).
  const transport = new GuardedStdioTransport(process.stdin, process.stdout, options);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const timers: NodeJS.Timeout[] = [];
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const t of timers) clearTimeout(t);
      await server.close().catch(() => {});
      await tools.dispose();
      resolveClosed();
    })());
  // The client went away — its input ended (the MCP stdio shutdown, or it died), or its end of stdout is gone: every
  // call in flight is interrupted now, and every background task ended with its processes, not left to finish for a
  // client that will never read the answer (docs/security.md, invariant 7). Calls are still answered as interrupted
  // where the answer can be written.
  let gone = false;
  const clientGone = (why: string) => {
    if (gone) return;
    gone = true;
    inputEnded.abort();
    tools.interruptCalls(why);
    void tools.endBackgroundTasks();
  };
  transport.oninputend = () => {
    clientGone('the MCP client closed its input while the call ran');
    timers.push(setTimeout(() => void transport.close(), INTERRUPTED_ANSWER_MS));
  };
  server.onclose = () => {
    clientGone('the MCP client went away while the call ran');
    void close();
  };
  await server.connect(transport);
  return { closed, close };
}

/** What the runtime found odd at its start (settings, hard links to denied files): stdout belongs to the protocol. */
function sayWarnings(tools: ToolgateMcpServer, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): void {
  for (const warning of tools.runtime.warnings) log(`toolgate mcp serve: warning: ${warning}`);
}

/** The port and bearer token of `serveHttp`, beside the server's options. */
export interface HttpServeOptions extends ToolServerOptions {
  /** 0 or absent: any free port. */
  readonly port?: number;
  /** The bearer token; absent → a new random one (read it from the result). */
  readonly token?: string;
}

/** A running `serveHttp` server: its URL, port and token, and how to close it. */
export interface HttpServeHandle {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** Serves the tool pool as an MCP server over streamable HTTP on 127.0.0.1; every request needs the bearer token. */
export async function serveHttp(options: HttpServeOptions = {}): Promise<HttpServeHandle> {
  const token = options.token && options.token.length > 0 ? options.token : randomBytes(32).toString('base64url');
  const expected = Buffer.from(`Bearer ${token}`);
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const tools = await ToolgateMcpServer.create(options);
  sayWarnings(tools);
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];

  const { createServer } = await import('node:http');
  const httpServer = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: `internal error: ${error instanceof Error ? error.message : String(error)}` }, id: null }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = Buffer.from(req.headers.authorization ?? '');
    if (auth.length !== expected.length || !nodeCrypto().timingSafeEqual(auth, expected)) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="toolgate"' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'unauthorized: send Authorization: Bearer <token>' }, id: null }));
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    let body: unknown;
    if (req.method === 'POST') {
      const parsed = await readJson(req);
      if (!parsed.ok) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'parse error: the body is not JSON' }, id: null }));
        return;
      }
      body = parsed.value;
    }
    if (!transport) {
      if (req.method !== 'POST' || sessionId !== undefined || !isInitializeRequest(body)) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no valid session: start with an initialize request' }, id: null }));
        return;
      }
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // Resumable streams: the priming event (with `retry`) first on every SSE stream, replay after Last-Event-ID.
        eventStore: new BoundedEventStore(),
        retryInterval: SSE_RETRY_MS,
        enableDnsRebindingProtection: true,
        allowedHosts,
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await tools.createServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    token,
    close: () =>
      (closing ??= (async () => {
        await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})));
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
        await tools.dispose();
      })()),
  };
}

const MAX_BODY = 50 * 1024 * 1024;

function readJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
      } catch {
        resolve({ ok: false });
      }
    });
    req.on('error', reject);
  });
}
