/**
 * The OAuth login of one HTTP or SSE MCP server (`toolgate mcp login NAME`, `/mcp login NAME`): the MCP SDK's client
 * auth does discovery, registration, PKCE and the code exchange; this file starts a one-shot listener on 127.0.0.1
 * (a random port, or the port of an earlier registration) for the redirect, hands the authorization URL to the caller
 * (printed) and to a browser when there is one, waits for the code (checking `state`), and finishes the flow. The
 * tokens land in the token store; the server is then connected once to confirm they work.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { McpRemoteServerConfig } from './config.js';
import { createRemoteTransport } from './connection.js';
import { McpOAuthProvider } from './oauth-provider.js';
import { printable, showableUrl } from './elicitation-url.js';
import { McpOAuthStore } from './oauth-store.js';
import { TOOLGATE_VERSION } from '../tool/version.js';

/** How long a login waits for the person to finish in the browser. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;

export interface McpLoginOptions {
  readonly name: string;
  readonly config: McpRemoteServerConfig;
  readonly store?: McpOAuthStore;
  /** Called with the authorization URL as soon as it is known: print it (a browser may not be there or may not open). */
  readonly onAuthorizationUrl?: (url: string) => void;
  /** Open a browser on the URL (default: when there is a desktop — `open` on macOS, `xdg-open` with a display). */
  readonly openBrowser?: boolean;
  /** The environment the desktop is judged from (default: process.env). */
  readonly env?: NodeJS.ProcessEnv;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

export interface McpLoginResult {
  /** `not-required`: the server answered without asking for a login (nothing was stored). */
  readonly status: 'logged-in' | 'not-required';
  /** Tools the server lists with the new tokens. */
  readonly tools: number;
  /** Whether a browser was started (the URL was handed to `onAuthorizationUrl` either way). */
  readonly browserOpened: boolean;
}

/** A login that could not finish (the server offers no OAuth, the browser step timed out, the exchange failed). */
export class McpLoginError extends Error {
  override readonly name = 'McpLoginError';
}

/**
 * Logs in to an MCP server that asks for OAuth (what `toolgate mcp login NAME` runs): discovery, registration, PKCE,
 * the browser step through a one-shot listener on 127.0.0.1, and the tokens stored for the session to use.
 */
export async function loginMcpServer(options: McpLoginOptions): Promise<McpLoginResult> {
  try {
    return await login(options);
  } catch (error) {
    // The authorization server's words (an error_description of its token endpoint, through the MCP SDK's error)
    // reach a terminal: `toolgate mcp login` prints the error. No escape sequence of theirs gets there raw.
    if (error instanceof Error) error.message = printable(error.message);
    throw error;
  }
}

