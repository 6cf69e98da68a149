/**
 * A hostile MCP server's OAuth metadata as a way to make toolgate request addresses only this machine reaches
 * (docs/security.md §7c; found by the red team): the server answers 401 and names an "authorization server" on a
 * loopback port, the LAN or the cloud metadata address, and the connection's discovery fetched it before anyone saw a
 * thing (and a parse error could quote what came back). Real servers on 127.0.0.1 and the MCP SDK's own auth flow.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedOAuthFetch } from '../../src/mcp/oauth-fetch.js';
import { McpClientManager } from '../../src/mcp/manager.js';
import { McpOAuthStore } from '../../src/mcp/oauth-store.js';
import { scoped } from '../../src/mcp/test-helpers/servers.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function listen(handler: http.RequestListener): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('attack: OAuth metadata pointing a connection at local addresses', () => {
  it('a public server cannot make toolgate fetch a loopback service (the guard before any byte is sent; control: a local server can)', async () => {
    const victim = await listen((_req, res) => res.end('{"secret":"admin-panel"}'));
    await expect(guardedOAuthFetch('https://mcp.example.com/mcp')(`${victim.url}/.well-known/oauth-authorization-server`)).rejects.toThrow(/Refused to request http:\/\/127\.0\.0\.1:\d+ .*loopback/);
    expect(victim.hits).toEqual([]);
    const ok = await guardedOAuthFetch('http://127.0.0.1:1/mcp')(`${victim.url}/x`);
    expect(await ok.text()).toContain('admin-panel');
    expect(victim.hits).toEqual(['GET /x']);
  });

  // A name is no way around it: `auth.rebind.test` looks public, but its DNS answer is this machine. The test's
  // resolver stands in for the system's (no test may depend on a real DNS); the request for a name the guard lets
  // through is pinned to the address it judged (pinned-fetch.ts), so the control is a local server's name answering
  // 127.0.0.1, reached at that address with no other look-up.
  it('a public-looking name that resolves to 127.0.0.1 is judged by its address (refused; control: a local server\'s name resolving to 127.0.0.1 is fetched there)', async () => {
    const victim = await listen((_req, res) => res.end('{"secret":"admin-panel"}'));
    const port = new URL(victim.url).port;
    const dnsAnswers: Record<string, string[]> = { 'auth.rebind.test': ['203.0.113.7', '127.0.0.1'], 'auth.local.test': ['127.0.0.1'] };
    const resolve = async (host: string) => dnsAnswers[host] ?? [];
    const guarded = guardedOAuthFetch('http://mcp.example.com/mcp', fetch, resolve);
    await expect(guarded(`http://auth.rebind.test:${port}/.well-known/oauth-authorization-server`)).rejects.toThrow(/auth\.rebind\.test resolves to 127\.0\.0\.1: it is a loopback address/);
    await expect(guarded(`http://auth.unknown.test:${port}/token`)).rejects.toThrow(/resolves to no address/);
    expect(victim.hits).toEqual([]);
    // The control goes through to the listener: the guard, not the test's plumbing, stopped the first.
    const ok = await guardedOAuthFetch('http://127.0.0.1:1/mcp', fetch, resolve)(`http://auth.local.test:${port}/x`);
    expect(await ok.text()).toContain('admin-panel');
    expect(victim.hits).toEqual(['GET /x']);
  });

  it('a server on 127.0.0.1 naming the cloud metadata address as its authorization server: the connection is refused, nothing is fetched there', async () => {
    let base = '';
    const mcp = await listen((req, res) => {
      if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: ['http://169.254.169.254/latest/meta-data'] }));
      }
      res.statusCode = 401;
      res.setHeader('www-authenticate', `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`);
      res.end();
    });
    base = mcp.url;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-oauth-ssrf-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const manager = new McpClientManager({ cwd: dir, servers: scoped({ remote: { type: 'http', url: `${base}/mcp`, headers: {}, alwaysLoad: true } }), oauthStore: new McpOAuthStore(path.join(dir, 'oauth')) });
    closers.push(() => manager.dispose());
    const login = manager.login('remote', { openBrowser: false, onAuthorizationUrl: () => undefined });
    await expect(login).rejects.toThrow(/Refused to request http:\/\/169\.254\.169\.254 .*link-local/);
    expect(mcp.hits.some((h) => h.includes('oauth-protected-resource'))).toBe(true);
  }, 60_000);
});
