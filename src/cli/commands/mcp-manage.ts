/**
 * `toolgate mcp add | add-json | remove`, as `claude mcp …`: the same arguments, scopes and files (mcp/edit-config.ts),
 * so a server added by either agent is the other's too.
 *   toolgate mcp add [-s local|project|user] [-t stdio|http|sse] [-e KEY=value]… [-H 'Name: value']…
 *     [--client-id ID [--client-secret | --private-key [--signing-algorithm ALG]] [--client-credentials]
 *      [--callback-port N]] NAME COMMAND_OR_URL [ARGS…]
 *   toolgate mcp add-json [-s scope] NAME 'JSON'
 *   toolgate mcp remove [-s scope] NAME
 * A stdio server's own flags go after `--` (`toolgate mcp add fs -- npx -y @modelcontextprotocol/server-filesystem .`).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { MCP_OAUTH_SIGNING_ALGORITHMS } from '../../mcp/config.js';
import type { McpWriteScope } from '../../mcp/edit-config.js';

/**
 * The config writer (and the settings editing under it) as a command that writes runs: `mcp serve`, which registers
 * these commands beside its own, never loads it.
 */
const editConfig = () => import('../../mcp/edit-config.js');

const collect = (value: string, previous: string[]) => [...previous, value];

interface ScopeOptions {
  cwd: string;
  scope: string;
}

interface AddOptions extends ScopeOptions {
  transport?: string;
  env: string[];
  header: string[];
  clientId?: string;
  clientSecret?: boolean;
  privateKey?: boolean;
  signingAlgorithm?: string;
  clientCredentials?: boolean;
  callbackPort?: string;
}

/** The OAuth flags: each is for http and sse servers only. */
const OAUTH_FLAGS = '--client-id, --client-secret, --private-key, --signing-algorithm, --client-credentials and --callback-port';

class McpManageError extends Error {
  override readonly name = 'McpManageError';
}

/**
 * Claude Code's `--client-id`/`--client-secret`/`--callback-port`, and toolgate's `--private-key` (`private_key_jwt`),
 * `--signing-algorithm` and `--client-credentials`, as the entry's `oauth` block. A secret or a key in a settings file
 * is one on disk: the entry names the variable that holds it (Claude Code keeps a secret in its keychain instead).
 */
function oauthOf(opts: AddOptions): Record<string, unknown> | undefined {
  const needsId = opts.clientSecret ? '--client-secret' : opts.privateKey ? '--private-key' : opts.clientCredentials ? '--client-credentials' : undefined;
  if (needsId !== undefined && opts.clientId === undefined) throw new McpManageError(`${needsId} needs --client-id`);
  if (opts.clientSecret && opts.privateKey) throw new McpManageError('--client-secret and --private-key are two ways for the client to prove itself: give one');
  if (opts.signingAlgorithm !== undefined && !opts.privateKey) throw new McpManageError('--signing-algorithm needs --private-key');
  if (opts.signingAlgorithm !== undefined && !MCP_OAUTH_SIGNING_ALGORITHMS.includes(opts.signingAlgorithm)) throw new McpManageError(`--signing-algorithm must be one of ${MCP_OAUTH_SIGNING_ALGORITHMS.join(', ')}, not "${opts.signingAlgorithm}"`);
  if (opts.clientCredentials && !opts.clientSecret && !opts.privateKey) throw new McpManageError('--client-credentials needs --client-secret or --private-key (the client proves itself without a person)');
  if (opts.clientId === undefined && opts.callbackPort === undefined) return undefined;
  const port = opts.callbackPort === undefined ? undefined : Number(opts.callbackPort);
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65_535)) throw new McpManageError(`--callback-port must be a port number, not "${opts.callbackPort}"`);
  return {
    ...(opts.clientId !== undefined ? { clientId: opts.clientId } : {}),
    ...(opts.clientSecret ? { clientSecret: '${MCP_CLIENT_SECRET}' } : {}),
    ...(opts.privateKey ? { privateKey: '${MCP_CLIENT_PRIVATE_KEY}' } : {}),
    ...(opts.signingAlgorithm !== undefined ? { signingAlgorithm: opts.signingAlgorithm } : {}),
    ...(opts.clientCredentials ? { grantType: 'client_credentials' } : {}),
    ...(port !== undefined ? { callbackPort: port } : {}),
  };
}

