/**
 * MCP servers behind OAuth, end to end and without a person: an authorization server and an OAuth-protected MCP
 * server (the MCP SDK's server-side auth pieces) run on 127.0.0.1; the test plays the browser (GETs the authorization
 * URL, follows the redirect to toolgate's loopback listener). Through the library (`McpClientManager.login`) and
 * through the CLI (`toolgate mcp login` spawned, its printed URL read from stderr), then sessions that use the server.
 */
import Anthropic from '@anthropic-ai/sdk';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import { transcriptPath } from '../src/agent/transcript.js';
import type { McpServerConfig } from '../src/mcp/config.js';
import { McpClientManager, type McpServerEvent } from '../src/mcp/manager.js';
import { McpOAuthStore } from '../src/mcp/oauth-store.js';
import { playBrowser, startOAuthTestServers, type OAuthTestServers } from '../src/mcp/test-helpers/oauth-servers.js';
import { scoped } from '../src/mcp/test-helpers/servers.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { startInteractiveSession } from '../src/ui/start-session.js';
import { PassThrough } from 'node:stream';
import { repoRoot, toolgate } from './helpers/cli.js';

let dir: string;
let servers: OAuthTestServers;
let model: ScriptedServer | undefined;
let store: McpOAuthStore;
const managers: McpClientManager[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-oauth-'));
  servers = await startOAuthTestServers();
  store = new McpOAuthStore(path.join(dir, 'state', 'toolgate', 'mcp-oauth'));
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
  await model?.close();
  model = undefined;
  await servers.close();
  rmSync(dir, { recursive: true, force: true });
});

const remote = (url: string, type: 'http' | 'sse' = 'http'): McpServerConfig => ({ type, url, headers: {}, alwaysLoad: true });

function manager(config: McpServerConfig, events: McpServerEvent[] = []): McpClientManager {
  const m = new McpClientManager({ cwd: dir, servers: scoped({ remote: config }), oauthStore: store, onServerEvent: (e) => events.push(e) });
  managers.push(m);
  return m;
}

/** Logs in through the library, the test playing the browser on the URL it is handed. */
async function login(m: McpClientManager): Promise<{ status: number; body: string }> {
  let browser: Promise<{ status: number; body: string }> | undefined;
  const result = await m.login('remote', { openBrowser: false, onAuthorizationUrl: (url) => (browser = playBrowser(url)) });
  expect(result).toMatchObject({ status: 'logged-in', tools: 2, browserOpened: false });
  return browser!;
}

