/**
 * MCP server configuration in Claude Code's formats, unchanged: an `mcpServers` object whose entries are
 * `{ type?: "stdio", command, args?, env? }`, `{ type: "http", url, headers? }` or `{ type: "sse", url, headers? }`,
 * with `${VAR}` and `${VAR:-default}` expanded in every string. toolgate reads one more key per entry, `alwaysLoad`
 * (never defer this server's tools), as Claude Code does, and for HTTP/SSE entries `oauth`: Claude Code's
 * pre-registered client (`clientId`, `callbackPort`), plus `clientSecret` (write it as `${VAR}`, not in the file) and
 * `grantType: "client_credentials"` for a machine-to-machine server (no person, no browser).
 */

export type McpTransportType = 'stdio' | 'http' | 'sse';

interface McpServerConfigBase {
  /** Never deferred behind ToolSearch (Claude Code's per-server `alwaysLoad`). */
  readonly alwaysLoad?: boolean;
}

export interface McpStdioServerConfig extends McpServerConfigBase {
  readonly type: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** toolgate's extension: where the process starts (default: the project root). */
  readonly cwd?: string;
}

/** A pre-registered OAuth client for an HTTP/SSE server (instead of dynamic registration). */
export interface McpOAuthClientConfig {
  readonly clientId?: string;
  /** Sent to the token endpoint only; kept out of every listing and log (a known secret to the redactor). */
  readonly clientSecret?: string;
  /** The loopback port of the pre-registered redirect URI (`http://127.0.0.1:PORT/callback`). */
  readonly callbackPort?: number;
  /** `client_credentials`: the client gets its tokens itself with its id and secret or key (no login). */
  readonly grantType?: 'authorization_code' | 'client_credentials';
  /**
   * `private_key_jwt` client authentication (RFC 7523): the client proves itself at the token endpoint with a JWT it
   * signs with this PKCS#8 PEM key instead of a secret. Write it as `${VAR}`, not in the file; kept out of every
   * listing, log and the token file, like `clientSecret` (which it replaces).
   */
  readonly privateKey?: string;
  /** The key's JWS algorithm (`RS256` — the default —, `RS384`, `RS512`, `PS256`…`PS512`, `ES256`, `ES384`, `ES512`). */
  readonly signingAlgorithm?: string;
}

/** The JWS algorithms a `privateKey` may sign with (asymmetric only: a shared-secret HMAC would be a secret in a file). */
export const MCP_OAUTH_SIGNING_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

export interface McpRemoteServerConfig extends McpServerConfigBase {
  readonly type: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly oauth?: McpOAuthClientConfig;
}

/**
 * A server in this process (the Agent SDK face's `createSdkMcpServer`): never read from a file, only given by a
 * program. `createServer` makes a fresh server object for each connection, joined to the client by an in-memory
 * transport, so one definition serves any number of sessions at once.
 */
export interface McpInProcessServerConfig extends McpServerConfigBase {
  readonly type: 'sdk';
  readonly createServer: () => { connect(transport: import('@modelcontextprotocol/sdk/shared/transport.js').Transport): Promise<void> };
}

/** One MCP server entry as Claude Code's files write it — a command to start (stdio) or a URL (http, sse) — or one in this process. */
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig | McpInProcessServerConfig;

/** Where a server's entry came from, highest precedence first when names clash. */
export type McpConfigScope = 'flag' | 'local' | 'project' | 'user' | 'managed' | 'plugin';

export interface McpConfigProblem {
  /** The file (or `--mcp-config` argument) and the server the problem is in. */
  readonly file: string;
  readonly server?: string;
  readonly message: string;
}

/**
 * `${VAR}` and `${VAR:-default}`: an unset variable without a default is reported (the entry is then refused — a
 * half-expanded command line or URL must not run), an empty default is allowed.
 */
export function expandEnvVars(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { readonly value: string; readonly missing: readonly string[] } {
  const missing: string[] = [];
  const value = text.replace(/\$\{([^}:]+)(?::-([^}]*))?\}/g, (whole, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined) return v;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return whole;
  });
  return { value, missing };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One entry, checked and expanded; `problems` non-empty means the entry is unusable. */
