/**
 * One MCP server, seen from toolgate: connects on first use (within `MCP_TIMEOUT`), remembers its tool list until the
 * server says `tools/list_changed`, calls tools with a timer that progress resets (`MCP_TOOL_TIMEOUT`) and that an
 * abort cancels (`notifications/cancelled`), and — when a stdio server dies — reports it and starts it again on the
 * next use. Elicitation requests (form and URL modes) go to a handler the owner gives (headless: declined, as Claude
 * Code's `-p` and Agent SDK without `onElicitation` do); `roots/list` is answered with the session's working folders
 * only (never the server's own `cwd`, never anything else), and a change of them is announced.
 */
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitResult,
  type Progress,
  type ReadResourceResult,
  type Resource,
  type Tool as McpToolDefinition,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpRemoteServerConfig, McpServerConfig } from './config.js';
import { McpNeedsLoginError, McpOAuthProvider, needsLoginMessage } from './oauth-provider.js';
import type { McpOAuthStore } from './oauth-store.js';
import { elicitationOf, rootsOf } from './elicitation-url.js';
import { guardedOAuthFetch } from './oauth-fetch.js';
import { createLinkedAbortController } from '../tool/tool-use-context.js';
import { TOOLGATE_VERSION } from '../tool/version.js';

/** `needs-login`: an HTTP/SSE server asked for OAuth and no usable token is stored (`toolgate mcp login NAME`). */
export type McpConnectionState = 'idle' | 'connecting' | 'connected' | 'failed' | 'needs-login' | 'closed';

/** Claude Code's defaults: 30 s to connect; a tool call may run for a very long time (about 27.8 hours). */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 100_000_000;

export interface McpElicitationRequest {
  readonly serverName: string;
  readonly message: string;
  /** `url`: the server asks the person to open `url` (never opened for them: shown). */
  readonly mode: 'form' | 'url';
  readonly requestedSchema?: Record<string, unknown>;
  /** URL mode: the page to show, an http(s) URL without control characters (elicitation-url.ts checks it). */
  readonly url?: string;
  readonly elicitationId?: string;
  readonly signal: AbortSignal;
}

export interface McpConnectionOptions {
  readonly name: string;
  readonly config: McpServerConfig;
  /** Where a stdio server starts (its config's `cwd` wins). */
  readonly cwd: string;
  /** The environment a stdio server inherits before its own `env` (default: process.env). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  readonly connectTimeoutMs?: number;
  readonly toolTimeoutMs?: number;
  /** The folders `roots/list` answers with (absolute paths): the session's working folders. Default: `cwd`. */
  readonly roots?: () => readonly string[];
  /** Answers `elicitation/create`; absent → declined. */
  readonly onElicitation?: (request: McpElicitationRequest) => Promise<ElicitResult>;
  /** The server changed its tool list (or died): the owner refreshes the pool between turns. */
  readonly onToolsChanged?: (serverName: string) => void;
  /**
   * Where OAuth tokens of HTTP/SSE servers are kept. Given: a server that answers 401 with an OAuth challenge gets the
   * stored token (refreshed as needed), or is reported as needing a login. Absent: no OAuth.
   */
  readonly oauthStore?: McpOAuthStore;
}

/** An MCP server could not be started, reached or initialised. */
export class McpConnectionError extends Error {
  override readonly name = 'McpConnectionError';
}

const STDERR_TAIL = 4_000;