const tokenFile = () => store.fileFor('remote', servers.mcpUrl);
const readTokens = () => JSON.parse(readFileSync(tokenFile(), 'utf8')) as { tokens: { access_token: string; expires_at?: number } };
const text = (result: { content: unknown }) => (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');

describe('MCP servers behind OAuth (library)', () => {
  it('without a login: "needs login", its tools absent (the sign-in tool in their place) with a warning naming `toolgate mcp login`, nothing stored', async () => {
    const events: McpServerEvent[] = [];
    const m = manager(remote(servers.mcpUrl), events);
    expect((await m.getTools()).map((t) => t.name)).toEqual(['mcp__remote__authenticate']);
    expect(events).toEqual([{ type: 'failed', server: 'remote', error: expect.stringContaining('toolgate mcp login remote') }]);
    const [status] = await m.status();
    expect(status).toMatchObject({ state: 'needs-login', oauth: { loggedIn: false } });
    // Asked again (the next turn's pool refresh): no new request, no second warning.
    const refused = servers.unauthorized();
    expect((await m.getTools()).map((t) => t.name)).toEqual(['mcp__remote__authenticate']);
    expect(servers.unauthorized()).toBe(refused);
    expect(events).toHaveLength(1);
    expect(servers.provider.counts.registrations).toBe(0);
    expect(existsSync(store.dir) ? readdirSync(store.dir) : []).toEqual([]);
  });

  it('login (discovery, registration, PKCE, code exchange), a session that uses the server, refresh before expiry and on a 401, logout', async () => {
    const m = manager(remote(servers.mcpUrl));
    const browser = await login(m);
    expect(browser.status).toBe(200);
    expect(browser.body).toContain('login complete');
    expect(servers.provider.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    expect((await m.status())[0]).toMatchObject({ oauth: { loggedIn: true, expiresAt: expect.any(Number) } });

    // A session: the model calls the server's tools; one of them repeats the bearer token it was sent.
    model = await startScriptedServer([
      { content: [{ type: 'tool_use', name: 'mcp__remote__echo', input: { text: 'hi' } }, { type: 'tool_use', name: 'mcp__remote__show_auth', input: {} }] },
      { content: [{ type: 'text', text: 'done' }] },
    ]);
    const runtime = await createToolRuntime({
      cwd: dir,
      sessionDir: path.join(dir, 'session'),
      settings: { sources: [] },
      rules: { allow: ['mcp__remote'] },
      toolProviders: [m.toolProvider()],
    });
    try {
      let results: { content: unknown; is_error?: boolean }[] = [];
      for await (const event of query({ runtime, client: new Anthropic({ apiKey: 'sk-test', baseURL: model.url }), prompt: 'use the server', model: 'claude-sonnet-4-6' })) {
        if (event.type === 'user') results = (event.message.content as { type: string; content: unknown; is_error?: boolean }[]).filter((b) => b.type === 'tool_result');
      }
      expect(results.map((r) => r.is_error ?? false)).toEqual([false, false]);
      expect(JSON.stringify(results[0]!.content)).toContain('echo: hi');
      expect(JSON.stringify(results[1]!.content)).toContain('Bearer [REDACTED:MCP_OAUTH_TOKEN]');
      const sent = JSON.stringify(model.messageRequests.map((r) => r.body));
      const transcript = readFileSync(transcriptPath(path.join(dir, 'session')), 'utf8');
      for (const token of servers.provider.issued) {
        expect(sent).not.toContain(token);
        expect(transcript).not.toContain(token);
      }
    } finally {
      await runtime.dispose(); // disposes its tool providers: the manager too
    }

    // Another process (a new manager) finds the login in the store.
    const m2 = manager(remote(servers.mcpUrl));
    // An access token about to expire is refreshed before it is sent: no request meets a 401.
    const before = readTokens().tokens.access_token;
    const record = JSON.parse(readFileSync(tokenFile(), 'utf8'));
    record.tokens.expires_at = Date.now() + 5_000;
    writeFileSync(tokenFile(), JSON.stringify(record));
    const refused = servers.unauthorized();
    expect(text(await m2.callToolByName('mcp__remote__echo', { text: 'soon' }))).toBe('echo: soon');
    expect(servers.provider.counts.refreshes).toBe(1);
    expect(servers.unauthorized()).toBe(refused);
    expect(readTokens().tokens.access_token).not.toBe(before);
    expect(readTokens().tokens.expires_at).toBeGreaterThan(Date.now() + 60_000);
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);

    // The server stops accepting the access token: one 401, a refresh, the call goes through.
    servers.provider.revokeAccessTokens();
    expect(text(await m2.callToolByName('mcp__remote__echo', { text: 'again' }))).toBe('echo: again');
    expect(servers.provider.counts.refreshes).toBe(2);
    expect(servers.unauthorized()).toBe(refused + 1);

    // Nothing it holds works any more: the call fails saying how to log in; the server is "needs login".
    servers.provider.revokeEverything();
    await expect(m2.callToolByName('mcp__remote__echo', { text: 'x' })).rejects.toThrow(/toolgate mcp login remote/);
    expect((await m2.status())[0]!.state).toBe('needs-login');

    expect(await m2.logout('remote')).toBe(true);
    expect(existsSync(tokenFile())).toBe(false);
    expect((await m2.status())[0]).toMatchObject({ oauth: { loggedIn: false } });
  });

  it('an SSE server logs in the same way; a second login reuses the registration', async () => {
    const m = manager(remote(servers.sseUrl, 'sse'));
    expect((await m.getTools()).map((t) => t.name)).toEqual(['mcp__remote__authenticate']);
    await login(m);
    // The connection that needed a login starts afresh with the new token.
    expect((await m.getTools()).map((t) => t.name)).toEqual(['mcp__remote__echo', 'mcp__remote__show_auth']);
    expect(text(await m.callToolByName('mcp__remote__echo', { text: 'over sse' }))).toBe('echo: over sse');
    await login(m);
    expect(servers.provider.counts).toMatchObject({ registrations: 1, authorizations: 2, codeExchanges: 2 });
  });

  it('a redirect that does not carry the login\'s state is refused, and so is the login', async () => {
    const m = manager(remote(servers.mcpUrl));
    const login = m.login('remote', {
      openBrowser: false,
      onAuthorizationUrl: (url) => {
        const redirect = new URL(new URL(url).searchParams.get('redirect_uri')!);
        redirect.searchParams.set('code', 'forged');
        redirect.searchParams.set('state', 'not-the-one');
        void fetch(redirect);
      },
    });
    await expect(login).rejects.toThrow(/state/);
    expect(servers.provider.counts.codeExchanges).toBe(0);
    expect(existsSync(tokenFile()) ? readTokens().tokens : undefined).toBeUndefined();
  });
});

describe('/mcp in the interactive session', () => {
  it('lists the server as needing a login, logs in (URL shown), and its tools join the pool', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += String(d)));
    const until = async (what: RegExp) => {
      for (let i = 0; i < 600 && !what.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(what);
      return what.exec(out)!;
    };
    let tools: () => string[] = () => [];
    const session = startInteractiveSession({
      tty: false,
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      session: {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', DISPLAY: '' },
        settingSources: [],
        mcpServers: { remote: remote(servers.mcpUrl) },
        strictMcpConfig: true,
        loop: async function* () {},
      },
      onSession: (s) => (tools = () => s.tools.map((t) => t.name)),
    });
    stdin.write('/mcp\n');
    await until(/remote \[flag, http\] — needs login/);
    stdin.write('/mcp login remote\n');
    const [, url] = await until(/log in to "remote".*\n\s+(http\S+)/);
    expect((await playBrowser(url!)).status).toBe(200);
    await until(/Logged in to MCP server "remote" \(2 tools\)/);
    expect(tools()).toEqual(expect.arrayContaining(['mcp__remote__echo', 'mcp__remote__show_auth']));
    stdin.write('/mcp\n');
    await until(/remote \[flag, http\] — connected, OAuth: logged in, 2 tools/);
    stdin.end();
    expect(await session).toBe(0);
  });
});