function scopeOf(value: string, scopes: readonly McpWriteScope[]): McpWriteScope {
  if (!(scopes as readonly string[]).includes(value)) throw new McpManageError(`--scope must be one of ${scopes.join(', ')}, not "${value}"`);
  return value as McpWriteScope;
}

const where = (opts: ScopeOptions) => ({ projectDir: path.resolve(opts.cwd) });

const SCOPE_HELP = 'local (you, this project: ~/.claude.json), project (shared: .mcp.json) or user (you, every project: ~/.claude.json)';

export function registerMcpManageCommands(mcp: Command): void {
  // A stdio server's arguments are its own: what follows the command is passed on, flags included.
  mcp.enablePositionalOptions();
  mcp
    .command('add')
    .description('add an MCP server (stdio: a command to start; http or sse: a URL), as claude mcp add')
    .argument('<name>', 'server name (letters, digits, - and _)')
    .argument('<commandOrUrl>', 'the command to start (stdio) or the URL (http, sse)')
    .argument('[args...]', "the command's arguments (stdio)")
    .option('-s, --scope <scope>', SCOPE_HELP, 'local')
    .option('-t, --transport <transport>', 'stdio, http or sse (default: stdio)')
    .option('-e, --env <KEY=value>', 'an environment variable of a stdio server (repeatable)', collect, [])
    .option('-H, --header <header>', "an HTTP header of an http or sse server, 'Name: value' (repeatable)", collect, [])
    .option('--client-id <id>', 'a pre-registered OAuth client of an http or sse server')
    .option('--client-secret', 'the OAuth client has a secret: read at run time from $MCP_CLIENT_SECRET (the file names the variable, never the secret)')
    .option('--private-key', 'the OAuth client proves itself with a signed JWT (private_key_jwt): its PKCS#8 PEM key is read at run time from $MCP_CLIENT_PRIVATE_KEY (the file names the variable, never the key)')
    .option('--signing-algorithm <alg>', `the private key's JWS algorithm (${MCP_OAUTH_SIGNING_ALGORITHMS.join(', ')}; default RS256)`)
    .option('--client-credentials', 'the client gets its tokens itself (OAuth client-credentials grant: no person logs in); needs --client-secret or --private-key')
    .option('--callback-port <n>', "the port of the pre-registered client's redirect URI (http://127.0.0.1:PORT/callback)")
    .option('--cwd <dir>', 'the project (default: the working directory)', process.cwd())
    .passThroughOptions()
    .action(async (name: string, given: string, rest: string[], opts: AddOptions) => {
      const { addMcpServer, MCP_WRITE_SCOPES } = await editConfig();
      // Passed through, a `--` after the name arrives as the first argument: the command follows it.
      const [target, ...args] = given === '--' ? rest : [given, ...rest];
      if (target === undefined) throw new McpManageError('missing the command (stdio) or URL (http, sse) after --');
      const scope = scopeOf(opts.scope, MCP_WRITE_SCOPES);
      const transport = opts.transport ?? 'stdio';
      let entry: Record<string, unknown>;
      if (transport === 'stdio') {
        if (opts.header.length > 0) throw new McpManageError('--header is for http and sse servers; a stdio server takes --env');
        if (opts.clientId !== undefined || opts.clientSecret || opts.privateKey || opts.signingAlgorithm !== undefined || opts.clientCredentials || opts.callbackPort !== undefined) throw new McpManageError(`${OAUTH_FLAGS} are for http and sse servers`);
        if (opts.transport === undefined && /^https?:\/\//.test(target)) {
          process.stderr.write(`toolgate mcp add: warning: ${target} looks like a URL, but it is added as a command to run (stdio); for a remote server give --transport http (or sse)\n`);
        }
        entry = { type: 'stdio', command: target, args, env: parseEnv(opts.env) };
      } else if (transport === 'http' || transport === 'sse') {
        if (args.length > 0) throw new McpManageError(`an ${transport} server is a URL: unexpected arguments ${args.join(' ')}`);
        if (opts.env.length > 0) throw new McpManageError(`--env is for stdio servers; an ${transport} server takes --header`);
        const oauth = oauthOf(opts);
        entry = { type: transport, url: target, ...(opts.header.length > 0 ? { headers: parseHeaders(opts.header) } : {}), ...(oauth ? { oauth } : {}) };
      } else {
        throw new McpManageError(`--transport must be stdio, http or sse, not "${transport}"`);
      }
      const written = addMcpServer(name, entry, scope, where(opts));
      const how = transport === 'stdio' ? `with command: ${[target, ...args].join(' ')}` : `with URL: ${target}`;
      process.stdout.write(`Added ${transport} MCP server ${name} ${how} to ${scope} config\nFile modified: ${written.place}\n${projectNote(scope, name)}`);
    });

  mcp
    .command('add-json')
    .description("add an MCP server from its JSON entry, as claude mcp add-json (e.g. '{\"type\":\"http\",\"url\":\"https://…\"}')")
    .argument('<name>', 'server name')
    .argument('<json>', 'the entry, as in .mcp.json')
    .option('-s, --scope <scope>', SCOPE_HELP, 'local')
    .option('--cwd <dir>', 'the project (default: the working directory)', process.cwd())
    .action(async (name: string, json: string, opts: ScopeOptions) => {
      const { addMcpServer, MCP_WRITE_SCOPES } = await editConfig();
      const scope = scopeOf(opts.scope, MCP_WRITE_SCOPES);
      let entry: unknown;
      try {
        entry = JSON.parse(json);
      } catch (error) {
        throw new McpManageError(`the entry is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new McpManageError('the entry must be a JSON object');
      const written = addMcpServer(name, entry as Record<string, unknown>, scope, where(opts));
      const type = typeof (entry as { type?: unknown }).type === 'string' ? (entry as { type: string }).type : 'stdio';
      process.stdout.write(`Added ${type} MCP server ${name} to ${scope} config\nFile modified: ${written.place}\n${projectNote(scope, name)}`);
    });

  mcp
    .command('remove')
    .description('remove an MCP server, as claude mcp remove (a name in several scopes needs --scope)')
    .argument('<name>', 'server name')
    .option('-s, --scope <scope>', `${SCOPE_HELP} (default: the one that has it)`)
    .option('--cwd <dir>', 'the project (default: the working directory)', process.cwd())
    .action(async (name: string, opts: Partial<ScopeOptions> & { cwd: string }) => {
      const { removeMcpServer, MCP_WRITE_SCOPES } = await editConfig();
      const removed = removeMcpServer(name, opts.scope === undefined ? undefined : scopeOf(opts.scope, MCP_WRITE_SCOPES), { projectDir: path.resolve(opts.cwd) });
      process.stdout.write(`Removed MCP server ${name} from ${removed.scope} config\nFile modified: ${removed.place}\n`);
    });
}

function parseEnv(list: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new McpManageError(`--env takes KEY=value, not "${item}"`);
    env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return env;
}

function parseHeaders(list: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const item of list) {
    const colon = item.indexOf(':');
    if (colon <= 0) throw new McpManageError(`--header takes 'Name: value', not "${item}"`);
    headers[item.slice(0, colon).trim()] = item.slice(colon + 1).trim();
  }
  return headers;
}

/** Project servers run code the repository chose: they start only once approved (mcp/load-config.ts). */
function projectNote(scope: McpWriteScope, name: string): string {
  return scope === 'project'
    ? `Project servers start once approved: "enabledMcpjsonServers": ["${name}"] (or "enableAllProjectMcpServers": true) in your local or user settings.\n`
    : '';
}
