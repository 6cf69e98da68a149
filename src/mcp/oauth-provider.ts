/**
 * toolgate's side of the MCP SDK's client OAuth (`OAuthClientProvider`): the SDK does discovery (protected resource
 * and authorization server metadata), dynamic client registration, PKCE, the code exchange and refresh; this class
 * only keeps what it produces in the token store and decides what may happen without a person.
 *
 * Two modes:
 * - `connect` (a session using a server): stored tokens are sent, refreshed shortly before they expire (and by the
 *   SDK once on a 401); nothing is registered and no browser is opened — a server that needs a login is reported as
 *   such (`needsLogin`) and its connection fails with `McpNeedsLoginError`.
 * - `login` (`toolgate mcp login`, `/mcp login`): stored tokens are not used, the client registers when it must (a
 *   registration made for another loopback port is made again), and the authorization URL goes to `onAuthorizationUrl`.
 *
 * A server entry's `oauth` block changes three things: a pre-registered `clientId` (and `clientSecret`, or a
 * `privateKey` it signs `private_key_jwt` assertions with) is used instead
 * of registering; `grantType: "client_credentials"` makes the client fetch its own tokens in either mode (there is no
 * person and no redirect); and — any client — a server that answers `403 insufficient_scope` (the connection reports it
 * through `insufficientScope`) needs a new login, which asks for the wider scope as well (a step-up).
 */
import { auth, type AddClientAuthentication, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthClientConfig } from './config.js';
import { guardedOAuthFetch } from './oauth-fetch.js';
import { expiryOf, MCP_OAUTH_SECRET_LABEL, type McpOAuthRecord, type McpOAuthStore, type StoredTokens } from './oauth-store.js';
import { registerSecretValues } from '../execution/redaction.js';
import { randomBytes } from '../tool/crypto.js';

/** An access token this close to its expiry is refreshed before it is sent. */
export const REFRESH_MARGIN_MS = 60_000;

/** Where an authorization code comes back to when no login is running (never listened on: only for registration checks). */
const IDLE_REDIRECT = 'http://127.0.0.1/callback';

/** A server asked for OAuth and no usable login is stored: run `toolgate mcp login NAME` (its tools stay absent). */
export class McpNeedsLoginError extends Error {
  override readonly name = 'McpNeedsLoginError';
  constructor(readonly server: string) {
    super(needsLoginMessage(server));
  }
}

export function needsLoginMessage(server: string): string {
  return `MCP server "${server}" needs an OAuth login: run \`toolgate mcp login ${server}\` (or /mcp login ${server} in a session)`;
}

export type McpOAuthMode =
  | { readonly kind: 'connect' }
  | { readonly kind: 'login'; readonly redirectUrl: string; readonly onAuthorizationUrl: (url: URL) => void };

export class McpOAuthProvider implements OAuthClientProvider {
  /** Connect mode: the server asked for a login this provider could not give. */
  needsLogin = false;
  readonly #state = randomBytes(24).toString('base64url');
  #codeVerifier: string | undefined;
  /** Login mode: the tokens this login obtained (none before the code exchange). */
  #loginTokens: StoredTokens | undefined;
  /** What discovery found in this process (a session does not write a file for a server it has no login for). */
  #discovery: OAuthDiscoveryState | undefined;
  #refreshing: Promise<void> | undefined;
  #inRefresh = false;

  constructor(
    readonly server: string,
    readonly url: string,
    private readonly store: McpOAuthStore,
    readonly mode: McpOAuthMode = { kind: 'connect' },
    private readonly client: McpOAuthClientConfig = {},
  ) {
    for (const value of [client.clientSecret, client.privateKey]) if (value) registerSecretValues([{ label: MCP_OAUTH_SECRET_LABEL, value, named: true }]);
  }

