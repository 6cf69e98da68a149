/**
 * One HTTP exchange with a host NAME that connects only to addresses already judged (oauth-fetch.ts): node's own
 * http(s) `request` with a `lookup` that answers those addresses and nothing else, so the name is never resolved a
 * second time between the check and the connection (DNS rebinding with a zero TTL, docs/security.md §7c). The URL keeps
 * the name: TLS sends it as SNI and verifies the certificate against it, and it is the Host header. The answer is a
 * WHATWG `Response` whose body streams as it arrives; the abort signal ends the exchange at any point. Redirects come
 * back as they are — the guard decides whether to follow one, judging its target anew.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';

/** Trust anchors in place of the system's (tests with their own certificate); nothing else is configurable. */
export interface PinnedTls {
  ca?: string | Buffer;
}

// Set from the connection itself (Host, framing) or the body: never taken from the caller's headers.
const CONNECTION_HEADERS = ['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length'];
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/** A `lookup` for `name` that answers only `addresses` (of the family asked for, when one is). */
function lookupOnly(name: string, addresses: readonly string[]): LookupFunction {
  return ((hostname: string, options: { family?: number | string; all?: boolean }, callback: (error: Error | null, address?: unknown, family?: number) => void) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    const usable = addresses.filter((a) => family === 0 || isIP(a) === family);
    process.nextTick(() => {
      if (hostname !== name || usable.length === 0) {
        callback(Object.assign(new Error(`${hostname} has no checked address to connect to`), { code: 'ENOTFOUND' }));
      } else if (options.all) {
        callback(null, usable.map((address) => ({ address, family: isIP(address) })));
      } else {
        callback(null, usable[0], isIP(usable[0]!));
      }
    });
  }) as LookupFunction;
}

/**
 * `fetch(url, init)` with `redirect: 'manual'`, connected to one of `addresses` (which the caller judged for
 * `url.hostname`). Bodies are what fetch accepts (string, URLSearchParams, JSON text, bytes, Blob, FormData), encoded
 * by `Request` exactly as fetch would, Content-Type included. No compression is asked for, so none is undone.
 */
export async function pinnedFetch(url: URL, init: RequestInit | undefined, addresses: readonly string[], tls: PinnedTls = {}): Promise<Response> {
  const signal = init?.signal ?? undefined;
  signal?.throwIfAborted();
  const { signal: _own, ...rest } = init ?? {};
  const request = new Request(url, { ...rest, redirect: 'manual' });
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  signal?.throwIfAborted();
  const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'node' };
  request.headers.forEach((value, key) => (headers[key] = value));
  for (const name of CONNECTION_HEADERS) delete headers[name];
  if (body) headers['content-length'] = String(body.length);
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port || (secure ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method: request.method,
    headers,
    lookup: lookupOnly(url.hostname, addresses),
    // A fresh connection every time: a pooled socket could have been opened by other code with the system's answer.
    agent: false,
    ...(secure ? { servername: url.hostname, ...(tls.ca !== undefined ? { ca: tls.ca } : {}) } : {}),
  };
  return new Promise<Response>((resolve, reject) => {
    let incoming: http.IncomingMessage | undefined;
    const onAbort = () => {
      req.destroy(signal!.reason);
      incoming?.destroy(signal!.reason);
    };
    const done = () => signal?.removeEventListener('abort', onAbort);
    const req = (secure ? https : http).request(options, (res) => {
      incoming = res;
      res.once('close', done);
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 599) {
        res.destroy();
        return reject(new TypeError(`fetch failed: ${url.origin} answered status ${status}`));
      }
      const answer = new Headers();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
      const empty = request.method === 'HEAD' || NULL_BODY_STATUS.has(status);
      if (empty) res.resume();
      const response = new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage ?? '', headers: answer });
      Object.defineProperty(response, 'url', { value: url.href });
      resolve(response);
    });
    req.once('error', (error) => {
      done();
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}
