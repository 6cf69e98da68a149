/**
 * `mcp__<server>__authenticate` end to end: a real authorization server and an OAuth-protected MCP server on
 * 127.0.0.1 (the MCP tests' fixture), the MCP client manager in a real tool runtime, the test playing the person (it
 * answers the question) and their browser (it GETs the page it was shown and follows the redirect to the loopback
 * listener). Headless, the call fails at once with the command to run, and nothing is registered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../agent/create-tool-runtime.js';
import type { QuestionAnswer, QuestionRequest, ToolRuntime } from '../../agent/types.js';
import { McpClientManager } from '../../mcp/manager.js';
import { McpOAuthStore } from '../../mcp/oauth-store.js';
import { playBrowser, startOAuthTestServers, type OAuthTestServers } from '../../mcp/test-helpers/oauth-servers.js';
import { scoped } from '../../mcp/test-helpers/servers.js';
import type { ToolUseBlock } from '../../tool/tool.js';

let dir: string;
let servers: OAuthTestServers;
const open: { dispose(): Promise<void> }[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcpauth-'));
  servers = await startOAuthTestServers();
});
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.dispose();
  await servers.close();
  rmSync(dir, { recursive: true, force: true });
});

const AUTH = 'mcp__remote__authenticate';
let n = 0;
const use = (name: string, input: Record<string, unknown> = {}): ToolUseBlock => ({ type: 'tool_use', id: `toolu_auth${++n}`, name, input }) as ToolUseBlock;
const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));

let loggedIn: Promise<void>;

async function session(onQuestion?: (q: QuestionRequest) => Promise<QuestionAnswer>): Promise<{ runtime: ToolRuntime; manager: McpClientManager }> {
  let changed!: () => void;
  loggedIn = new Promise<void>((resolve) => (changed = resolve));
  const manager = new McpClientManager({
    // A finished login starts the connection afresh and asks for a pool refresh.
    onToolsChanged: () => changed(),
    cwd: dir,
    servers: scoped({ remote: { type: 'http', url: servers.mcpUrl, headers: {}, alwaysLoad: true } }),
    oauthStore: new McpOAuthStore(path.join(dir, 'oauth')),
    ...(onQuestion ? { onQuestion } : {}),
  });
  const runtime = await createToolRuntime({
    cwd: dir,
    settings: { sources: [] },
    sessionDir: path.join(dir, 'session'),
    toolProviders: [manager.toolProvider()],
    rules: { allow: ['mcp__remote'] },
    ...(onQuestion ? { onQuestion } : {}),
  });
  open.push(runtime, manager);
  return { runtime, manager };
}

/** The server's tools in the pool once the login (which may end in the background) has asked for a refresh. */
async function toolsAfterLogin(runtime: ToolRuntime): Promise<string[]> {
  await loggedIn;
  await runtime.refreshTools();
  return runtime.tools.map((t) => t.name).filter((t) => t.startsWith('mcp__remote__'));
}

describe('mcp__<server>__authenticate', { timeout: 60_000 }, () => {
  it('stands in for the tools of a server that needs a login: Claude Code\'s name, an empty strict input', async () => {
    const { runtime } = await session(async () => ({ action: 'cancel' }));
    const tools = runtime.tools.filter((t) => t.name.startsWith('mcp__remote__')).map((t) => t.name);
    expect(tools).toEqual([AUTH]);
    const def = (await runtime.definitions()).find((d) => d.name === AUTH);
    expect(def?.input_schema).toMatchObject({ type: 'object', properties: {} });
    expect(def?.description).toContain('"remote"');
    const bad = await runtime.run([use(AUTH, { url: 'x' })]);
    expect(bad.results[0]?.is_error).toBe(true);
  });

  it('interactive: the page is shown as a URL-mode question; once the person signs in, the real tools replace it', async () => {
    const asked: QuestionRequest[] = [];
    const { runtime } = await session(async (q) => {
      asked.push(q);
      // The person opens the page (the test plays the browser) and leaves the dialog open: the finished login ends it.
      const browser = await playBrowser(q.url!);
      expect(browser.status).toBe(200);
      return new Promise<QuestionAnswer>((resolve) => q.signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }));
    });
    const r = await runtime.run([use(AUTH)]);
    expect(r.results[0]?.is_error).toBeFalsy();
    expect(text(r.results[0]?.content)).toContain('signed in to MCP server "remote"');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ kind: 'elicitation', message: expect.stringContaining('MCP server "remote" asks') });
    expect(new URL(asked[0]!.url!).origin).toBe(new URL(servers.issuerUrl).origin);
    expect(asked[0]!.signal.aborted).toBe(true);
    expect(await toolsAfterLogin(runtime)).toEqual(['mcp__remote__echo', 'mcp__remote__show_auth']);
    const echo = await runtime.run([use('mcp__remote__echo', { text: 'hi' })]);
    expect(text(echo.results[0]?.content)).toContain('echo: hi');
  });

  it('accepted and left to the browser: the result carries the URL, the login finishes in the background', async () => {
    const { runtime } = await session(async () => ({ action: 'accept' }));
    const r = await runtime.run([use(AUTH)]);
    expect(r.results[0]?.is_error).toBeFalsy();
    const body = text(r.results[0]?.content);
    const url = /https?:\/\/\S+/.exec(body)?.[0];
    expect(url).toBeDefined();
    expect(servers.provider.counts.codeExchanges).toBe(0);
    // A second call joins the login under way: the same page, no second registration.
    const again = await runtime.run([use(AUTH)]);
    expect(text(again.results[0]?.content)).toContain(url!);
    expect(servers.provider.counts.registrations).toBe(1);
    expect((await playBrowser(url!)).status).toBe(200);
    expect(await toolsAfterLogin(runtime)).toEqual(['mcp__remote__echo', 'mcp__remote__show_auth']);
    expect(servers.provider.counts.codeExchanges).toBe(1);
  });

  it('declined: an error result, the login ended, the tool still offered', async () => {
    const { runtime } = await session(async () => ({ action: 'decline' }));
    const r = await runtime.run([use(AUTH)]);
    expect(r.results[0]?.is_error).toBe(true);
    expect(text(r.results[0]?.content)).toMatch(/declined the sign-in/);
    await runtime.refreshTools();
    expect(runtime.findTool(AUTH)).toBeDefined();
    expect(servers.provider.counts.codeExchanges).toBe(0);
  });

  it('headless: fails at once with the exact command to run; nothing is registered or stored', async () => {
    const { runtime, manager } = await session();
    const r = await runtime.run([use(AUTH)]);
    expect(r.results[0]?.is_error).toBe(true);
    expect(text(r.results[0]?.content)).toContain('`toolgate mcp login remote`');
    expect(servers.provider.counts.registrations).toBe(0);
    expect((await manager.status())[0]).toMatchObject({ state: 'needs-login', oauth: { loggedIn: false } });
  });
});
