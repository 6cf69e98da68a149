/**
 * Durable tool calls on Restate, the coordinator's side: one tool call is one Restate invocation of `<service>/call`,
 * submitted through the ingress with the idempotency key `sessionId/tool_use_id`. Restate runs it once and keeps its
 * result (for the service's idempotency retention), so a coordinator that submits the same tool_use again — after a
 * network error, or replaying a durable session after a crash — gets the stored result and nothing runs twice. The
 * worker's side is restate-tool-service.ts. This module does not load the Restate SDK.
 */
import http from 'node:http';
import https from 'node:https';
import type { DurableToolEngine, RemoteToolResult } from './remote-tool-call.js';

export const DEFAULT_TOOL_SERVICE = 'ToolgateTools';

/** The service name of a worker pool: one name per set of workers that see the same workspaces. */
export function toolServiceName(pool?: string): string {
  if (pool === undefined || pool === '' || pool === 'default') return DEFAULT_TOOL_SERVICE;
  if (!/^[A-Za-z0-9_]{1,64}$/.test(pool)) throw new Error(`invalid worker pool name "${pool}" (letters, digits and _ only)`);
  return `${DEFAULT_TOOL_SERVICE}_${pool}`;
}

/** Where Restate is (ingress, admin API) and which worker pool serves the calls. */
export interface RestateToolEngineOptions {
  /** The Restate ingress, e.g. `http://restate:8080`. */
  readonly ingressUrl: string;
  /** The admin API, for cancellation (default: the ingress host on port 9070). */
  readonly adminUrl?: string;
  readonly pool?: string;
  /** Attempts to reach the ingress before a call fails (default 5; safe, the idempotency key dedups). */
  readonly attempts?: number;
}

export function defaultAdminUrl(ingressUrl: string): string {
  const url = new URL(ingressUrl);
  url.port = '9070';
  return url.origin;
}

/** A `DurableToolEngine` on Restate: each call one invocation keyed `session/tool_use_id`, run once, its result kept. */
export function createRestateToolEngine(options: RestateToolEngineOptions): DurableToolEngine {
  const ingress = options.ingressUrl.replace(/\/+$/, '');
  const admin = (options.adminUrl ?? defaultAdminUrl(ingress)).replace(/\/+$/, '');
  const service = toolServiceName(options.pool);
  const attempts = Math.max(1, options.attempts ?? 5);
  const callUrl = `${ingress}/${service}/call`;
  // One pool of kept-alive connections to the ingress for all calls: a call is one request on a warm connection, not a
  // TCP handshake. Node's agent unrefs idle connections: they never keep the process alive.
  const agent = new (callUrl.startsWith('https:') ? https.Agent : http.Agent)({ keepAlive: true, scheduling: 'lifo' });

  async function cancel(key: string, body: string): Promise<void> {
    // The same key again returns the invocation id of the call already running ("PreviouslyAccepted").
    const sent = await fetch(`${callUrl}/send`, { method: 'POST', headers: headers(key), body, signal: AbortSignal.timeout(10_000) });
    const { invocationId } = (await sent.json()) as { invocationId?: string };
    if (!invocationId) return;
    const r = await fetch(`${admin}/invocations/${encodeURIComponent(invocationId)}/cancel`, { method: 'PATCH', signal: AbortSignal.timeout(10_000) });
    await r.body?.cancel();
  }

  /** The answer of the call already submitted under `key` (the same key attaches to it), or undefined past the wait. */
  async function attachAnswer(key: string, body: string): Promise<RemoteToolResult | undefined> {
    try {
      const response = await postJson(callUrl, agent, key, body, AbortSignal.timeout(ANSWER_AFTER_CANCEL_MS));
      if (response.status < 200 || response.status >= 300) return undefined;
      const result = JSON.parse(response.text) as RemoteToolResult;
      return result.ok ? result : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    name: `restate:${ingress}`,
    async submit(call, { idempotencyKey, signal }) {
      const body = JSON.stringify(call);
      let cancelled: Promise<void> | undefined;
      // The request in flight, ended by the abort below: one listener on the turn's signal per call (handing the signal
      // to http.request added another, and end-of-stream watchers on the request to take it off again).
      let inFlight: http.ClientRequest | undefined;
      const onAbort = () => {
        cancelled = cancel(idempotencyKey, body).catch(() => undefined);
        inFlight?.destroy(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        let lastError: unknown;
        for (let attempt = 0; attempt < attempts; attempt++) {
          if (signal.aborted) break;
          try {
            const response = await postJson(callUrl, agent, idempotencyKey, body, undefined, (request) => (inFlight = request));
            const text = response.text;
            if (response.status >= 200 && response.status < 300) return JSON.parse(text) as RemoteToolResult;
            const message = restateErrorMessage(text);
            // 5xx from the ingress itself (not from our handler, which always answers 200) may pass; 4xx will not.
            if (response.status >= 500 && response.status !== 500) {
              lastError = new Error(`Restate answered ${response.status}: ${message}`);
            } else {
              return { ok: false, error: { message: `Restate could not run this call (${response.status}): ${message}`, name: 'RestateError' } };
            }
          } catch (error) {
            if (signal.aborted) break;
            lastError = error;
          }
          await new Promise((r) => setTimeout(r, Math.min(2_000, 200 * 2 ** attempt)));
        }
        if (signal.aborted) {
          // The worker's tool saw the cancellation and answers as it does at home (Bash: the output so far, marked
          // interrupted): that answer, when it comes within a short wait, is the call's result.
          await cancelled;
          const answer = await attachAnswer(idempotencyKey, body);
          if (answer !== undefined) return answer;
          throw abortError(signal);
        }
        const why = lastError instanceof Error ? lastError.message : String(lastError);
        throw new Error(`The Restate ingress at ${ingress} could not be reached (${why}). The call may or may not have started; submitting the same tool_use again returns its result if it did.`);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    async close() {
      agent.destroy();
    },
  };
}

/**
 * POST a JSON body and read the whole answer, on a kept-alive connection of `agent`. Node's `fetch` cost about half a
 * millisecond more per call here (its own pool, streams and Response objects); a call is small and its answer is
 * read whole anyway.
 */
function postJson(
  url: string,
  agent: http.Agent,
  idempotencyKey: string,
  body: string,
  signal: AbortSignal | undefined,
  onRequest?: (request: http.ClientRequest) => void,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = (url.startsWith('https:') ? https : http).request(
      url,
      {
        method: 'POST',
        agent,
        ...(signal ? { signal } : {}),
        headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    onRequest?.(request);
    request.end(body);
  });
}

function headers(idempotencyKey: string): Record<string, string> {
  return { 'content-type': 'application/json', 'idempotency-key': idempotencyKey };
}

function restateErrorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 500) || '(no message)';
}

/** How long an aborted call's own answer is waited for (a tool that ends on abort answers within its kill grace). */
const ANSWER_AFTER_CANCEL_MS = 10_000;

function abortError(signal: AbortSignal): Error {
  const error = new Error(`The call was cancelled${typeof signal.reason === 'string' ? ` (${signal.reason})` : ''}; the worker was told to stop.`);
  error.name = 'AbortError';
  return error;
}
