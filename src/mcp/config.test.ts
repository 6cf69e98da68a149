import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expandEnvVars, parseMcpServerConfig } from './config.js';
import { loadMcpConfig } from './load-config.js';
import { buildMcpToolName, normalizeNameForMcp } from './names.js';

describe('${VAR} expansion', () => {
  it.each([
    ['${A}', { A: 'x' }, 'x', []],
    ['${A:-d}', {}, 'd', []],
    ['${A:-}', {}, '', []],
    ['${A:-d}', { A: 'set' }, 'set', []],
    ['pre-${A}-${B}-post', { A: '1' }, 'pre-1-${B}-post', ['B']],
    ['no vars $A ${', {}, 'no vars $A ${', []],
  ])('%s', (text, env, value, missing) => {
    expect(expandEnvVars(text, env)).toEqual({ value, missing });
  });
});

describe('one server entry', () => {
  const env = { TOKEN: 's3cret', HOME: '/home/u' };
  it('stdio is the default type; every string is expanded', () => {
    const r = parseMcpServerConfig('db', { command: '${HOME}/bin/db', args: ['--token', '${TOKEN}'], env: { K: '${MISSING:-fallback}' } }, env);
    expect(r.config).toEqual({ type: 'stdio', command: '/home/u/bin/db', args: ['--token', 's3cret'], env: { K: 'fallback' } });
  });
  it('http and sse with headers; a url-only entry is http', () => {
    expect(parseMcpServerConfig('a', { type: 'http', url: 'https://x.test/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } }, env).config).toEqual({
      type: 'http',
      url: 'https://x.test/mcp',
      headers: { Authorization: 'Bearer s3cret' },
    });
    expect(parseMcpServerConfig('b', { url: 'http://127.0.0.1:1/sse', type: 'sse' }, env).config?.type).toBe('sse');
    expect(parseMcpServerConfig('c', { url: 'http://127.0.0.1:1/mcp' }, env).config?.type).toBe('http');
  });
  it('oauth.privateKey (private_key_jwt): expanded from the environment; needs a client id, no secret beside it, an asymmetric algorithm', () => {
    const pem = { KEY: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----' };
    const entry = (oauth: Record<string, unknown>) => parseMcpServerConfig('a', { type: 'http', url: 'https://x.test/mcp', oauth }, { ...env, ...pem });
    expect(entry({ clientId: 'c', privateKey: '${KEY}', signingAlgorithm: 'ES256', grantType: 'client_credentials' }).config).toMatchObject({ oauth: { clientId: 'c', privateKey: pem.KEY, signingAlgorithm: 'ES256', grantType: 'client_credentials' } });
    expect(entry({ privateKey: '${KEY}' }).problems).toEqual(['"oauth.privateKey" needs "oauth.clientId"']);
    expect(entry({ clientId: 'c', privateKey: '${KEY}', clientSecret: 's' }).problems[0]).toContain('give one');
    expect(entry({ clientId: 'c', privateKey: '${KEY}', signingAlgorithm: 'HS256' }).problems[0]).toContain('"oauth.signingAlgorithm" must be one of');
    expect(entry({ clientId: 'c', grantType: 'client_credentials' }).problems[0]).toContain('needs "oauth.clientId" and "oauth.clientSecret" (or "oauth.privateKey")');
  });
  it('refuses what it cannot run, saying why', () => {
    expect(parseMcpServerConfig('a', { command: 'x', args: ['${NOPE}'] }, env).problems).toEqual([expect.stringContaining('NOPE not set')]);
    expect(parseMcpServerConfig('a', { type: 'ws', url: 'ws://x' }, env).problems[0]).toContain('"type"');
    expect(parseMcpServerConfig('a', { type: 'http', url: 'file:///etc/passwd' }, env).problems[0]).toContain('http(s)');
    expect(parseMcpServerConfig('a', { command: 'x', args: 'not-a-list' }, env).problems[0]).toContain('"args"');
    expect(parseMcpServerConfig('a', 'nope', env).problems[0]).toContain('object');
  });
  it('alwaysLoad is kept', () => {
    expect(parseMcpServerConfig('a', { command: 'x', alwaysLoad: true }, env).config?.alwaysLoad).toBe(true);
  });
});

describe('names as Claude Code builds them', () => {
  it('normalises characters outside [a-zA-Z0-9_-]', () => {
    expect(normalizeNameForMcp('my server.v2')).toBe('my_server_v2');
    expect(buildMcpToolName('github', 'search-issues')).toBe('mcp__github__search-issues');
    expect(buildMcpToolName('a b', 'c.d')).toBe('mcp__a_b__c_d');
  });
  it('keeps very long names within the API limit and distinct', () => {
    const a = buildMcpToolName('s', 'x'.repeat(200) + 'a');
    const b = buildMcpToolName('s', 'x'.repeat(200) + 'b');
    expect(a.length).toBeLessThanOrEqual(128);
    expect(a).not.toBe(b);
  });
});

describe('loadMcpConfig: scopes, precedence, approval', () => {
  let root: string;
  let project: string;
  let home: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcpcfg-'));
    project = path.join(root, 'project');
    home = path.join(root, 'home');
    mkdirSync(path.join(project, '.claude'), { recursive: true });
    mkdirSync(path.join(home, '.claude'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, json: unknown) => writeFileSync(file, typeof json === 'string' ? json : JSON.stringify(json));
  const load = (extra: Partial<Parameters<typeof loadMcpConfig>[0]> = {}) =>
    loadMcpConfig({ cwd: project, homeDir: home, managedSettingsPath: path.join(root, 'managed.json'), env: {}, ...extra });

  it('project servers wait for approval; settings approve them; disabled wins; the project cannot approve itself', () => {
    write(path.join(project, '.mcp.json'), { mcpServers: { a: { command: 'a' }, b: { command: 'b' }, c: { command: 'c' } } });
    expect([...load().servers.values()].map((s) => [s.name, s.scope, s.approval])).toEqual([
      ['a', 'project', 'pending'],
      ['b', 'project', 'pending'],
      ['c', 'project', 'pending'],
    ]);
    write(path.join(project, '.claude', 'settings.json'), { enableAllProjectMcpServers: true });
    expect(load().servers.get('a')?.approval).toBe('pending');
    write(path.join(project, '.claude', 'settings.local.json'), { enabledMcpjsonServers: ['a', 'b'], disabledMcpjsonServers: ['b'] });
    const s = load().servers;
    expect([s.get('a')?.approval, s.get('b')?.approval, s.get('c')?.approval]).toEqual(['approved', 'rejected', 'pending']);
    write(path.join(home, '.claude', 'settings.json'), { enableAllProjectMcpServers: true });
    const t = load().servers;
    expect([t.get('a')?.approval, t.get('b')?.approval, t.get('c')?.approval]).toEqual(['approved', 'rejected', 'approved']);
  });

  it('flag → local → project → user on a name clash; --strict-mcp-config keeps only the flag', () => {
    write(path.join(project, '.mcp.json'), { mcpServers: { same: { command: 'project' }, p: { command: 'p' } } });
    write(path.join(home, '.claude.json'), {
      mcpServers: { same: { command: 'user' }, u: { command: 'u' } },
      projects: { [project]: { mcpServers: { same: { command: 'local' } } } },
    });
    const cfg = load();
    expect(cfg.servers.get('same')).toMatchObject({ scope: 'local', config: { command: 'local' }, approval: 'approved' });
    expect(cfg.servers.get('u')).toMatchObject({ scope: 'user', approval: 'approved' });
    const flagged = load({ mcpConfigs: ['{"mcpServers":{"same":{"command":"flag"}}}'] });
    expect(flagged.servers.get('same')).toMatchObject({ scope: 'flag', config: { command: 'flag' } });
    const strict = load({ mcpConfigs: ['{"mcpServers":{"only":{"command":"x"}}}'], strict: true });
    expect([...strict.servers.keys()]).toEqual(['only']);
  });

  it('a --mcp-config file; broken JSON and bad entries are reported with file and server', () => {
    const file = path.join(root, 'extra.json');
    write(file, { mcpServers: { ok: { type: 'http', url: 'http://127.0.0.1:9/mcp' }, bad: { type: 'http' } } });
    write(path.join(project, '.mcp.json'), '{ nope');
    const cfg = load({ mcpConfigs: [file, path.join(root, 'missing.json')] });
    expect(cfg.servers.get('ok')?.scope).toBe('flag');
    expect(cfg.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file, server: 'bad', message: expect.stringContaining('"url"') }),
        expect.objectContaining({ file: path.join(project, '.mcp.json'), message: expect.stringContaining('invalid JSON') }),
        expect.objectContaining({ file: path.join(root, 'missing.json'), message: expect.stringContaining('does not exist') }),
      ]),
    );
  });

  it('sources: [] reads no settings file', () => {
    write(path.join(project, '.mcp.json'), { mcpServers: { a: { command: 'a' } } });
    expect(load({ sources: [] }).servers.size).toBe(0);
  });
});
