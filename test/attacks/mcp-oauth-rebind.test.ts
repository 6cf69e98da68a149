/**
 * Two ways around the MCP OAuth guard's address check (docs/security.md §7c), both closed by oauth-fetch.ts:
 * - DNS rebinding: the authorization server's name answers a public address to the guard's look-up and 127.0.0.1 a
 *   moment later (zero TTL). The guard judged the first answer; a fetch that resolves the name again connects to the
 *   second. Now the connection is pinned to the addresses judged, and the name is looked up once.
 * - A redirect followed inside fetch: an allowed address answers 302 to a loopback service, and fetch went there
 *   without asking the guard. Now the guard follows redirects itself and judges each target.
 * The "network" here is the test's: a resolver standing in for DNS, and a fetch that connects where that resolver (or
 * a fixed map of public addresses) says — as the system's fetch would. Real listeners on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedOAuthFetch } from '../../src/mcp/oauth-fetch.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function victim(): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.end('{"secret":"admin-panel"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { port: (server.address() as AddressInfo).port, hits };
}

describe('attack: reaching what the OAuth guard refused', () => {
  it('a name that answers a public address to the check and 127.0.0.1 a moment later reaches nothing; it is looked up once', async () => {
    const admin = await victim();
    const answers = [['203.0.113.7'], ['127.0.0.1']];
    const asked: string[] = [];
    const resolve = async (host: string) => (asked.push(host), answers[Math.min(asked.length - 1, 1)]!);
    // The system's fetch: it resolves the name itself (the second answer) and connects there.
    const systemFetch = async (url: string | URL, init?: RequestInit) => {
      const u = new URL(url);
      u.hostname = (await resolve(u.hostname))[0]!;
      return fetch(u, init);
    };
    const guarded = guardedOAuthFetch('http://mcp.example.com/mcp', systemFetch, resolve);
    // Pinned to 203.0.113.7 (documentation range: nothing answers there), the request fails or is cut short.
    await expect(guarded(`http://auth.flip.test:${admin.port}/.well-known/oauth-authorization-server`, { signal: AbortSignal.timeout(3_000) })).rejects.toThrow();
    expect(admin.hits).toEqual([]);
    expect(asked).toEqual(['auth.flip.test']);
  });

  it('an allowed address redirecting to a loopback service: the guard judges the redirect and refuses it; nothing reaches the service', async () => {
    const admin = await victim();
    const front = http.createServer((_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `http://127.0.0.1:${admin.port}/admin`);
      res.end();
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => front.close(() => resolve())));
    const frontPort = (front.address() as AddressInfo).port;
    // 203.0.113.9 is "a public authorization server"; the test's network delivers it to the local front listener.
    const network = (url: string | URL, init?: RequestInit) => {
      const u = new URL(url);
      if (u.hostname === '203.0.113.9') u.hostname = '127.0.0.1';
      return fetch(u, init);
    };
    const guarded = guardedOAuthFetch('http://mcp.example.com/mcp', network, async () => []);
    await expect(guarded(`http://203.0.113.9:${frontPort}/token`, { method: 'POST', body: new URLSearchParams({ a: '1' }) })).rejects.toThrow(/Refused to request http:\/\/127\.0\.0\.1:\d+ .*loopback/);
    await expect(guarded(`http://203.0.113.9:${frontPort}/.well-known/openid-configuration`)).rejects.toThrow(/Refused .*loopback/);
    expect(admin.hits).toEqual([]);
  });
});