export function parseMcpServerConfig(
  name: string,
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { readonly config?: McpServerConfig; readonly problems: readonly string[] } {
  const problems: string[] = [];
  if (!isObject(raw)) return { problems: ['the entry must be an object'] };
  const missing = new Set<string>();
  const expand = (value: string): string => {
    const r = expandEnvVars(value, env);
    for (const m of r.missing) missing.add(m);
    return r.value;
  };
  const strings = (key: string, value: unknown): Record<string, string> => {
    if (value === undefined) return {};
    if (!isObject(value)) {
      problems.push(`"${key}" must be an object of strings`);
      return {};
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') problems.push(`"${key}.${k}" must be a string`);
      else out[k] = expand(v);
    }
    return out;
  };
  const type = raw.type ?? (typeof raw.url === 'string' && raw.command === undefined ? 'http' : 'stdio');
  if (raw.alwaysLoad !== undefined && typeof raw.alwaysLoad !== 'boolean') problems.push('"alwaysLoad" must be a boolean');
  const alwaysLoad = raw.alwaysLoad === true ? { alwaysLoad: true } : {};
  let config: McpServerConfig | undefined;
  if (type === 'stdio') {
    if (typeof raw.command !== 'string' || raw.command.trim() === '') problems.push('"command" must be a non-empty string');
    if (raw.args !== undefined && !(Array.isArray(raw.args) && raw.args.every((a) => typeof a === 'string'))) {
      problems.push('"args" must be an array of strings');
    }
    if (raw.cwd !== undefined && typeof raw.cwd !== 'string') problems.push('"cwd" must be a string');
    config = {
      type: 'stdio',
      command: typeof raw.command === 'string' ? expand(raw.command) : '',
      args: Array.isArray(raw.args) ? raw.args.filter((a): a is string => typeof a === 'string').map(expand) : [],
      env: strings('env', raw.env),
      ...(typeof raw.cwd === 'string' ? { cwd: expand(raw.cwd) } : {}),
      ...alwaysLoad,
    };
  } else if (type === 'http' || type === 'sse') {
    let url = '';
    if (typeof raw.url !== 'string') problems.push('"url" must be a string');
    else {
      url = expand(raw.url);
      if (missing.size === 0) {
        try {
          const u = new URL(url);
          if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push(`"url" must be http(s), not ${u.protocol}`);
        } catch {
          problems.push(`"url" is not a valid URL: ${JSON.stringify(url)}`);
        }
      }
    }
    const oauth = parseOAuth(raw.oauth, expand, problems);
    config = { type, url, headers: strings('headers', raw.headers), ...(oauth ? { oauth } : {}), ...alwaysLoad };
  } else {
    problems.push(`"type" must be "stdio", "http" or "sse", not ${JSON.stringify(raw.type)}`);
  }
  if (missing.size > 0) {
    problems.push(`environment variable${missing.size > 1 ? 's' : ''} ${[...missing].join(', ')} not set (use \${VAR:-default} for a default)`);
  }
  if (name.trim().length === 0) problems.push('the server name must not be empty');
  return problems.length > 0 ? { problems } : { config, problems };
}

function parseOAuth(raw: unknown, expand: (v: string) => string, problems: string[]): McpOAuthClientConfig | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) {
    problems.push('"oauth" must be an object');
    return undefined;
  }
  const out: { -readonly [K in keyof McpOAuthClientConfig]: McpOAuthClientConfig[K] } = {};
  for (const key of ['clientId', 'clientSecret', 'privateKey', 'signingAlgorithm'] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') problems.push(`"oauth.${key}" must be a non-empty string`);
    else out[key] = expand(v);
  }
  if (raw.callbackPort !== undefined) {
    const port = raw.callbackPort;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) problems.push('"oauth.callbackPort" must be a port number');
    else out.callbackPort = port;
  }
  if (raw.grantType !== undefined) {
    if (raw.grantType !== 'authorization_code' && raw.grantType !== 'client_credentials') problems.push('"oauth.grantType" must be "authorization_code" or "client_credentials"');
    else out.grantType = raw.grantType;
  }
  if (out.clientSecret !== undefined && out.clientId === undefined) problems.push('"oauth.clientSecret" needs "oauth.clientId"');
  if (out.privateKey !== undefined && out.clientId === undefined) problems.push('"oauth.privateKey" needs "oauth.clientId"');
  if (out.privateKey !== undefined && out.clientSecret !== undefined) problems.push('"oauth.privateKey" and "oauth.clientSecret" are two ways to authenticate the client: give one');
  if (out.signingAlgorithm !== undefined && !MCP_OAUTH_SIGNING_ALGORITHMS.includes(out.signingAlgorithm)) problems.push(`"oauth.signingAlgorithm" must be one of ${MCP_OAUTH_SIGNING_ALGORITHMS.join(', ')}`);
  if (out.signingAlgorithm !== undefined && out.privateKey === undefined) problems.push('"oauth.signingAlgorithm" needs "oauth.privateKey"');
  if (out.grantType === 'client_credentials' && (out.clientId === undefined || (out.clientSecret === undefined && out.privateKey === undefined))) {
    problems.push('"oauth.grantType": "client_credentials" needs "oauth.clientId" and "oauth.clientSecret" (or "oauth.privateKey")');
  }
  return out;
}

export interface ParsedMcpServers {
  readonly servers: ReadonlyMap<string, McpServerConfig>;
  readonly problems: readonly McpConfigProblem[];
}

/** An object holding `mcpServers` (a `.mcp.json`, a `--mcp-config` file or a settings file). */
export function parseMcpServersObject(
  json: unknown,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): ParsedMcpServers {
  const servers = new Map<string, McpServerConfig>();
  const problems: McpConfigProblem[] = [];
  if (!isObject(json)) return { servers, problems: [{ file, message: 'the MCP configuration must be a JSON object' }] };
  const list = json.mcpServers;
  if (list === undefined) return { servers, problems };
  if (!isObject(list)) return { servers, problems: [{ file, message: '"mcpServers" must be an object of named servers' }] };
  for (const [name, raw] of Object.entries(list)) {
    const parsed = parseMcpServerConfig(name, raw, env);
    for (const message of parsed.problems) problems.push({ file, server: name, message });
    if (parsed.config) servers.set(name, parsed.config);
  }
  return { servers, problems };
}

/** A one-line description of how a server is reached (for `toolgate mcp list`; header values never printed). */
export function describeMcpServer(config: McpServerConfig): string {
  if (config.type === 'stdio') return [config.command, ...config.args].join(' ');
  if (config.type === 'sdk') return '(in this process)';
  const headers = Object.keys(config.headers);
  return `${config.url} (${config.type}${headers.length > 0 ? `, headers: ${headers.join(', ')}` : ''})`;
}
