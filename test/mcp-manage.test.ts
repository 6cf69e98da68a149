/**
 * `toolgate mcp add | add-json | remove` through the real CLI, against real files in a temp home and project: the
 * scopes and files `claude mcp …` uses (local and user in ~/.claude.json, project in .mcp.json), read back by
 * `toolgate mcp list|get` and by the loader the agent uses.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { loadMcpConfig } from '../src/mcp/load-config.js';
import { toolgate } from './helpers/cli.js';

vi.setConfig({ testTimeout: 120_000 });

let root: string;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcpmanage-')));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(project, { recursive: true });
  mkdirSync(home, { recursive: true });
  env = { ...process.env, HOME: home, XDG_STATE_HOME: path.join(home, 'state') };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mcp = (args: string[]) => toolgate(['mcp', ...args], { env });
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
const claudeJson = () => path.join(home, '.claude.json');

it('adds to the three scopes where claude keeps them, and the loader reads them back with their scope', async () => {
  // ~/.claude.json holds much else (claude's own state): it is kept.
  writeFileSync(claudeJson(), JSON.stringify({ numStartups: 3, projects: { '/elsewhere': { allowedTools: [] } } }, null, 2));
  const local = await mcp(['add', '--cwd', project, '-e', 'TOKEN=abc', 'fs', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '.']);
  expect(local.code, local.stderr).toBe(0);
  expect(local.stdout).toContain('Added stdio MCP server fs with command: npx -y @modelcontextprotocol/server-filesystem . to local config');
  expect(local.stdout).toContain(`File modified: ${claudeJson()} [project: ${project}]`);
  const user = await mcp(['add', '--cwd', project, '-s', 'user', '-t', 'http', '-H', 'Authorization: Bearer xyz', 'notion', 'https://mcp.example.com/mcp']);
  expect(user.code, user.stderr).toBe(0);
  const shared = await mcp(['add-json', '--cwd', project, '-s', 'project', 'docs', JSON.stringify({ type: 'sse', url: 'https://docs.example.com/sse' })]);
  expect(shared.code, shared.stderr).toBe(0);
  expect(shared.stdout).toContain(`File modified: ${path.join(project, '.mcp.json')}`);
  expect(shared.stdout).toContain('enabledMcpjsonServers');

  const global = json(claudeJson());
  expect(global.numStartups).toBe(3);
  expect(global.projects['/elsewhere']).toEqual({ allowedTools: [] });
  expect(global.projects[project].mcpServers).toEqual({ fs: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { TOKEN: 'abc' } } });
  expect(global.mcpServers).toEqual({ notion: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer xyz' } } });
  expect(json(path.join(project, '.mcp.json'))).toEqual({ mcpServers: { docs: { type: 'sse', url: 'https://docs.example.com/sse' } } });
  // A new ~/.claude.json or .mcp.json may hold tokens: private; an existing file keeps its mode.
  expect(statSync(path.join(project, '.mcp.json')).mode & 0o777).toBe(0o600);

  const loaded = loadMcpConfig({ cwd: project, homeDir: home, sources: ['local', 'project', 'user'] });
  expect(loaded.problems).toEqual([]);
  expect([...loaded.servers.values()].map((s) => [s.name, s.scope, s.approval])).toEqual([
    ['fs', 'local', 'approved'],
    ['docs', 'project', 'pending'],
    ['notion', 'user', 'approved'],
  ]);
  const list = await mcp(['list', '--cwd', project]);
  expect(list.stdout).toMatch(/fs \[local, stdio\] npx -y/);
  expect(list.stdout).toMatch(/notion \[user, http\] https:\/\/mcp\.example\.com\/mcp/);
  const get = await mcp(['get', '--cwd', project, 'docs']);
  expect(get.stdout).toContain(`scope:  project (${path.join(project, '.mcp.json')})`);
});

it('refuses a name already in the scope, a bad name, a bad entry; warns when a URL is added as a command', async () => {
  expect((await mcp(['add', '--cwd', project, 'one', 'echo'])).code).toBe(0);
  const again = await mcp(['add', '--cwd', project, 'one', 'cat']);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('MCP server "one" already exists in local config');
  expect(json(claudeJson()).projects[project].mcpServers.one.command).toBe('echo');
  const badName = await mcp(['add', '--cwd', project, 'a b', 'echo']);
  expect(badName.stderr).toMatch(/invalid MCP server name "a b"/);
  const badEntry = await mcp(['add-json', '--cwd', project, 'x', '{"type":"http"}']);
  expect(badEntry.code).toBe(1);
  expect(badEntry.stderr).toMatch(/"url" must be a string/);
  const badJson = await mcp(['add-json', '--cwd', project, 'x', '{nope']);
  expect(badJson.stderr).toMatch(/not valid JSON/);
  const badScope = await mcp(['add', '--cwd', project, '-s', 'global', 'x', 'echo']);
  expect(badScope.stderr).toMatch(/--scope must be one of local, project, user/);
  // The server's own flags after its command are its own, without `--` too.
  expect((await mcp(['add', '--cwd', project, 'flags', 'npx', '-y', 'pkg', '--port', '1'])).code).toBe(0);
  expect(json(claudeJson()).projects[project].mcpServers.flags.args).toEqual(['-y', 'pkg', '--port', '1']);
  const url = await mcp(['add', '--cwd', project, 'remote', 'https://mcp.example.com/mcp']);
  expect(url.code).toBe(0);
  expect(url.stderr).toMatch(/looks like a URL.*--transport http/);
  // A file that is not JSON is never overwritten.
  writeFileSync(path.join(project, '.mcp.json'), '{ broken');
  const broken = await mcp(['add', '--cwd', project, '-s', 'project', 'y', 'echo']);
  expect(broken.code).toBe(1);
  expect(broken.stderr).toMatch(/\.mcp\.json is not valid JSON/);
  expect(readFileSync(path.join(project, '.mcp.json'), 'utf8')).toBe('{ broken');
});

it('removes from the one scope that has the name; a name in several scopes needs --scope', async () => {
  await mcp(['add', '--cwd', project, 'dup', 'echo']);
  await mcp(['add', '--cwd', project, '-s', 'user', 'dup', 'echo']);
  await mcp(['add', '--cwd', project, '-s', 'project', 'solo', 'echo']);
  const ambiguous = await mcp(['remove', '--cwd', project, 'dup']);
  expect(ambiguous.code).toBe(1);
  expect(ambiguous.stderr).toMatch(/"dup" is in several scopes \(local, user\): say which with --scope/);
  const fromUser = await mcp(['remove', '--cwd', project, '-s', 'user', 'dup']);
  expect(fromUser.stdout).toBe(`Removed MCP server dup from user config\nFile modified: ${claudeJson()}\n`);
  expect(json(claudeJson()).mcpServers).toEqual({});
  expect(json(claudeJson()).projects[project].mcpServers).toHaveProperty('dup');
  chmodSync(path.join(project, '.mcp.json'), 0o644);
  const solo = await mcp(['remove', '--cwd', project, 'solo']);
  expect(statSync(path.join(project, '.mcp.json')).mode & 0o777).toBe(0o644);
  expect(solo.stdout).toContain('from project config');
  expect(json(path.join(project, '.mcp.json')).mcpServers).toEqual({});
  const missing = await mcp(['remove', '--cwd', project, 'nothing']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('no MCP server named "nothing"');
  const wrongScope = await mcp(['remove', '--cwd', project, '-s', 'project', 'dup']);
  expect(wrongScope.stderr).toMatch(/no MCP server named "dup" in project config .*; it is in: local/);
});

it('--private-key/--signing-algorithm/--client-credentials write a private_key_jwt client, the key by reference only', async () => {
  const key = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC-not-a-real-key\n-----END PRIVATE KEY-----\n';
  const withKey = { ...env, MCP_CLIENT_PRIVATE_KEY: key };
  const added = await toolgate(['mcp', 'add', '--cwd', project, '-s', 'user', '-t', 'http', '--client-id', 'm2m', '--private-key', '--signing-algorithm', 'ES256', '--client-credentials', 'api', 'https://api.example.com/mcp'], { env: withKey });
  expect(added.code, added.stderr).toBe(0);
  expect(added.stdout + added.stderr).not.toContain('not-a-real-key');
  expect(readFileSync(claudeJson(), 'utf8')).not.toContain('not-a-real-key');
  expect(json(claudeJson()).mcpServers.api.oauth).toEqual({ clientId: 'm2m', privateKey: '${MCP_CLIENT_PRIVATE_KEY}', signingAlgorithm: 'ES256', grantType: 'client_credentials' });
  const config = loadMcpConfig({ cwd: project, homeDir: home, env: { MCP_CLIENT_PRIVATE_KEY: key } }).servers.get('api')?.config;
  expect(config?.type === 'http' ? config.oauth : undefined).toEqual({ clientId: 'm2m', privateKey: key, signingAlgorithm: 'ES256', grantType: 'client_credentials' });
  const listed = await toolgate(['mcp', 'get', '--cwd', project, 'api'], { env: withKey });
  expect(listed.stdout + listed.stderr).not.toContain('not-a-real-key');
  for (const [flags, said] of [
    [['--private-key'], '--private-key needs --client-id'],
    [['--client-id', 'x', '--client-secret', '--private-key'], 'two ways for the client to prove itself'],
    [['--client-id', 'x', '--signing-algorithm', 'RS256'], '--signing-algorithm needs --private-key'],
    [['--client-id', 'x', '--private-key', '--signing-algorithm', 'HS256'], '--signing-algorithm must be one of'],
    [['--client-id', 'x', '--client-credentials'], '--client-credentials needs --client-secret or --private-key'],
  ] as const) {
    const refused = await mcp(['add', '--cwd', project, '-t', 'http', ...flags, 'bad', 'https://api.example.com/mcp']);
    expect(refused.code, flags.join(' ')).not.toBe(0);
    expect(refused.stderr).toContain(said);
  }
  const stdio = await mcp(['add', '--cwd', project, '--private-key', 'fs', '--', 'npx', 'server']);
  expect(stdio.stderr).toContain('are for http and sse servers');
});

it('--client-id/--client-secret/--callback-port write a pre-registered OAuth client, the secret by reference only', async () => {
  const added = await mcp(['add', '--cwd', project, '-s', 'project', '-t', 'http', '--client-id', 'my-client', '--client-secret', '--callback-port', '8123', 'api', 'https://api.example.com/mcp']);
  expect(added.code, added.stderr).toBe(0);
  const entry = json(path.join(project, '.mcp.json')).mcpServers.api;
  expect(entry).toEqual({ type: 'http', url: 'https://api.example.com/mcp', oauth: { clientId: 'my-client', clientSecret: '${MCP_CLIENT_SECRET}', callbackPort: 8123 } });
  const loaded = loadMcpConfig({ cwd: project, homeDir: home, env: { MCP_CLIENT_SECRET: 'the-secret' } });
  const config = loaded.servers.get('api')?.config;
  expect(config?.type === 'http' ? config.oauth : undefined).toEqual({ clientId: 'my-client', clientSecret: 'the-secret', callbackPort: 8123 });
  const stdio = await mcp(['add', '--cwd', project, '--client-id', 'x', 'fs', '--', 'npx', 'server']);
  expect(stdio.code).not.toBe(0);
  expect(stdio.stderr).toContain('are for http and sse servers');
});
