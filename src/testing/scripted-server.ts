/**
 * A scripted Messages API server for tests — toolgate's own and its users'. It plays a model from a script: each
 * request to `POST /v1/messages` gets the next turn, streamed over SSE exactly as the API streams (message_start,
 * content_block_start/delta/stop, message_delta with the stop reason and usage, message_stop) or as one JSON message
 * when the request did not ask for a stream. It listens on 127.0.0.1 only and records every request.
 *
 *   const server = await startScriptedServer({ turns: [{ content: [{ type: 'text', text: 'Hi' }] }] });
 *   const client = new Anthropic({ apiKey: 'test', baseURL: server.url });
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildMessage, streamTurn, type WireEvent } from './stream-turn.js';
import type { RecordedRequest, Script, ScriptedError, ScriptedResponse, ScriptedTurn } from './script.js';

export interface ScriptedServerOptions {
  /** Port to listen on (default 0: any free port). */
  readonly port?: number;
  /** Called right after each SSE event is written (benchmarks time `content_block_stop` from here). */
  readonly onEvent?: (event: WireEvent, request: RecordedRequest) => void;
  /**
   * Keep every request in `requests` and `messageRequests` (default true). A benchmark that measures its client's
   * memory turns it off: the server runs in the client's process, and thousands of kept request bodies (tens of KB
   * each) would be counted as the client's. Turn functions then see no earlier requests; `waitForRequests` still counts.
   */
  readonly keepRequests?: boolean;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` — give it to the SDK as `baseURL` (or `ANTHROPIC_BASE_URL`). */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Requests to `/v1/messages` only. */
  readonly messageRequests: readonly RecordedRequest[];
  /** Turns served so far (a failed attempt does not count). */
  readonly turnsServed: number;
  /** Turns not yet served. */
  readonly remainingTurns: number;
  /** TCP connections accepted so far: a client that keeps its connection alive sends every request over one. */
  readonly connections: number;
  /** Resolves once `count` message requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export async function startScriptedServer(script: Script | readonly ScriptedTurn[], options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const turns = Array.isArray(script) ? (script as readonly ScriptedTurn[]) : (script as Script).turns;
  const requests: RecordedRequest[] = [];
  const messageRequests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let turnIndex = 0;
  let attempt = 0;
  let requestCounter = 0;
  let connections = 0;
  let messageCount = 0;
  const keep = options.keepRequests !== false;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, { status: 500, message: `scripted server: ${describe(error)}` });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    let body: any;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const isMessages = req.method === 'POST' && path.replace(/\/+$/, '').endsWith('/v1/messages');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : String(value ?? '');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers,
      body,
      rawBody,
      turn: isMessages && turnIndex < turns.length ? turnIndex : -1,
      attempt: isMessages ? attempt : 0,
    };
    if (keep) requests.push(recorded);
    if (!isMessages) {
      sendError(res, { status: 404, message: `scripted server: no route for ${req.method} ${path}` });
      return;
    }
    if (keep) messageRequests.push(recorded);
    messageCount++;
    for (const waiter of waiters.filter((w) => messageCount >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (body === undefined) {
      sendError(res, { status: 400, message: 'scripted server: the request body is not JSON' });
      return;
    }
    if (turnIndex >= turns.length) {
      sendError(res, { status: 400, message: `scripted server: the script has no turn left (${turns.length} turns, request ${messageCount})` });
      return;
    }
    const turn = turns[turnIndex]!;
    const response: ScriptedResponse =
      typeof turn === 'function' ? await turn(recorded, { requests: [...requests], turn: turnIndex }) : turn;
    const failure = response.errors?.[attempt];
    const requestId = `req_scripted_${++requestCounter}`;
    if (failure) {
      attempt++;
      if ('status' in failure) {
        sendError(res, failure, requestId);
        return;
      }
      if (failure.afterBlocks === undefined && 'drop' in failure) {
        req.socket.destroy();
        return;
      }
    } else {
      turnIndex++;
      attempt = 0;
    }
    const ids = { message: `msg_scripted_${recorded.turn}_${recorded.attempt}`, toolPrefix: `toolu_${recorded.turn}_${recorded.attempt}_` };
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': requestId });
      res.flushHeaders();
      await streamTurn(res, response, body, ids, failure, (event) => options.onEvent?.(event, recorded));
    } else if (failure) {
      req.socket.destroy();
    } else {
      const message = buildMessage(response, body, ids);
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
      res.end(JSON.stringify(message));
    }
  }

  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    messageRequests,
    get turnsServed() {
      return turnIndex;
    },
    get remainingTurns() {
      return turns.length - turnIndex;
    },
    get connections() {
      return connections;
    },
    waitForRequests(count) {
      if (messageCount >= count) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

function sendError(res: ServerResponse, failure: Extract<ScriptedError, { status: number }>, requestId = 'req_scripted_error'): void {
  const type = failure.errorType ?? ERROR_TYPES[failure.status] ?? (failure.status >= 500 ? 'api_error' : 'invalid_request_error');
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': requestId };
  if (failure.retryAfter !== undefined) headers['retry-after'] = String(failure.retryAfter);
  // The SDK honours this header over its own policy; the scripted server leaves retrying to the caller.
  headers['x-should-retry'] = failure.status === 429 || failure.status >= 500 ? 'true' : 'false';
  res.writeHead(failure.status, headers);
  res.end(JSON.stringify({ type: 'error', error: { type, message: failure.message ?? defaultMessage(type) }, request_id: requestId }));
}

function defaultMessage(type: string): string {
  if (type === 'overloaded_error') return 'Overloaded';
  if (type === 'rate_limit_error') return 'Rate limited (scripted)';
  return `Scripted ${type}`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
