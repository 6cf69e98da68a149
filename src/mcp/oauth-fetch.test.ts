/**
 * oauth-fetch.ts: which hosts are which kind (as the URL parser hands them over: numeric and mapped forms included),
 * and which targets a server's OAuth requests may reach.
 */
import { describe, expect, it } from 'vitest';
import { hostKind, refusedTarget } from './oauth-fetch.js';

const kind = (url: string) => hostKind(new URL(url).hostname);

describe('hostKind', () => {
  it('loopback, private, link-local and public, in the forms a URL may spell them', () => {
    for (const u of ['http://127.0.0.1/', 'http://127.1/', 'http://2130706433/', 'http://0x7f.0.0.1/', 'http://0.0.0.0/', 'http://[::1]/', 'http://[::]/', 'http://[::ffff:127.0.0.1]/', 'http://localhost/', 'http://LOCALHOST./', 'http://a.b.localhost/']) {
      expect(kind(u), u).toBe('loopback');
    }
    for (const u of ['http://10.0.0.7/', 'http://172.16.0.1/', 'http://172.31.255.255/', 'http://192.168.1.1/', 'http://100.64.0.1/', 'http://[fd00::1]/', 'http://[::ffff:10.1.2.3]/']) expect(kind(u), u).toBe('private');
    for (const u of ['http://169.254.169.254/', 'http://[fe80::1]/', 'http://[::ffff:169.254.169.254]/']) expect(kind(u), u).toBe('link-local');
    for (const u of ['http://172.32.0.1/', 'http://8.8.8.8/', 'https://auth.example.com/', 'http://[2001:db8::1]/', 'http://localhost.example.com/']) expect(kind(u), u).toBe('public');
  });
});

describe('refusedTarget', () => {
  const at = (server: string, target: string) => refusedTarget(new URL(server), new URL(target));
  it('a public server reaches public addresses only; https never falls to plain http elsewhere', () => {
    expect(at('https://mcp.example.com/mcp', 'https://auth.example.org/token')).toBeUndefined();
    expect(at('https://mcp.example.com/mcp', 'http://169.254.169.254/latest/meta-data/')).toMatch(/link-local/);
    expect(at('https://mcp.example.com/mcp', 'http://127.0.0.1:8080/admin')).toMatch(/loopback/);
    expect(at('https://mcp.example.com/mcp', 'http://192.168.1.1/')).toMatch(/private/);
    expect(at('https://mcp.example.com/mcp', 'http://auth.example.org/token')).toMatch(/plain http/);
    expect(at('https://mcp.example.com/mcp', 'file:///etc/passwd')).toMatch(/not an OAuth address/);
  });
  it('a local or LAN server may use an authorization server of its own kind, or its own host', () => {
    expect(at('http://127.0.0.1:3000/mcp', 'http://127.0.0.1:9000/token')).toBeUndefined();
    expect(at('http://localhost:3000/mcp', 'http://127.0.0.1:9000/token')).toBeUndefined();
    expect(at('http://10.0.0.5/mcp', 'http://10.0.0.7/realms/x')).toBeUndefined();
    expect(at('http://10.0.0.5/mcp', 'http://169.254.169.254/')).toMatch(/link-local/);
    expect(at('http://127.0.0.1:3000/mcp', 'http://10.0.0.7/')).toMatch(/private/);
    expect(at('http://169.254.1.1/mcp', 'http://169.254.1.1:81/x')).toBeUndefined();
  });
});
