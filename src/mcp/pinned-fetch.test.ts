/**
 * pinned-fetch.ts through the guard (oauth-fetch.ts): a name the guard resolved is requested at the address it judged,
 * never resolved again (the `.test` names below resolve nowhere on this machine); every body kind the MCP SDK's OAuth
 * code sends arrives as fetch would send it; TLS checks the certificate against the name; aborts end the exchange;
 * redirects are followed by the guard, each target judged and pinned anew. Real servers on 127.0.0.1.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedOAuthFetch } from './oauth-fetch.js';
import { pinnedFetch } from './pinned-fetch.js';
import { otherCert, otherKey, pinCert, pinKey } from './test-helpers/pinned-tls.js';

interface Seen {
  method: string;
  url: string;
  host: string;
  type: string;
  auth: string;
  body: string;
  servername?: string;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, tls?: { cert: string; key: string }): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const servername = (req.socket as { servername?: string }).servername;
      seen.push({ method: req.method!, url: req.url!, host: req.headers.host ?? '', type: req.headers['content-type'] ?? '', auth: req.headers.authorization ?? '', body, ...(servername ? { servername } : {}) });
      handler(req, res);
    });
  };
  const server = tls ? https.createServer(tls, onRequest) : http.createServer(onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { port: (server.address() as AddressInfo).port, seen };
}

const json = (value: unknown) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(value));
};
const noSecondFetch = async () => {
  throw new Error('the inner fetch was used for a name the guard resolved');
};

describe('pinned to the checked address', () => {
  it('a name the resolver maps to 127.0.0.1 is requested at that address, with the name as Host, although the system cannot resolve it', async () => {
    const auth = await listen(json({ issuer: 'x' }));
    const asked: string[] = [];
    const guarded = guardedOAuthFetch('http://127.0.0.1:1/mcp', noSecondFetch, async (host) => (asked.push(host), host === 'auth.pin.test' ? ['127.0.0.1'] : []));
    const response = await guarded(`http://auth.pin.test:${auth.port}/.well-known/oauth-authorization-server?x=1`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`http://auth.pin.test:${auth.port}/.well-known/oauth-authorization-server?x=1`);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ issuer: 'x' });
    expect(auth.seen).toMatchObject([{ method: 'GET', url: '/.well-known/oauth-authorization-server?x=1', host: `auth.pin.test:${auth.port}` }]);
    expect(asked).toEqual(['auth.pin.test']);
  });

  it('sends every body the SDK sends as fetch would: URLSearchParams (token), a JSON string (registration), Headers objects', async () => {
    const auth = await listen((_req, res) => {
      res.statusCode = 201;
      res.end('ok');
    });
    const guarded = guardedOAuthFetch('http://127.0.0.1:1/mcp', noSecondFetch, async () => ['127.0.0.1']);
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r t&1' });
    const token = await guarded(`http://auth.pin.test:${auth.port}/token`, { method: 'POST', headers: new Headers({ authorization: 'Basic abc' }), body: form });
    expect([token.status, await token.text()]).toEqual([201, 'ok']);
    await guarded(`http://auth.pin.test:${auth.port}/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_name: 'toolgate' }) });
    await guarded(`http://auth.pin.test:${auth.port}/bytes`, { method: 'PUT', body: new TextEncoder().encode('raw') });
    expect(auth.seen).toMatchObject([
      { method: 'POST', url: '/token', type: 'application/x-www-form-urlencoded;charset=UTF-8', auth: 'Basic abc', body: form.toString() },
      { method: 'POST', url: '/register', type: 'application/json', body: '{"client_name":"toolgate"}' },
      { method: 'PUT', url: '/bytes', body: 'raw' },
    ]);
  });

  it('https: SNI and the certificate are the name (trusted certificate for it: fetched; one for another name: refused by TLS)', async () => {
    const good = await listen(json({ ok: true }), { cert: pinCert, key: pinKey });
    const response = await pinnedFetch(new URL(`https://auth.pin.test:${good.port}/x`), undefined, ['127.0.0.1'], { ca: pinCert });
    expect(await response.json()).toEqual({ ok: true });
    expect(good.seen).toMatchObject([{ servername: 'auth.pin.test', host: `auth.pin.test:${good.port}` }]);

    const wrong = await listen(json({ ok: true }), { cert: otherCert, key: otherKey });
    const failed = pinnedFetch(new URL(`https://auth.pin.test:${wrong.port}/x`), undefined, ['127.0.0.1'], { ca: otherCert });
    await expect(failed).rejects.toMatchObject({ message: 'fetch failed', cause: { code: 'ERR_TLS_CERT_ALTNAME_INVALID' } });
    expect(wrong.seen).toEqual([]);
    // Through the guard, with the system's trust: a self-signed certificate is no certificate.
    const guarded = guardedOAuthFetch('https://127.0.0.1:1/mcp', noSecondFetch, async () => ['127.0.0.1']);
    await expect(guarded(`https://auth.pin.test:${good.port}/x`)).rejects.toMatchObject({ cause: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } });
    expect(good.seen).toHaveLength(1);
  });
});

describe('aborts and redirects', () => {
  it('an abort ends the exchange before the answer and while its body streams', async () => {
    const held: http.ServerResponse[] = [];
    const auth = await listen((req, res) => {
      held.push(res);
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
      }
    });
    const guarded = guardedOAuthFetch('http://127.0.0.1:1/mcp', noSecondFetch, async () => ['127.0.0.1']);
    const before = new AbortController();
    const waiting = guarded(`http://auth.pin.test:${auth.port}/hang`, { signal: before.signal });
    await until(() => held.length === 1);
    before.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });

    const during = new AbortController();
    const response = await guarded(`http://auth.pin.test:${auth.port}/stream`, { signal: during.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    during.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await expect(guarded(`http://auth.pin.test:${auth.port}/never`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(held).toHaveLength(2);
  });

  it('a redirect is judged, resolved and pinned anew; another origin loses the credentials; a POST turns GET on 302; manual is returned as is', async () => {
    const second = await listen(json({ landed: true }));
    const first = await listen((req, res) => {
      res.statusCode = req.url === '/post' ? 302 : 307;
      res.setHeader('location', req.url === '/lan' ? 'http://auth.lan.test/x' : `http://auth.two.test:${second.port}/landing`);
      res.end();
    });
    const answers: Record<string, string[]> = { 'auth.one.test': ['127.0.0.1'], 'auth.two.test': ['127.0.0.1'], 'auth.lan.test': ['10.0.0.7'] };
    const asked: string[] = [];
    const guarded = guardedOAuthFetch('http://127.0.0.1:1/mcp', noSecondFetch, async (host) => (asked.push(host), answers[host] ?? []));
    const followed = await guarded(`http://auth.one.test:${first.port}/get`, { headers: { authorization: 'Bearer secret' } });
    expect(await followed.json()).toEqual({ landed: true });
    expect(followed.url).toBe(`http://auth.two.test:${second.port}/landing`);
    expect(asked).toEqual(['auth.one.test', 'auth.two.test']);
    expect(first.seen).toMatchObject([{ url: '/get', auth: 'Bearer secret' }]);
    expect(second.seen).toMatchObject([{ method: 'GET', url: '/landing', host: `auth.two.test:${second.port}`, auth: '' }]);

    await guarded(`http://auth.one.test:${first.port}/post`, { method: 'POST', body: new URLSearchParams({ a: '1' }) });
    expect(second.seen[1]).toMatchObject({ method: 'GET', body: '', type: '' });

    await expect(guarded(`http://auth.one.test:${first.port}/lan`)).rejects.toThrow(/Refused to request http:\/\/auth\.lan\.test .*resolves to 10\.0\.0\.7: it is a private address/);
    const manual = await guarded(`http://auth.one.test:${first.port}/get`, { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([307, `http://auth.two.test:${second.port}/landing`]);
    await expect(guarded(`http://auth.one.test:${first.port}/get`, { redirect: 'error' })).rejects.toThrow(/redirect is 'error'/);
    expect(second.seen).toHaveLength(2);
  });

  it('a redirect loop ends after 20 hops', async () => {
    const loop = await listen((req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `/n${Number(req.url!.slice(2)) + 1}`);
      res.end();
    });
    const guarded = guardedOAuthFetch('http://127.0.0.1:1/mcp', noSecondFetch, async () => ['127.0.0.1']);
    await expect(guarded(`http://auth.pin.test:${loop.port}/n0`)).rejects.toThrow(/more than 20 redirects/);
    expect(loop.seen).toHaveLength(21);
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