async function login(options: McpLoginOptions): Promise<McpLoginResult> {
  const { name, config } = options;
  const store = options.store ?? new McpOAuthStore();
  // A pre-registered client's redirect URI names its port: only that one will do.
  const fixedPort = config.oauth?.callbackPort;
  const listener = await startCallbackListener(fixedPort ?? previousPort(store, name, config.url), fixedPort !== undefined);
  let browserOpened = false;
  let asked = false;
  const provider = new McpOAuthProvider(name, config.url, store, {
    kind: 'login',
    redirectUrl: listener.redirectUrl,
    onAuthorizationUrl: (url) => {
      // The page's address is the authorization server's (so the MCP server's) to name: whoever prints it for a
      // person — `toolgate mcp login`, the sign-in tool — gets a plain http(s) URL or nothing (an smb: share, a
      // file: path or a protocol handler would be one click away in a terminal).
      const shown = showableUrl(url.href);
      if (shown === undefined) throw new McpLoginError(`MCP server "${name}" gave an authorization address that is not a plain http(s) URL; it was refused unseen`);
      asked = true;
      options.onAuthorizationUrl?.(shown);
      if (options.openBrowser !== false) browserOpened = openBrowser(shown, options.env ?? process.env);
    },
  }, config.oauth);
  const client = new Client({ name: 'toolgate', version: TOOLGATE_VERSION });
  const transport = createRemoteTransport(config, provider);
  try {
    try {
      await client.connect(transport);
      // Connected without being asked for a token: there is nothing to log in to.
      return { status: 'not-required', tools: await countTools(client), browserOpened };
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !asked) {
        throw new McpLoginError(`MCP server "${name}" (${config.url}): the login could not start: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const code = await listener.waitForCode(provider.state(), options.signal, options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS);
    await transport.finishAuth(code);
  } finally {
    listener.close();
    await client.close().catch(() => {});
  }
  // The tokens as a session will use them: a fresh connection in connect mode.
  const check = new Client({ name: 'toolgate', version: TOOLGATE_VERSION });
  try {
    await check.connect(createRemoteTransport(config, new McpOAuthProvider(name, config.url, store, { kind: 'connect' }, config.oauth)));
    return { status: 'logged-in', tools: await countTools(check), browserOpened };
  } catch (error) {
    throw new McpLoginError(`MCP server "${name}": logged in, but the server refused the new token: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await check.close().catch(() => {});
  }
}

async function countTools(client: Client): Promise<number> {
  if (!client.getServerCapabilities()?.tools) return 0;
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    n += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor);
  return n;
}

/** The port of the redirect an earlier login registered, so the registration can be used again. */
function previousPort(store: McpOAuthStore, name: string, url: string): number | undefined {
  const uris = (store.read(name, url).client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  if (!Array.isArray(uris) || typeof uris[0] !== 'string') return undefined;
  try {
    const u = new URL(uris[0]);
    return u.hostname === '127.0.0.1' && u.port !== '' ? Number(u.port) : undefined;
  } catch {
    return undefined;
  }
}

interface CallbackListener {
  readonly redirectUrl: string;
  waitForCode(expectedState: string, signal: AbortSignal | undefined, timeoutMs: number): Promise<string>;
  close(): void;
}

/** A one-shot HTTP listener on 127.0.0.1 for `GET /callback?code=…&state=…`. */
async function startCallbackListener(preferredPort: number | undefined, only = false): Promise<CallbackListener> {
  let deliver: ((query: URLSearchParams) => string) | undefined;
  const early: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const problem = deliver ? deliver(url.searchParams) : (early.push(url.searchParams), '');
    res.writeHead(problem ? 400 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(problem ? `Login failed: ${problem}` : 'toolgate: login complete. You can close this window.'));
  });
  const port = await listen(server, preferredPort).catch((error: unknown) => {
    if (only) throw new McpLoginError(`the OAuth callback port ${preferredPort} (oauth.callbackPort) is not free: ${error instanceof Error ? error.message : String(error)}`);
    return listen(server, 0);
  });
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    waitForCode: (expectedState, signal, timeoutMs) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => finish(new McpLoginError(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
        const onAbort = () => finish(new McpLoginError('the login was cancelled'));
        signal?.addEventListener('abort', onAbort, { once: true });
        function finish(outcome: Error | string): void {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          deliver = () => 'this login is already over';
          if (typeof outcome === 'string') resolve(outcome);
          else reject(outcome);
        }
        deliver = (query) => {
          // A redirect without this login's state did not come from this login: refuse it, and the login with it. Asked
          // before anything else: an error answer carries the state too (RFC 6749 §4.1.2.1), and without this order
          // any page the browser opens could end the login with words of its own put in the server's mouth.
          if (query.get('state') !== expectedState) {
            finish(new McpLoginError('the redirect did not carry this login\'s state (refused)'));
            return 'state mismatch';
          }
          const error = query.get('error');
          if (error) {
            const description = query.get('error_description');
            const why = `the authorization server answered "${error}"${description ? `: ${description}` : ''}`;
            finish(new McpLoginError(why));
            return why;
          }
          const code = query.get('code');
          if (!code) {
            finish(new McpLoginError('the redirect carried no authorization code'));
            return 'no code';
          }
          finish(code);
          return '';
        };
        if (signal?.aborted) onAbort();
        for (const q of early.splice(0)) deliver?.(q);
      }),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function listen(server: http.Server, port: number | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port ?? 0, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function page(text: string): string {
  const escaped = text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><meta charset="utf-8"><title>toolgate</title><p>${escaped}</p>\n`;
}

/**
 * Starts the desktop's browser on `url` when there is a desktop: `open` on macOS, `xdg-open` where a display is set.
 * Only http(s) URLs (the URL comes from the server's metadata). Never throws; false when nothing was started.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!/^https?:\/\//i.test(url)) return false;
  let command: string;
  if (process.platform === 'darwin') command = 'open';
  else if (process.platform === 'win32') return false;
  else if (env.DISPLAY || env.WAYLAND_DISPLAY) command = 'xdg-open';
  else return false;
  try {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore', env });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