  /**
   * `private_key_jwt` (a configured `privateKey`): every token request carries a short-lived JWT signed with the key
   * (issuer and subject the client id, audience the authorization server), never the key itself; undefined for a
   * client with a secret or none (the SDK's own client_secret_basic/post/none).
   */
  get addClientAuthentication(): AddClientAuthentication | undefined {
    const { clientId, privateKey } = this.client;
    if (clientId === undefined || privateKey === undefined) return undefined;
    return createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey, alg: this.client.signingAlgorithm ?? 'RS256' });
  }

  /** Machine to machine: the client credentials grant, no person, no redirect. */
  get clientCredentials(): boolean {
    return this.client.grantType === 'client_credentials';
  }

  /** The client_credentials grant's token request; undefined (the SDK's authorization code exchange) for any other client. */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.clientCredentials) return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    const wanted = joinScopes(scope, this.record().scope);
    if (wanted) params.set('scope', wanted);
    return params;
  }

  /**
   * The server answered `403 insufficient_scope` asking for `scope`: kept, so the next login asks for it as well. A
   * session cannot widen its own grant (that needs the person); a client-credentials client gets a new token itself.
   */
  async insufficientScope(scope: string | undefined): Promise<void> {
    const wanted = joinScopes(this.record().scope, scope);
    await this.store.update(this.server, this.url, (r) => ({ ...r, ...(wanted ? { scope: wanted } : {}) }));
    if (this.mode.kind === 'connect' && !this.clientCredentials) this.needsLogin = true;
  }

  private record(): McpOAuthRecord {
    return this.store.read(this.server, this.url);
  }

  get redirectUrl(): string | undefined {
    // No redirect: the SDK then takes the token itself (prepareTokenRequest) instead of sending anyone to a page.
    if (this.clientCredentials) return undefined;
    if (this.mode.kind === 'login') return this.mode.redirectUrl;
    const registered = (this.record().client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    return Array.isArray(registered) && typeof registered[0] === 'string' ? registered[0] : IDLE_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'toolgate',
      redirect_uris: [this.redirectUrl ?? IDLE_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client: PKCE instead of a secret (nothing on a user's machine keeps a secret).
      token_endpoint_auth_method: 'none',
    };
  }

  /** The `state` sent with the authorization request; the loopback listener checks it on the way back. */
  state(): string {
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.record().client;
    if (this.client.clientId !== undefined) {
      // Pre-registered: the configured id (and secret), stamped with the issuer the SDK bound it to once it was used.
      const issuer = (client as { client_id?: unknown; issuer?: unknown } | undefined)?.client_id === this.client.clientId ? (client as { issuer?: unknown }).issuer : undefined;
      if (this.mode.kind === 'connect' && this.needsLogin && !this.clientCredentials) throw new McpNeedsLoginError(this.server);
      return { client_id: this.client.clientId, ...(this.client.clientSecret ? { client_secret: this.client.clientSecret } : {}), ...(typeof issuer === 'string' ? { issuer } : {}) } as OAuthClientInformationMixed;
    }
    if (this.mode.kind === 'connect') {
      // A step-up asked for (insufficientScope): only a login may widen the grant, not a refresh of the narrow one.
      if (this.needsLogin) throw new McpNeedsLoginError(this.server);
      if (client) return client;
      // Registering needs a redirect that someone listens on: only a login may do it. (A server that publishes no OAuth
      // metadata at all is asked too: the 2025-03-26 spec's default endpoints — /authorize, /token, /register — may be
      // there; if they are not, the login says so, and "headers" is the way to give it another credential.)
      throw new McpNeedsLoginError(this.server);
    }
    const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    // Registered for another loopback port: register again rather than be refused at the authorization endpoint.
    if (client && Array.isArray(uris) && !uris.includes(this.mode.redirectUrl)) return undefined;
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    // A pre-registered secret stays in the configuration it came from: only the id and its issuer are kept.
    const { client_secret: _secret, ...kept } = client as OAuthClientInformationMixed & { client_secret?: string };
    await this.store.update(this.server, this.url, (r) => ({ ...r, client: this.client.clientId !== undefined ? (kept as OAuthClientInformationMixed) : client }));
  }

  /**
   * The tokens to send. Login mode sends none (a login always asks the person). Connect mode refreshes an access token
   * about to expire first, once for all the requests waiting on it.
   */
  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.mode.kind === 'login' && !this.clientCredentials) return this.#loginTokens;
    const tokens = this.record().tokens;
    if (!tokens || this.#inRefresh) return tokens;
    if (tokens.refresh_token && tokens.expires_at !== undefined && tokens.expires_at - Date.now() < REFRESH_MARGIN_MS) {
      this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
      await this.#refreshing;
      return this.record().tokens;
    }
    return tokens;
  }

  /** The SDK's `auth()` with a refresh token on file refreshes it; a failure leaves the old token to meet its 401. */
  async #refresh(): Promise<void> {
    this.#inRefresh = true;
    try {
      await auth(this, { serverUrl: this.url, fetchFn: guardedOAuthFetch(this.url) });
    } catch {
      // Offline, or the authorization server is down: the request goes out with what there is.
    } finally {
      this.#inRefresh = false;
    }
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expiresAt = expiryOf(tokens);
    const stored: StoredTokens = { ...tokens, ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}) };
    await this.store.update(this.server, this.url, (r) => ({ ...r, tokens: stored }));
    this.needsLogin = false;
    if (this.mode.kind === 'login') this.#loginTokens = stored;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (this.mode.kind !== 'login') {
      this.needsLogin = true;
      return;
    }
    // A step-up the server asked for earlier: this login asks for that scope too, not only what the 401 named.
    const wanted = joinScopes(authorizationUrl.searchParams.get('scope') ?? undefined, this.record().scope);
    if (wanted) authorizationUrl.searchParams.set('scope', wanted);
    this.mode.onAuthorizationUrl(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    // Kept in memory: the process that started the login is the one the code comes back to.
    if (this.mode.kind === 'login') this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#codeVerifier === undefined) throw new Error(`no login is in progress for MCP server "${this.server}"`);
    return this.#codeVerifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.#codeVerifier = undefined;
      return;
    }
    if (scope === 'tokens' || scope === 'all') this.#loginTokens = undefined;
    if (scope === 'discovery' || scope === 'all') this.#discovery = undefined;
    // A login that fails its code exchange must not cost the person the login they had.
    if (scope === 'tokens' && this.mode.kind === 'login') return;
    const r = this.record();
    const keep = {
      ...(scope !== 'client' && scope !== 'all' && r.client ? { client: r.client } : {}),
      ...(scope !== 'tokens' && scope !== 'all' && r.tokens ? { tokens: r.tokens } : {}),
      ...(scope !== 'discovery' && scope !== 'all' && r.discovery ? { discovery: r.discovery } : {}),
      ...(scope !== 'all' && r.scope ? { scope: r.scope } : {}),
    };
    if (Object.keys(keep).length === 0) this.store.remove(this.server, this.url);
    else await this.store.update(this.server, this.url, (current) => ({ server: current.server, url: current.url, ...keep }));
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    this.#discovery = discovery;
    if (this.mode.kind === 'login' || this.record().client) await this.store.update(this.server, this.url, (r) => ({ ...r, discovery }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery ?? this.record().discovery;
  }
}

/** Two space-separated scope lists as one, each scope once (undefined when both are empty). */
export function joinScopes(a: string | undefined, b: string | undefined): string | undefined {
  const all = [...new Set([...(a ?? '').split(' '), ...(b ?? '').split(' ')].filter((x) => x !== ''))];
  return all.length > 0 ? all.join(' ') : undefined;
}