export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  state: McpConnectionState = 'idle';
  /** Why the last connection failed or ended, for reports. */
  lastError?: string;
  serverVersion?: { readonly name: string; readonly version: string };
  instructions?: string;
  /** Times the server was (re)started. */
  connectCount = 0;

  private client?: Client;
  private connecting?: Promise<Client>;
  private tools?: readonly McpToolDefinition[];
  private stderrTail = '';
  private closingOnPurpose = false;
  private oauth?: McpOAuthProvider;
  /** The token file's content when the server last asked for a login: a new login there is worth a new attempt. */
  private loginSeen?: string;

  constructor(private readonly options: McpConnectionOptions) {
    this.name = options.name;
    this.config = options.config;
  }

  get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS;
  }

  get toolTimeoutMs(): number {
    return this.options.toolTimeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS;
  }

  get capabilities(): ReturnType<Client['getServerCapabilities']> {
    return this.client?.getServerCapabilities();
  }

  /** Connected client; connects (or reconnects after a crash) when needed. One attempt at a time. */
  ensureConnected(): Promise<Client> {
    if (this.state === 'connected' && this.client) return Promise.resolve(this.client);
    if (this.state === 'closed') return Promise.reject(new McpConnectionError(`MCP server "${this.name}" is closed`));
    // Asking again without a new login would only be refused again (and cost the server a request per turn).
    if (this.state === 'needs-login' && this.tokenSnapshot() === this.loginSeen) return Promise.reject(new McpConnectionError(this.lastError ?? needsLoginMessage(this.name)));
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    this.state = 'connecting';
    this.tools = undefined;
    this.stderrTail = '';
    const client = new Client(
      { name: 'toolgate', version: TOOLGATE_VERSION },
      // applyDefaults: a form accepted without a field gets the schema's default for it (the SDK fills it in).
      { capabilities: { elicitation: { form: { applyDefaults: true }, url: {} }, roots: { listChanged: true } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request, extra): Promise<ElicitResult> => {
      const elicitation = elicitationOf(this.name, request.params, extra.signal);
      // A URL that is not a plain http(s) page is refused without showing it (elicitation-url.ts).
      if (!elicitation || !this.options.onElicitation) return { action: 'decline' };
      try {
        const answer = await this.options.onElicitation(elicitation);
        // URL mode carries no content back: the person's answer is only whether they went to the page.
        return elicitation.mode === 'url' ? { action: answer.action } : answer;
      } catch {
        return { action: 'cancel' };
      }
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: rootsOf(this.options.roots?.() ?? [this.options.cwd]) }));
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.tools = undefined;
      this.options.onToolsChanged?.(this.name);
    });
    const transport = this.createTransport();
    const timeoutMs = this.connectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(transport),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new McpConnectionError(`MCP server "${this.name}" did not finish connecting within ${timeoutMs} ms (MCP_TIMEOUT=${timeoutMs})`)),
            timeoutMs,
          );
        }),
      ]);
    } catch (error) {
      clearTimeout(timer);
      this.closingOnPurpose = true;
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      this.closingOnPurpose = false;
      if (this.isLoginFailure(error)) {
        if ((this.state as McpConnectionState) !== 'closed') this.state = 'needs-login';
        this.loginSeen = this.tokenSnapshot();
        this.lastError = needsLoginMessage(this.name);
        throw new McpConnectionError(this.lastError);
      }
      if ((this.state as McpConnectionState) !== 'closed') this.state = 'failed';
      this.lastError = this.describeFailure(error);
      throw new McpConnectionError(this.lastError);
    }
    clearTimeout(timer);
    if ((this.state as McpConnectionState) === 'closed') {
      // close() came while the server was starting: do not leave it running.
      await client.close().catch(() => {});
      throw new McpConnectionError(`MCP server "${this.name}" is closed`);
    }
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.tools = undefined;
      if (this.closingOnPurpose || this.state === 'closed') return;
      this.state = 'failed';
      const tail = this.stderrTail.trim();
      this.lastError = `MCP server "${this.name}" ${this.config.type === 'stdio' ? 'exited' : 'closed the connection'}${tail ? `: ${lastLines(tail)}` : ''}`;
      this.options.onToolsChanged?.(this.name);
    };
    this.client = client;
    this.state = 'connected';
    this.lastError = undefined;
    this.connectCount++;
    const v = client.getServerVersion();
    if (v) this.serverVersion = { name: v.name, version: v.version };
    this.instructions = client.getInstructions();
    return client;
  }

  private createTransport(): Transport {
    const c = this.config;
    if (c.type === 'stdio') {
      const base = this.options.baseEnv ?? process.env;
      const env: Record<string, string> = {};
      // As Claude Code: a server does not inherit the session's OpenTelemetry exporter settings (its own `env` may set them).
      for (const [k, v] of Object.entries(base)) if (typeof v === 'string' && !k.startsWith('OTEL_')) env[k] = v;
      Object.assign(env, c.env);
      const transport = new StdioClientTransport({ command: c.command, args: [...c.args], env, cwd: c.cwd ?? this.options.cwd, stderr: 'pipe' });
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      return transport;
    }
    if (c.type === 'sdk') {
      // In this process: a fresh server object per connection, joined by a linked pair of in-memory transports.
      const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
      void c.createServer().connect(serverEnd).catch((error: unknown) => {
        this.lastError = `MCP server "${this.name}" (in process) could not start: ${error instanceof Error ? error.message : String(error)}`;
      });
      return clientEnd;
    }
    // A configured Authorization header is the user's own credential: OAuth stays out of its way.
    const store = this.options.oauthStore;
    this.oauth = store && !hasAuthorizationHeader(c) ? new McpOAuthProvider(this.name, c.url, store, { kind: 'connect' }, c.oauth) : undefined;
    return createRemoteTransport(c, this.oauth);
  }

  /** The server asked for OAuth and nothing stored could answer it. */
  private isLoginFailure(error: unknown): boolean {
    return error instanceof McpNeedsLoginError || (this.oauth !== undefined && (error instanceof UnauthorizedError || this.oauth.needsLogin));
  }

  private tokenSnapshot(): string | undefined {
    const c = this.config;
    if ((c.type !== 'http' && c.type !== 'sse') || !this.options.oauthStore) return undefined;
    return this.options.oauthStore.read(this.name, c.url).updatedAt;
  }

  /** Whether a token is stored for this server (HTTP/SSE with a token store only). */
  get hasStoredLogin(): boolean {
    const c = this.config;
    return (c.type === 'http' || c.type === 'sse') && this.options.oauthStore?.read(this.name, c.url).tokens !== undefined;
  }

  /** After a login (or a logout): the next use connects afresh with what the token store now holds. */
  async reset(): Promise<void> {
    if (this.state === 'closed') return;
    const client = this.client;
    this.client = undefined;
    this.tools = undefined;
    this.closingOnPurpose = true;
    await client?.close().catch(() => {});
    this.closingOnPurpose = false;
    this.state = 'idle';
    this.lastError = undefined;
  }

  private describeFailure(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    const tail = this.stderrTail.trim();
    const prefix = message.includes(`"${this.name}"`) ? message : `MCP server "${this.name}" failed to connect: ${message}`;
    return tail ? `${prefix}\n${lastLines(tail)}` : prefix;
  }

  /** The session's working folders changed: a connected server is told (`notifications/roots/list_changed`). */
  async rootsChanged(): Promise<void> {
    if (this.state !== 'connected' || !this.client) return;
    await this.client.sendRootsListChanged().catch(() => {});
  }

  /** The server's tools, from memory until the server announces a change (or reconnects). */
  async listTools(): Promise<readonly McpToolDefinition[]> {
    const client = await this.ensureConnected();
    if (this.tools) return this.tools;
    if (!client.getServerCapabilities()?.tools) {
      this.tools = [];
      return this.tools;
    }
    const out: McpToolDefinition[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.connectTimeoutMs });
        out.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
    } catch (error) {
      // A server may let `initialize` through and ask for OAuth only here.
      if (this.isLoginFailure(error)) throw await this.loginLost('the tool list was not read');
      throw error;
    }
    this.tools = out;
    return out;
  }

  /** The token was refused (or a wider grant is wanted) and nothing here can fix it: the next use waits for a login. */
  private async loginLost(what: string): Promise<McpConnectionError> {
    this.state = 'needs-login';
    this.loginSeen = this.tokenSnapshot();
    this.lastError = needsLoginMessage(this.name);
    const client = this.client;
    this.client = undefined;
    this.closingOnPurpose = true;
    await client?.close().catch(() => {});
    this.closingOnPurpose = false;
    this.options.onToolsChanged?.(this.name);
    return new McpConnectionError(`${this.lastError}; ${what}`);
  }

  /**
   * One call. Progress notifications reset the timer; an abort sends `notifications/cancelled` and rejects with the
   * signal's reason; a timeout rejects with an error naming the effective timeout.
   */
  async callTool(
    toolName: string,
    args: Record<string, unknown>,
    options: { readonly signal?: AbortSignal; readonly onProgress?: (progress: Progress) => void } = {},
  ): Promise<CallToolResult> {
    const client = await this.ensureConnected();
    // The SDK checks structuredContent with validators it builds while listing: after a restart or a list change,
    // list first so the check is never skipped.
    if (!this.tools) await this.listTools();
    const timeout = this.toolTimeoutMs;
    // The SDK listens on the signal it is given and never lets go: a caller's long-lived signal (a context reused
    // across calls) would gather one listener per call. It gets a signal of this call's own instead.
    const { controller: local, unlink } = options.signal ? createLinkedAbortController(options.signal) : { controller: new AbortController(), unlink: () => {} };
    try {
      const result = await client.callTool({ name: toolName, arguments: args }, undefined, {
        signal: local.signal,
        timeout,
        resetTimeoutOnProgress: true,
        onprogress: (p) => options.onProgress?.(p),
      });
      return result as CallToolResult;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new McpConnectionError(
          `MCP server "${this.name}" tool "${toolName}" timed out: no result and no progress for ${timeout} ms (MCP_TOOL_TIMEOUT=${timeout})`,
        );
      }
      if (this.isLoginFailure(error)) throw await this.loginLost(`the call to "${toolName}" did not run`);
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        throw new McpConnectionError(`${this.lastError ?? `MCP server "${this.name}" closed the connection`} during the call to "${toolName}"; it will be restarted on the next use`);
      }
      throw error;
    } finally {
      unlink();
    }
  }

  async listResources(signal?: AbortSignal): Promise<readonly Resource[]> {
    const client = await this.ensureConnected();
    if (!client.getServerCapabilities()?.resources) return [];
    const out: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : undefined, { signal, timeout: this.toolTimeoutMs });
      out.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const client = await this.ensureConnected();
    return client.readResource({ uri }, { signal, timeout: this.toolTimeoutMs });
  }

  /** Stops the server (kills a stdio process). Idempotent. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => {});
    await this.connecting?.catch(() => {});
  }
}

/** A transport for an HTTP or SSE server, with the OAuth provider when there is one. */
export function createRemoteTransport(config: McpRemoteServerConfig, authProvider?: OAuthClientProvider): StreamableHTTPClientTransport | SSEClientTransport {
  const requestInit: RequestInit = { headers: { ...config.headers } };
  // Whatever the server's metadata names is requested through the guard (oauth-fetch.ts), the server itself included.
  const guarded = authProvider ? guardedOAuthFetch(config.url) : undefined;
  const watch = authProvider instanceof McpOAuthProvider ? { fetch: scopeWatchingFetch(authProvider, guarded!) } : guarded ? { fetch: guarded } : {};
  const options = { requestInit, ...(authProvider ? { authProvider } : {}), ...watch };
  if (config.type === 'sse') return new SSEClientTransport(new URL(config.url), options);
  return new StreamableHTTPClientTransport(new URL(config.url), options);
}

/**
 * fetch, telling the OAuth provider when the server answers `403` with `error="insufficient_scope"` (RFC 6750): the
 * scope it names is kept for the next login (a step-up), before the SDK's own handling of the answer goes on.
 */
function scopeWatchingFetch(provider: McpOAuthProvider, inner: (url: string | URL, init?: RequestInit) => Promise<Response>): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await inner(url, init);
    if (response.status === 403) {
      const challenge = response.headers.get('www-authenticate') ?? '';
      if (/\berror="?insufficient_scope\b/i.test(challenge)) await provider.insufficientScope(/\bscope="([^"]*)"/i.exec(challenge)?.[1]);
    }
    return response;
  };
}

function hasAuthorizationHeader(config: McpRemoteServerConfig): boolean {
  return Object.keys(config.headers).some((k) => k.toLowerCase() === 'authorization');
}

function lastLines(text: string, n = 5): string {
  return text.split('\n').slice(-n).join('\n');
}
