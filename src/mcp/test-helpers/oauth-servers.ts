/**
 * An OAuth-protected MCP server and its authorization server, on 127.0.0.1, for tests: the authorization server is
 * the MCP SDK's `mcpAuthRouter` over an in-memory `OAuthServerProvider` that approves every authorization request
 * (the test plays the browser: it GETs the authorization URL and follows the redirect to toolgate's listener); the MCP
 * server publishes its protected-resource metadata and puts `requireBearerAuth` in front of a streamable HTTP endpoint
 * (`/mcp`) and an SSE one (`/sse`). The provider counts what happened and can revoke tokens on demand.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { createOAuthMetadata, mcpAuthMetadataRouter, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

type Handler = (req: http.IncomingMessage & { auth?: AuthInfo }, res: http.ServerResponse, next?: () => void) => unknown;
interface ExpressApp {
  (req: http.IncomingMessage, res: http.ServerResponse): void;
  use(...handlers: unknown[]): ExpressApp;
  get(path: string, ...handlers: Handler[]): ExpressApp;
  post(path: string, ...handlers: Handler[]): ExpressApp;
  all(path: string, ...handlers: Handler[]): ExpressApp;
}
// express ships with the MCP SDK (its server-side auth is built on it); no type package is installed for it.
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

interface Grant {
  readonly clientId: string;
  readonly expiresAt: number;
  revoked: boolean;
}

/** In-memory authorization server logic: registers anyone, approves every request, issues short opaque tokens. */
export class TestOAuthProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { clientId: string; challenge: string; redirectUri: string }>();
  readonly access = new Map<string, Grant>();
  readonly refresh = new Map<string, Grant>();
  /** Every token ever issued, to look for in transcripts and results. */
  readonly issued: string[] = [];
  readonly counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, rejected: 0 };

  constructor(public accessLifetimeS = 3600) {}

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => this.clients.get(id),
      registerClient: (client) => {
        this.counts.registrations++;
        const full = { ...client, client_id: `client-${randomBytes(6).toString('hex')}`, client_id_issued_at: Math.floor(Date.now() / 1000) };
        this.clients.set(full.client_id, full);
        return full;
      },
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: { redirect(status: number, url: string): void }): Promise<void> {
    this.counts.authorizations++;
    const code = `code-${randomBytes(12).toString('hex')}`;
    this.codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge, redirectUri: params.redirectUri });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(302, target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code);
    if (!entry) throw new InvalidGrantError('unknown authorization code');
    return entry.challenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.codes.get(code);
    if (!entry || entry.clientId !== client.client_id) throw new InvalidGrantError('unknown authorization code');
    this.codes.delete(code);
    this.counts.codeExchanges++;
    return this.issue(client.client_id);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.refresh.get(refreshToken);
    if (!grant || grant.revoked || grant.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    grant.revoked = true; // rotated
    this.counts.refreshes++;
    return this.issue(client.client_id);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.access.get(token);
    if (!grant || grant.revoked || grant.expiresAt * 1000 < Date.now()) {
      this.counts.rejected++;
      throw new InvalidTokenError('unknown, revoked or expired token');
    }
    return { token, clientId: grant.clientId, scopes: ['mcp'], expiresAt: grant.expiresAt };
  }

  /** The server stops accepting the access tokens it issued (their refresh tokens still work). */
  revokeAccessTokens(): void {
    for (const grant of this.access.values()) grant.revoked = true;
  }

  /** Nothing issued so far works any more: only a new login helps. */
  revokeEverything(): void {
    this.revokeAccessTokens();
    for (const grant of this.refresh.values()) grant.revoked = true;
  }

  private issue(clientId: string): OAuthTokens {
    const accessToken = `at-${randomBytes(16).toString('hex')}`;
    const refreshToken = `rt-${randomBytes(16).toString('hex')}`;
    const expiresAt = Math.floor(Date.now() / 1000) + this.accessLifetimeS;
    this.access.set(accessToken, { clientId, expiresAt, revoked: false });
    this.refresh.set(refreshToken, { clientId, expiresAt: expiresAt + 86_400, revoked: false });
    this.issued.push(accessToken, refreshToken);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.accessLifetimeS, refresh_token: refreshToken };
  }
}

