/**
 * `toolgate mcp serve | list | get NAME | add | add-json | remove | login NAME | logout NAME` (add, add-json, remove:
 * mcp-manage.ts).
 * - serve: the built-in tools as an MCP server, permission engine in front (stdio, or `--http` on 127.0.0.1 with a
 *   bearer token: `$TOOLGATE_MCP_TOKEN`, or one generated and printed on stderr).
 * - list / get: the servers configured for `--cwd` in Claude Code's files (and `--mcp-config`), their approval and
 *   state; `--connect` starts the approved ones to show their tools.
 * - login / logout: the OAuth login of an HTTP or SSE server (the URL is printed on stderr and opened in a browser when
 *   there is a desktop; the redirect comes back to a listener on 127.0.0.1), and forgetting it.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { PERMISSION_MODES, type PermissionMode } from '../../tool/permission-types.js';
import { loadMcpConfig } from '../../mcp/load-config.js';
// The client side (the MCP SDK's client, its transports, OAuth) loads only for the commands that connect: not for `serve`.
import type { McpServerStatus } from '../../mcp/manager.js';
import { registerMcpManageCommands } from './mcp-manage.js';
import { inlineJsonOrPath } from '../../tool/read-config-file.js';

const collect = (value: string, previous: string[]) => [...previous, value];

export class McpCommandError extends Error {
  override readonly name = 'McpCommandError';
}

interface ServeOptions {
  cwd: string;
  permissionMode?: string;
  http?: boolean;
  port?: string;
  tokenEnv: string;
  settings: string[];
  sessionDir?: string;
}

interface ListOptions {
  cwd: string;
  mcpConfig: string[];
  strictMcpConfig?: boolean;
  connect?: boolean;
  json?: boolean;
}

interface LoginOptions {
  cwd: string;
  mcpConfig: string[];
  strictMcpConfig?: boolean;
  browser: boolean;
  timeout?: string;
}

export function registerMcpCommand(program: Command): void {
  const mcp = program.command('mcp').description('MCP: serve the tools to an MCP client, or inspect the configured MCP servers');

  mcp
    .command('serve')
    .description('serve the built-in tools over MCP (stdio by default), through the permission engine of --cwd')
    .option('--cwd <dir>', 'working directory and project whose settings apply', process.cwd())
    .option('--permission-mode <mode>', `permission mode: ${PERMISSION_MODES.join(', ')}`)
    .option('--settings <file>', 'extra settings file or inline JSON (repeatable)', collect, [])
    .option('--session-dir <dir>', 'where persisted outputs go (default: under the user state directory)')
    .option('--http', 'serve streamable HTTP on 127.0.0.1 instead of stdio (bearer token required)')
    .option('--port <n>', 'HTTP port (default: any free port)')
    .option('--token-env <name>', 'environment variable holding the bearer token (absent or empty: generate one)', 'TOOLGATE_MCP_TOKEN')
    .action((opts: ServeOptions) => runServe(opts));

  const listLike = (cmd: Command) =>
    cmd
      .option('--cwd <dir>', 'project directory', process.cwd())
      .option('--mcp-config <file-or-json>', 'extra MCP server configuration (repeatable)', collect, [])
      .option('--strict-mcp-config', 'only the servers of --mcp-config')
      .option('--connect', 'start the approved servers to list their tools')
      .option('--json', 'print JSON');

  listLike(mcp.command('list').description('the configured MCP servers, their scope, approval and state')).action((opts: ListOptions) =>
    runList(undefined, opts),
  );
  listLike(mcp.command('get').description('one configured MCP server (with --connect: its tools)').argument('<name>', 'server name')).action(
    (name: string, opts: ListOptions) => runList(name, opts),
  );

  registerMcpManageCommands(mcp);

  const configured = (cmd: Command) =>
    cmd
      .option('--cwd <dir>', 'project directory', process.cwd())
      .option('--mcp-config <file-or-json>', 'extra MCP server configuration (repeatable)', collect, [])
      .option('--strict-mcp-config', 'only the servers of --mcp-config');
  configured(mcp.command('login').description('log in to an HTTP or SSE MCP server that asks for OAuth').argument('<name>', 'server name'))
    .option('--no-browser', 'only print the URL, do not open a browser')
    .option('--timeout <seconds>', 'how long to wait for the browser (default 300)')
    .action((name: string, opts: LoginOptions) => runLogin(name, opts));
  configured(mcp.command('logout').description("forget an MCP server's OAuth login (its stored tokens)").argument('<name>', 'server name')).action(
    (name: string, opts: LoginOptions) => runLogout(name, opts),
  );
}

function parseMode(mode: string | undefined): PermissionMode | undefined {
  if (mode === undefined) return undefined;
  if (mode === 'manual') return 'default'; // claude's name for it
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    throw new McpCommandError(`unknown --permission-mode "${mode}" (expected one of: ${PERMISSION_MODES.join(', ')})`);
  }
  return mode as PermissionMode;
}

async function runServe(opts: ServeOptions): Promise<void> {
  const mode = parseMode(opts.permissionMode);
  const base = {
    cwd: path.resolve(opts.cwd),
    ...(mode ? { mode } : {}),
    runtime: {
      settings: { files: opts.settings.map((f) => inlineJsonOrPath(f, process.cwd())) },
      ...(opts.sessionDir !== undefined ? { sessionDir: path.resolve(opts.sessionDir) } : {}),
    },
  };
  // Loaded only here: `toolgate mcp list` should not pay for the runtime and every tool.
  const { serveHttp, serveStdio } = await import('../../mcp/server/serve.js');
  if (opts.http) {
    const port = opts.port === undefined ? 0 : Number(opts.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new McpCommandError(`--port must be a port number, not "${opts.port}"`);
    const fromEnv = process.env[opts.tokenEnv];
    const handle = await serveHttp({ ...base, port, ...(fromEnv ? { token: fromEnv } : {}) });
    process.stderr.write(`toolgate mcp serve: listening on ${handle.url}\n`);
    if (!fromEnv) process.stderr.write(`toolgate mcp serve: bearer token (set ${opts.tokenEnv} to choose one): ${handle.token}\n`);
    await waitForSignal();
    await handle.close();
    return;
  }
  const handle = await serveStdio(base);
  await Promise.race([handle.closed, waitForSignal()]);
  await handle.close();
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

function loadConfigured(name: string | undefined, opts: Pick<ListOptions, 'cwd' | 'mcpConfig' | 'strictMcpConfig'>) {
  const cwd = path.resolve(opts.cwd);
  const config = loadMcpConfig({
    cwd,
    mcpConfigs: opts.mcpConfig.map((f) => inlineJsonOrPath(f, process.cwd())),
    strict: opts.strictMcpConfig === true,
  });
  for (const p of config.problems) process.stderr.write(`toolgate: warning: ${p.file}${p.server ? ` (server "${p.server}")` : ''}: ${p.message}\n`);
  if (name !== undefined && !config.servers.has(name)) {
    throw new McpCommandError(`no MCP server named "${name}" is configured for ${cwd}${config.servers.size > 0 ? ` (configured: ${[...config.servers.keys()].join(', ')})` : ''}`);
  }
  return { cwd, config };
}

async function runLogin(name: string, opts: LoginOptions): Promise<void> {
  const { cwd, config } = loadConfigured(name, opts);
  const server = config.servers.get(name)!;
  if (server.config.type === 'stdio') throw new McpCommandError(`MCP server "${name}" is a local (stdio) server: only HTTP and SSE servers log in with OAuth`);
  const timeoutS = opts.timeout === undefined ? undefined : Number(opts.timeout);
  if (timeoutS !== undefined && !(Number.isFinite(timeoutS) && timeoutS > 0)) throw new McpCommandError(`--timeout must be a positive number of seconds, not "${opts.timeout}"`);
  const { McpClientManager } = await import('../../mcp/manager.js');
  const manager = new McpClientManager({ cwd, servers: new Map([[name, server]]) });
  const controller = new AbortController();
  const cancel = () => controller.abort();
  process.once('SIGINT', cancel);
  process.once('SIGTERM', cancel);
  try {
    const result = await manager.login(name, {
      openBrowser: opts.browser,
      signal: controller.signal,
      ...(timeoutS !== undefined ? { timeoutMs: timeoutS * 1000 } : {}),
      onAuthorizationUrl: (url) => {
        process.stderr.write(`To log in to MCP server "${name}", open this URL in a browser:\n\n  ${url}\n\nWaiting for the browser to come back (Ctrl+C to cancel)…\n`);
      },
    });
    if (result.status === 'not-required') process.stdout.write(`MCP server "${name}" did not ask for a login: nothing was stored (${result.tools} tools).\n`);
    else process.stdout.write(`Logged in to MCP server "${name}" (${result.tools} tools). The token is kept in ${manager.oauthStore.dir}.\n`);
  } finally {
    process.off('SIGINT', cancel);
    process.off('SIGTERM', cancel);
    await manager.dispose();
  }
}

async function runLogout(name: string, opts: LoginOptions): Promise<void> {
  const { cwd, config } = loadConfigured(name, opts);
  const { McpClientManager } = await import('../../mcp/manager.js');
  const manager = new McpClientManager({ cwd, servers: new Map([[name, config.servers.get(name)!]]) });
  try {
    const removed = await manager.logout(name);
    process.stdout.write(removed ? `Logged out of MCP server "${name}": its tokens were removed.\n` : `MCP server "${name}" had no stored login.\n`);
  } finally {
    await manager.dispose();
  }
}

async function runList(name: string | undefined, opts: ListOptions): Promise<void> {
  const { cwd, config } = loadConfigured(name, opts);
  const servers = name === undefined ? config.servers : new Map([[name, config.servers.get(name)!]]);
  // Headless: project servers nobody approved stay stopped, even with --connect.
  const { McpClientManager } = await import('../../mcp/manager.js');
  const manager = new McpClientManager({ cwd, servers });
  try {
    const status = await manager.status({ connect: opts.connect === true });
    if (opts.json) process.stdout.write(`${JSON.stringify(name === undefined ? status : status[0], null, 2)}\n`);
    else process.stdout.write(name === undefined ? formatList(status) : formatOne(status[0]!));
  } finally {
    await manager.dispose();
  }
}

const STATE_WORDS: Record<McpServerStatus['state'], string> = {
  connected: 'connected',
  failed: 'failed',
  'needs-login': 'needs login',
  'pending-approval': 'needs approval (enabledMcpjsonServers / enableAllProjectMcpServers)',
  rejected: 'disabled (disabledMcpjsonServers)',
  'not-started': 'not started',
};

function formatList(status: readonly McpServerStatus[]): string {
  if (status.length === 0) return 'No MCP servers configured (.mcp.json, ~/.claude.json, settings mcpServers, --mcp-config).\n';
  return status
    .map((s) => `${s.name} [${s.scope}, ${s.type}] ${s.target} — ${STATE_WORDS[s.state]}${s.oauth?.loggedIn ? ' (OAuth: logged in)' : ''}${s.tools.length > 0 ? `, ${s.tools.length} tools` : ''}${s.error ? `\n  ${s.error.split('\n')[0]}` : ''}`)
    .join('\n')
    .concat('\n');
}

function formatOne(s: McpServerStatus): string {
  const lines = [
    `${s.name}`,
    `  scope:  ${s.scope} (${s.file})`,
    `  type:   ${s.type}`,
    `  target: ${s.target}`,
    `  state:  ${STATE_WORDS[s.state]}`,
    ...(s.oauth ? [`  oauth:  ${describeOAuth(s.name, s.oauth)}`] : []),
    ...(s.error ? [`  error:  ${s.error.replace(/\n/g, '\n          ')}`] : []),
    ...(s.tools.length > 0 ? ['  tools:', ...s.tools.map((t) => `    ${t}`)] : []),
  ];
  return `${lines.join('\n')}\n`;
}

function describeOAuth(name: string, oauth: NonNullable<McpServerStatus['oauth']>): string {
  if (!oauth.loggedIn) return `not logged in (toolgate mcp login ${name}, if the server asks for it)`;
  if (oauth.expiresAt === undefined) return 'logged in';
  const left = oauth.expiresAt - Date.now();
  return left > 0 ? `logged in (access token valid for ${Math.round(left / 60_000)} min; refreshed as needed)` : 'logged in (access token expired; refreshed at the next use)';
}