describe('MCP servers behind OAuth (CLI)', { timeout: 300_000 }, () => {
  it('toolgate mcp login prints the URL and completes; run uses the server; get shows the login; logout removes it', async () => {
    const state = path.join(dir, 'xdg-state');
    const env = { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: state, ANTHROPIC_API_KEY: 'sk-test', DISPLAY: '' };
    const config = path.join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { remote: { type: 'http', url: servers.mcpUrl, alwaysLoad: true } } }));
    const cli = ['--cwd', dir, '--mcp-config', config, '--strict-mcp-config'];

    // Not logged in yet: list --connect says so, and a run goes on without the server's tools, with the hint.
    expect((await toolgate(['mcp', 'list', ...cli, '--connect'], { env })).stdout).toMatch(/remote .* needs login/);
    model = await startScriptedServer([{ content: [{ type: 'text', text: 'no tools, fine' }] }]);
    const first = await toolgate(['run', '-p', 'hello', '--cwd', dir, '--mcp-config', config], { env: { ...env, ANTHROPIC_BASE_URL: model.url } });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('toolgate mcp login remote');
    await model.close();

    const login = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'mcp', 'login', 'remote', ...cli, '--no-browser'], { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    login.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      login.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      login.on('exit', () => reject(new Error(`login exited before printing a URL:\n${stderr}`)));
    });
    expect((await playBrowser(url)).status).toBe(200);
    const code = await new Promise<number | null>((resolve) => login.on('exit', resolve));
    expect({ code, stdout }).toMatchObject({ code: 0, stdout: expect.stringContaining('Logged in to MCP server "remote" (2 tools)') });
    const files = readdirSync(path.join(state, 'toolgate', 'mcp-oauth'));
    expect(files).toHaveLength(1);
    expect(statSync(path.join(state, 'toolgate', 'mcp-oauth', files[0]!)).mode & 0o777).toBe(0o600);

    const got = await toolgate(['mcp', 'get', 'remote', ...cli], { env });
    expect(got.stdout).toMatch(/oauth: +logged in/);

    model = await startScriptedServer([
      { content: [{ type: 'tool_use', name: 'mcp__remote__show_auth', input: {} }] },
      { content: [{ type: 'text', text: 'done' }] },
    ]);
    const run = await toolgate(['run', '-p', 'show me', '--cwd', dir, '--mcp-config', config, '--allowedTools', 'mcp__remote', '--output-format', 'json'], { env: { ...env, ANTHROPIC_BASE_URL: model.url } });
    expect(run.code).toBe(0);
    const result = model.messageRequests[1]!.body.messages.at(-1).content[0];
    expect(JSON.stringify(result.content)).toContain('Bearer [REDACTED:MCP_OAUTH_TOKEN]');
    const sessions = path.join(state, 'toolgate', 'sessions');
    const transcripts = readdirSync(sessions).map((id) => readFileSync(transcriptPath(path.join(sessions, id)), 'utf8')).join('\n');
    for (const token of servers.provider.issued) {
      expect(transcripts).not.toContain(token);
      expect(run.stdout).not.toContain(token);
    }

    const out = await toolgate(['mcp', 'logout', 'remote', ...cli], { env });
    expect(out.stdout).toContain('tokens were removed');
    expect(readdirSync(path.join(state, 'toolgate', 'mcp-oauth'))).toEqual([]);
    expect((await toolgate(['mcp', 'get', 'remote', ...cli], { env })).stdout).toMatch(/oauth: +not logged in/);
  });
});