export interface OAuthTestServers {
  readonly provider: TestOAuthProvider;
  readonly issuerUrl: string;
  /** Streamable HTTP endpoint. */
  readonly mcpUrl: string;
  readonly sseUrl: string;
  /** Requests the MCP server answered with 401. */
  readonly unauthorized: () => number;
  close(): Promise<void>;
}

/** A tiny MCP server: `echo`, and `show_auth`, which repeats the Authorization header it received (a leaky server). */
function mcpServer(authorization: string | undefined): Server {
  const server = new Server({ name: 'oauth-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      { name: 'show_auth', description: 'Says which credential the request carried', inputSchema: { type: 'object', properties: {} } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'echo') return { content: [{ type: 'text', text: `echo: ${String(request.params.arguments?.text)}` }] };
    return { content: [{ type: 'text', text: `the request carried "${authorization ?? 'nothing'}"` }] };
  });
  return server;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** `authorizationEndpoint`: a hostile authorization server that publishes this address as its authorization page. */
export async function startOAuthTestServers(options: { readonly accessLifetimeS?: number; readonly authorizationEndpoint?: string } = {}): Promise<OAuthTestServers> {
  const provider = new TestOAuthProvider(options.accessLifetimeS);
  const asServer = http.createServer();
  const rsServer = http.createServer();
  const issuer = await listen(asServer);
  const origin = await listen(rsServer);
  const issuerUrl = new URL(`${issuer}/`);

  const as = express();
  const hostile = options.authorizationEndpoint;
  if (hostile !== undefined) {
    as.get('/.well-known/oauth-authorization-server', (_req, res) => {
      const metadata = { ...createOAuthMetadata({ provider, issuerUrl, scopesSupported: ['mcp'] }), authorization_endpoint: hostile };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata));
    });
  }
  as.use(mcpAuthRouter({ provider, issuerUrl, scopesSupported: ['mcp'] }));
  asServer.on('request', as);

  let unauthorized = 0;
  const rs = express();
  // The whole origin is one protected resource, so /mcp and /sse share it.
  rs.use(mcpAuthMetadataRouter({ oauthMetadata: createOAuthMetadata({ provider, issuerUrl, scopesSupported: ['mcp'] }), resourceServerUrl: new URL(`${origin}/`), scopesSupported: ['mcp'] }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource` }) as unknown as Handler;
  const counted: Handler = (req, res, next) => {
    res.on('finish', () => {
      if (res.statusCode === 401) unauthorized++;
    });
    return bearer(req, res, next);
  };
  rs.post('/mcp', counted, async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = mcpServer(req.headers.authorization);
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  rs.all('/mcp', counted, (_req, res) => {
    res.writeHead(405).end();
  });
  const sse = new Map<string, SSEServerTransport>();
  rs.get('/sse', counted, async (req, res) => {
    const transport = new SSEServerTransport('/messages', res);
    sse.set(transport.sessionId, transport);
    res.on('close', () => sse.delete(transport.sessionId));
    await mcpServer(req.headers.authorization).connect(transport);
  });
  rs.post('/messages', counted, async (req, res) => {
    const transport = sse.get(new URL(req.url ?? '/', origin).searchParams.get('sessionId') ?? '');
    if (!transport) res.writeHead(404).end('no such session');
    else await transport.handlePostMessage(req, res);
  });
  rsServer.on('request', rs);

  return {
    provider,
    issuerUrl: issuerUrl.href,
    mcpUrl: `${origin}/mcp`,
    sseUrl: `${origin}/sse`,
    unauthorized: () => unauthorized,
    close: async () => {
      for (const s of [asServer, rsServer]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}

/** Plays the browser: opens the authorization URL and follows its redirects (to toolgate's loopback listener). */
export async function playBrowser(authorizationUrl: string): Promise<{ readonly status: number; readonly body: string }> {
  let url = authorizationUrl;
  for (let hop = 0; hop < 5; hop++) {
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url).href;
      continue;
    }
    return { status: response.status, body: await response.text() };
  }
  throw new Error('too many redirects');
}
