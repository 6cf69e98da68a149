/**
 * `McpClientManager`: the configured servers of one session. It is the runtime's tool provider (`toolProvider()`),
 * the resource service ListMcpResources / ReadMcpResource use (`resourceService`), and what `toolgate mcp list`
 * reports. A server that fails is reported and left out; the others carry on.
 */
import type { QuestionAnswer, QuestionRequest } from '../agent/types.js';
import type { AnyTool, Tools } from '../tool/tool.js';
import type { McpResourceContent, McpResourceInfo, McpResourceService } from '../tools/shared/mcp-resource-service.js';

export type { McpResourceContent };
import { ListMcpResourcesTool } from '../tools/list-mcp-resources/index.js';
import { ReadMcpResourceTool } from '../tools/read-mcp-resource/index.js';
import type { McpAuthLogin } from '../tools/mcp-auth/index.js';
import { createMcpAuthToolFor } from './auth-tool.js';
import { describeMcpServer, type McpServerConfig } from './config.js';
import { McpConnection, type McpElicitationRequest } from './connection.js';
import { loginMcpServer, type McpLoginOptions, type McpLoginResult } from './oauth-login.js';
import { defaultMcpOAuthDir, McpOAuthStore } from './oauth-store.js';
import type { ScopedMcpServer } from './load-config.js';
import { createMcpTool, DEFAULT_MAX_MCP_OUTPUT_TOKENS } from './mcp-tool.js';
import type { CallToolResult, ElicitResult, Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { buildMcpToolName, normalizeNameForMcp } from './names.js';

export type McpServerState = 'connected' | 'failed' | 'needs-login' | 'pending-approval' | 'rejected' | 'not-started';

/** One configured server as `McpClientManager.status()` reports it: scope, file, approval, state, its tools. */
export interface McpServerStatus {
  readonly name: string;
  readonly scope: ScopedMcpServer['scope'];
  readonly file: string;
  readonly type: ScopedMcpServer['config']['type'];
  /** How the server is reached (command line or URL; header values never shown). */
  readonly target: string;
  readonly state: McpServerState;
  readonly error?: string;
  readonly tools: readonly string[];
  /** HTTP/SSE servers: whether an OAuth login is stored, and when its access token expires (ms since the epoch). */
  readonly oauth?: { readonly loggedIn: boolean; readonly expiresAt?: number };
}

export type McpServerEvent =
  | { readonly type: 'connected'; readonly server: string; readonly restart: boolean }
  | { readonly type: 'failed'; readonly server: string; readonly error: string }
  | { readonly type: 'tools-changed'; readonly server: string };

/** The servers to manage (`loadMcpConfig().servers`), the environment and the handlers for their events. */
export interface McpClientManagerOptions {
  readonly cwd: string;
  readonly servers: ReadonlyMap<string, ScopedMcpServer>;
  /** `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT`, `MAX_MCP_OUTPUT_TOKENS`, and what stdio servers inherit (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The session's working folders, what `roots/list` answers (default: `cwd`). */
  readonly roots?: readonly string[];
  /** Elicitation requests (the runtime's question handler); absent → declined (headless). */
  readonly onQuestion?: (request: QuestionRequest) => Promise<QuestionAnswer>;
  /** Asked once per pending project server; absent → not started (headless runs need a setting to approve). */
  readonly approveProjectServer?: (server: ScopedMcpServer) => Promise<boolean>;
  /** A server's tool list changed or it died: refresh the pool before the next turn. */
  readonly onToolsChanged?: (server: string) => void;
  readonly onServerEvent?: (event: McpServerEvent) => void;
  /** OAuth logins of HTTP/SSE servers (default: `$XDG_STATE_HOME/toolgate/mcp-oauth`, from `env`). */
  readonly oauthStore?: McpOAuthStore;
}

function positiveInt(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** The MCP servers of a session as tools: give `toolProvider()` to `ToolRuntimeOptions.toolProviders`. */
export class McpClientManager {
  readonly #servers: Map<string, ScopedMcpServer>;
  /** Servers turned off for this session (`setEnabled(name, false)`): not connected, their tools not offered. */
  readonly #disabled = new Set<string>();
  private readonly connections = new Map<string, McpConnection>();
  private readonly approvals = new Map<string, boolean>();
  /** Tools per server, kept while the server's list is unchanged (same objects: stable pool, warm memos). */
  private readonly toolCache = new Map<string, { defs: readonly McpToolDefinition[]; tools: AnyTool[] }>();
  private readonly env: Readonly<Record<string, string | undefined>>;
  readonly oauthStore: McpOAuthStore;
  /** Logins waiting for a browser: ended by dispose(), so a session that ends does not wait for them. */
  private readonly logins = new Set<AbortController>();
  /** The sign-in tool of each server that needs a login (the same object while it does), and the logins it started. */
  private readonly authTools = new Map<string, AnyTool>();
  private readonly authLogins = new Map<string, McpAuthLogin>();
  private disposed = false;
  #roots: readonly string[];

  constructor(private readonly options: McpClientManagerOptions) {
    this.#servers = new Map(options.servers);
    this.#roots = options.roots ?? [options.cwd];
    this.env = options.env ?? process.env;
    this.oauthStore = options.oauthStore ?? new McpOAuthStore(defaultMcpOAuthDir(this.env as NodeJS.ProcessEnv));
  }

  /** The servers this manager runs (those given, and those added since). */
  get servers(): ReadonlyMap<string, ScopedMcpServer> {
    return this.#servers;
  }

  get connectTimeoutMs(): number | undefined {
    return positiveInt(this.env.MCP_TIMEOUT);
  }

  get toolTimeoutMs(): number | undefined {
    return positiveInt(this.env.MCP_TOOL_TIMEOUT);
  }

  get maxOutputTokens(): number {
    return positiveInt(this.env.MAX_MCP_OUTPUT_TOKENS) ?? DEFAULT_MAX_MCP_OUTPUT_TOKENS;
  }

  /** The connection of a server that may run (approved), created on first ask; undefined otherwise. */
  async connection(name: string): Promise<McpConnection | undefined> {
    const server = this.servers.get(name);
    if (!server || this.disposed || this.#disabled.has(name)) return undefined;
    if (!(await this.isApproved(server))) return undefined;
    let conn = this.connections.get(name);
    if (!conn) {
      conn = new McpConnection({
        name,
        config: server.config,
        cwd: this.options.cwd,
        baseEnv: this.env,
        connectTimeoutMs: this.connectTimeoutMs,
        toolTimeoutMs: this.toolTimeoutMs,
        roots: () => this.#roots,
        onElicitation: (request) => this.elicit(request),
        oauthStore: this.oauthStore,
        onToolsChanged: (s) => {
          this.toolCache.delete(s);
          const c = this.connections.get(s);
          if (c?.state === 'failed' && c.lastError) this.options.onServerEvent?.({ type: 'failed', server: s, error: c.lastError });
          else this.options.onServerEvent?.({ type: 'tools-changed', server: s });
          this.options.onToolsChanged?.(s);
        },
      });
      this.connections.set(name, conn);
    }
    return conn;
  }

  private async isApproved(server: ScopedMcpServer): Promise<boolean> {
    if (server.approval === 'approved') return true;
    if (server.approval === 'rejected') return false;
    const known = this.approvals.get(server.name);
    if (known !== undefined) return known;
    // Headless: nobody to ask, so the server stays pending (not refused: a setting may approve it next time).
    if (!this.options.approveProjectServer) return false;
    let ok = false;
    try {
      ok = (await this.options.approveProjectServer(server)) === true;
    } catch {
      ok = false;
    }
    this.approvals.set(server.name, ok);
    return ok;
  }

  /**
   * The session's working folders now: when they changed (a folder added or taken off), every connected server is
   * told (`notifications/roots/list_changed`); the same folders again tell nobody.
   */
  async setRoots(folders: readonly string[]): Promise<void> {
    const next = [...new Set(folders)];
    if (next.length === this.#roots.length && next.every((f, i) => f === this.#roots[i])) return;
    this.#roots = next;
    await Promise.all([...this.connections.values()].map((c) => c.rootsChanged()));
  }

  private async elicit(request: McpElicitationRequest): Promise<ElicitResult> {
    if (!this.options.onQuestion) return { action: 'decline' };
    const answer = await this.options.onQuestion({
      kind: 'elicitation',
      message: `MCP server "${request.serverName}" asks: ${request.message}`,
      ...(request.requestedSchema ? { schema: request.requestedSchema } : {}),
      ...(request.mode === 'url' && request.url ? { url: request.url } : {}),
      signal: request.signal,
    });
    if (answer.action === 'accept') return { action: 'accept', content: (answer.content ?? answer.answers ?? {}) as ElicitResult['content'] };
    return { action: answer.action };
  }

  /** Every approved server's tools (connecting as needed), then the resource tools when a server has resources. */
  async getTools(): Promise<Tools> {
    const names = [...this.servers.keys()];
    const perServer = await Promise.all(names.map((name) => this.toolsOf(name)));
    const tools = perServer.flat();
    if (names.some((n) => this.connections.get(n)?.capabilities?.resources)) tools.push(ListMcpResourcesTool, ReadMcpResourceTool);
    return tools;
  }

  private async toolsOf(name: string): Promise<AnyTool[]> {
    const conn = await this.connection(name);
    if (!conn) return [];
    const wasConnected = conn.connectCount > 0;
    const before = conn.state;
    let defs: readonly McpToolDefinition[];
    try {
      defs = await conn.listTools();
    } catch (error) {
      const message = conn.lastError ?? (error instanceof Error ? error.message : String(error));
      // Said once, not at every turn's pool refresh.
      if (before !== 'failed' && before !== 'needs-login') this.options.onServerEvent?.({ type: 'failed', server: name, error: message });
      return conn.state === 'needs-login' ? this.authToolOf(name) : [];
    }
    if (before !== 'connected') this.options.onServerEvent?.({ type: 'connected', server: name, restart: wasConnected });
    const cached = this.toolCache.get(name);
    if (cached && cached.defs === defs) return cached.tools;
    const server = this.servers.get(name)!;
    const tools = defs.map((def) => createMcpTool(conn, def, { maxOutputTokens: this.maxOutputTokens, alwaysLoad: server.config.alwaysLoad }));
    this.toolCache.set(name, { defs, tools });
    return tools;
  }

  /** A server that needs OAuth offers `mcp__<server>__authenticate` in place of its tools (tools/mcp-auth/). */
  private authToolOf(name: string): AnyTool[] {
    const config = this.servers.get(name)?.config;
    if (config?.type !== 'http' && config?.type !== 'sse') return [];
    let tool = this.authTools.get(name);
    if (!tool) {
      tool = createMcpAuthToolFor(name, config, (options) => this.login(name, options), this.authLogins);
      this.authTools.set(name, tool);
    }
    return [tool];
  }

  /** Calls a tool by its `mcp__server__tool` name outside the pool (the permission prompt tool). */
  async callToolByName(fullName: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    for (const name of this.servers.keys()) {
      if (!fullName.startsWith(`mcp__${normalizeNameForMcp(name)}__`)) continue;
      const conn = await this.connection(name);
      if (!conn) throw new Error(`MCP server "${name}" is not running (not approved)`);
      const def = (await conn.listTools()).find((d) => buildMcpToolName(name, d.name) === fullName);
      if (def) return conn.callTool(def.name, args, signal ? { signal } : {});
    }
    throw new Error(`no MCP tool named ${fullName} (configured servers: ${[...this.servers.keys()].join(', ') || 'none'})`);
  }

  /** For `createToolRuntime({ toolProviders })`. */
  toolProvider(): { readonly name: string; getTools(): Promise<Tools>; dispose(): Promise<void> } {
    return { name: 'mcp', getTools: () => this.getTools(), dispose: () => this.dispose() };
  }

  readonly resourceService: McpResourceService = {
    serverNames: () => [...this.servers.keys()],
    listResources: async (server, signal) => {
      const names = server !== undefined ? [server] : [...this.servers.keys()];
      const resources: McpResourceInfo[] = [];
      const errors: { server: string; error: string }[] = [];
      await Promise.all(
        names.map(async (name) => {
          const conn = await this.connection(name);
          if (!conn) return;
          try {
            for (const r of await conn.listResources(signal)) {
              resources.push({ server: name, uri: r.uri, name: r.name, ...(r.mimeType ? { mimeType: r.mimeType } : {}), ...(r.description ? { description: r.description } : {}) });
            }
          } catch (error) {
            errors.push({ server: name, error: conn.lastError ?? (error instanceof Error ? error.message : String(error)) });
          }
        }),
      );
      return { resources, errors };
    },
    readResource: async (server, uri, signal): Promise<McpResourceContent[]> => {
      const conn = await this.connection(server);
      if (!conn) throw new Error(`MCP server "${server}" is not running (not approved or not configured)`);
      const result = await conn.readResource(uri, signal);
      return result.contents.map((c) => ({
        uri: c.uri,
        ...(c.mimeType ? { mimeType: c.mimeType } : {}),
        ...('text' in c && typeof c.text === 'string' ? { text: c.text } : {}),
        ...('blob' in c && typeof c.blob === 'string' ? { blob: c.blob } : {}),
      }));
    },
  };

  /** What `toolgate mcp list` shows; connects approved servers to count their tools when `connect` is set. */
  async status(options: { readonly connect?: boolean } = {}): Promise<McpServerStatus[]> {
    const out: McpServerStatus[] = [];
    const names = [...this.servers.keys()];
    const tools = options.connect ? await Promise.all(names.map((n) => this.toolsOf(n))) : names.map((n) => this.toolCache.get(n)?.tools ?? []);
    names.forEach((name, i) => {
      const server = this.servers.get(name)!;
      const conn = this.connections.get(name);
      const approved = server.approval === 'approved' || this.approvals.get(name) === true;
      const state: McpServerState =
        this.#disabled.has(name) || server.approval === 'rejected' || (server.approval === 'pending' && this.approvals.get(name) === false)
          ? 'rejected'
          : !approved
            ? 'pending-approval'
            : conn?.state === 'connected'
              ? 'connected'
              : conn?.state === 'failed' || conn?.state === 'needs-login'
                ? conn.state
                : 'not-started';
      const c = server.config;
      const stored = c.type === 'http' || c.type === 'sse' ? this.oauthStore.read(name, c.url).tokens : undefined;
      out.push({
        name,
        scope: server.scope,
        file: server.file,
        type: server.config.type,
        target: describeMcpServer(server.config),
        state,
        ...((state === 'failed' || state === 'needs-login') && conn?.lastError ? { error: conn.lastError } : {}),
        tools: (tools[i] ?? []).map((t) => t.name),
        ...(c.type === 'http' || c.type === 'sse' ? { oauth: { loggedIn: stored !== undefined, ...(stored?.expires_at !== undefined ? { expiresAt: stored.expires_at } : {}) } } : {}),
      });
    });
    return out;
  }

  /**
   * The OAuth login of an HTTP/SSE server (the browser part is the caller's: `onAuthorizationUrl` prints the URL);
   * its connection then starts afresh with the new token, and the pool is refreshed.
   */
  async login(name: string, options: Omit<McpLoginOptions, 'name' | 'config' | 'store'> = {}): Promise<McpLoginResult> {
    const server = this.servers.get(name);
    if (!server) throw new Error(`no MCP server named "${name}" (configured: ${[...this.servers.keys()].join(', ') || 'none'})`);
    if (server.config.type !== 'http' && server.config.type !== 'sse') throw new Error(`MCP server "${name}" is not an HTTP or SSE server: only those log in`);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) controller.abort();
    this.logins.add(controller);
    try {
      const result = await loginMcpServer({ ...options, name, config: server.config, store: this.oauthStore, signal: controller.signal });
      await this.afterAuthChange(name);
      return result;
    } finally {
      this.logins.delete(controller);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Forgets the server's OAuth login (tokens and registration); true when there was one. */
  async logout(name: string): Promise<boolean> {
    const server = this.servers.get(name);
    if (!server) throw new Error(`no MCP server named "${name}" (configured: ${[...this.servers.keys()].join(', ') || 'none'})`);
    if (server.config.type !== 'http' && server.config.type !== 'sse') return false;
    const removed = this.oauthStore.remove(name, server.config.url);
    await this.afterAuthChange(name);
    return removed;
  }

  /** A server joins the session (approved: the session named it); its tools come with the next pool. */
  add(name: string, config: McpServerConfig): void {
    if (this.#servers.has(name)) throw new Error(`an MCP server named "${name}" is configured already`);
    this.#servers.set(name, { name, config, scope: 'flag', file: 'added to the session', approval: 'approved' });
    this.options.onToolsChanged?.(name);
  }

  /** A server leaves the session: its connection is closed, its tools go with the next pool. */
  async remove(name: string): Promise<void> {
    this.#known(name);
    this.#servers.delete(name);
    this.#disabled.delete(name);
    await this.#drop(name);
  }

  /** Turns a server off (closed, its tools gone) or on again (connected when next asked) for this session. */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    this.#known(name);
    if (enabled) this.#disabled.delete(name);
    else this.#disabled.add(name);
    await this.#drop(name);
  }

  /** The server's connection starts afresh (a server that failed, or one restarted outside). */
  async reconnect(name: string): Promise<void> {
    this.#known(name);
    await this.afterAuthChange(name);
  }

  #known(name: string): void {
    if (!this.servers.has(name)) throw new Error(`no MCP server named "${name}" (configured: ${[...this.servers.keys()].join(', ') || 'none'})`);
  }

  async #drop(name: string): Promise<void> {
    const conn = this.connections.get(name);
    this.connections.delete(name);
    this.toolCache.delete(name);
    this.authTools.delete(name);
    await conn?.close();
    this.options.onToolsChanged?.(name);
  }

  private async afterAuthChange(name: string): Promise<void> {
    const conn = this.connections.get(name);
    if (!conn) return;
    await conn.reset();
    this.toolCache.delete(name);
    this.options.onToolsChanged?.(name);
  }

  /** Stops every server. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const login of this.logins) login.abort();
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    this.connections.clear();
    this.toolCache.clear();
  }
}
