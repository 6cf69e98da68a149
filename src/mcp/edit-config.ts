/**
 * Adding and removing MCP servers where Claude Code keeps them (`claude mcp add|add-json|remove`), so both agents see
 * the same servers:
 *   local   → `~/.claude.json` → `projects["<project>"].mcpServers` (you, this project)
 *   project → `<project>/.mcp.json` → `mcpServers` (everyone with the repository; started only once approved)
 *   user    → `~/.claude.json` → `mcpServers` (you, every project)
 * Every write goes through the house's one settings writer (settings/grants.ts `editSettingsFile`): other keys and the
 * file's indentation are kept, a file that is not valid JSON is never overwritten.
 */
import os from 'node:os';
import path from 'node:path';
import { editSettingsFile } from '../settings/grants.js';
import { parseMcpServerConfig } from './config.js';

export type McpWriteScope = 'local' | 'project' | 'user';
export const MCP_WRITE_SCOPES: readonly McpWriteScope[] = ['local', 'project', 'user'];

export interface McpConfigLocation {
  /** The project: `.mcp.json` is in it, and the local scope is keyed by it. */
  readonly projectDir: string;
  readonly homeDir?: string;
}

export class McpConfigEditError extends Error {
  override readonly name = 'McpConfigEditError';
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The file a scope's servers are in, and where in it (for messages). */
export function mcpScopeFile(scope: McpWriteScope, where: McpConfigLocation): { file: string; place: string } {
  const projectDir = path.resolve(where.projectDir);
  const global = path.join(where.homeDir ?? os.homedir(), '.claude.json');
  switch (scope) {
    case 'local':
      return { file: global, place: `${global} [project: ${projectDir}]` };
    case 'project':
      return { file: path.join(projectDir, '.mcp.json'), place: path.join(projectDir, '.mcp.json') };
    case 'user':
      return { file: global, place: global };
  }
}

/** The scope's `mcpServers` object inside the file's JSON (created when `create`), or undefined. */
function serversIn(settings: Json, scope: McpWriteScope, projectDir: string, create: boolean): Json | undefined {
  let holder: Json = settings;
  if (scope === 'local') {
    if (settings.projects === undefined && create) settings.projects = {};
    const projects = settings.projects;
    if (projects === undefined) return undefined;
    if (!isObject(projects)) throw new McpConfigEditError('"projects" is not an object; not changed');
    if (projects[projectDir] === undefined && create) projects[projectDir] = {};
    const entry = projects[projectDir];
    if (entry === undefined) return undefined;
    if (!isObject(entry)) throw new McpConfigEditError(`"projects[${JSON.stringify(projectDir)}]" is not an object; not changed`);
    holder = entry;
  }
  if (holder.mcpServers === undefined && create) holder.mcpServers = {};
  const servers = holder.mcpServers;
  if (servers === undefined) return undefined;
  if (!isObject(servers)) throw new McpConfigEditError('"mcpServers" is not an object; not changed');
  return servers;
}

/** Claude Code's rule for names, which become part of every tool's name (`mcp__<name>__<tool>`). */
export function checkMcpServerName(name: string): void {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new McpConfigEditError(`invalid MCP server name ${JSON.stringify(name)}: use letters, digits, - and _ only`);
}

/** The entry checked as the loader will read it (`${VAR}`s may stay unset until the server starts). */
export function checkMcpServerEntry(name: string, entry: unknown): void {
  const problems = parseMcpServerConfig(name, entry, process.env).problems.filter((p) => !p.startsWith('environment variable'));
  if (problems.length > 0) throw new McpConfigEditError(`MCP server "${name}": ${problems.join('; ')}`);
}

/** A project's `.mcp.json` is the repository's: no link below the project is read or replaced (settings/grants.ts). */
function inRepository(scope: McpWriteScope, where: McpConfigLocation): { within?: string } {
  return scope === 'project' ? { within: path.resolve(where.projectDir) } : {};
}

/** Writes `entry` as server `name` in `scope`; refuses a name the scope already has. Returns where it went. */
export function addMcpServer(name: string, entry: Json, scope: McpWriteScope, where: McpConfigLocation): { file: string; place: string } {
  checkMcpServerName(name);
  checkMcpServerEntry(name, entry);
  const target = mcpScopeFile(scope, where);
  editSettingsFile(target.file, (settings) => {
    const servers = serversIn(settings, scope, path.resolve(where.projectDir), true)!;
    if (Object.hasOwn(servers, name)) throw new McpConfigEditError(`MCP server "${name}" already exists in ${scope} config (${target.place}); remove it first`);
    servers[name] = entry;
    return true;
  }, inRepository(scope, where));
  return target;
}

/** The scopes (of the three a person writes) that hold a server named `name`. */
export function mcpServerScopes(name: string, where: McpConfigLocation): McpWriteScope[] {
  return MCP_WRITE_SCOPES.filter((scope) => {
    let found = false;
    editSettingsFile(mcpScopeFile(scope, where).file, (settings) => {
      found = Object.hasOwn(serversIn(settings, scope, path.resolve(where.projectDir), false) ?? {}, name);
      return false; // read only
    });
    return found;
  });
}

/**
 * Removes server `name` from `scope`, or (no scope) from the one scope that has it; a name in several scopes needs
 * the scope said, as with claude.
 */
export function removeMcpServer(name: string, scope: McpWriteScope | undefined, where: McpConfigLocation): { scope: McpWriteScope; file: string; place: string } {
  const holding = mcpServerScopes(name, where);
  if (scope !== undefined && !holding.includes(scope)) {
    throw new McpConfigEditError(`no MCP server named "${name}" in ${scope} config (${mcpScopeFile(scope, where).place})${holding.length > 0 ? `; it is in: ${holding.join(', ')}` : ''}`);
  }
  if (scope === undefined && holding.length === 0) throw new McpConfigEditError(`no MCP server named "${name}" in local, project or user config`);
  if (scope === undefined && holding.length > 1) {
    throw new McpConfigEditError(`MCP server "${name}" is in several scopes (${holding.join(', ')}): say which with --scope`);
  }
  const from = scope ?? holding[0]!;
  const target = mcpScopeFile(from, where);
  editSettingsFile(target.file, (settings) => {
    const servers = serversIn(settings, from, path.resolve(where.projectDir), false);
    if (!servers || !Object.hasOwn(servers, name)) return false;
    delete servers[name];
    return true;
  }, inRepository(from, where));
  return { scope: from, ...target };
}
