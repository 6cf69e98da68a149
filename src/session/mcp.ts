/**
 * A session's MCP servers, started in one place for every face: the session's own (`mcpServers`, in-process ones
 * included), then — unless `strictMcpConfig` — those the settings files and the project's `.mcp.json` name, as Claude
 * Code reads them. Project servers nobody approved stay stopped, said once with the setting that approves them.
 */
import path from 'node:path';
import type { SettingSource, ToolRuntime } from '../agent/types.js';
import { loadMcpConfig, type ScopedMcpServer } from '../mcp/load-config.js';
import { McpClientManager } from '../mcp/manager.js';
import { normalizeNameForMcp } from '../mcp/names.js';
import type { SessionOptions } from './options.js';

export interface McpStart {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly homeDir: string;
  readonly sources: readonly SettingSource[];
  readonly settingsFiles: readonly string[];
  readonly settingsObject: Record<string, unknown>;
  readonly warn: (text: string) => void;
  /** The plugins' servers (`plugin:<plugin>:<server>`), started unless `strictMcpConfig`. */
  readonly pluginServers?: ReadonlyMap<string, ScopedMcpServer>;
}

/** The session's MCP servers as one manager; undefined when there are none. */
export function startMcpServers(options: SessionOptions, c: McpStart): McpClientManager | undefined {
  const servers = new Map<string, ScopedMcpServer>();
  for (const [name, config] of Object.entries(options.mcpServers ?? {})) {
    servers.set(name, { name, config, scope: 'flag', file: 'the session\'s MCP servers', approval: 'approved' });
  }
  if (!options.strictMcpConfig) {
    const loaded = loadMcpConfig({ cwd: c.cwd, homeDir: c.homeDir, sources: c.sources, env: c.env, ...(c.settingsFiles.length > 0 ? { flagSettings: [...c.settingsFiles] } : {}), settingsObject: c.settingsObject });
    for (const p of loaded.problems) c.warn(`warning: MCP config ${p.file}${p.server ? ` (server "${p.server}")` : ''}: ${p.message}`);
    for (const [name, server] of loaded.servers) if (!servers.has(name)) servers.set(name, server);
    for (const [name, server] of c.pluginServers ?? []) if (!servers.has(name)) servers.set(name, server);
    const pending = [...loaded.servers.values()].filter((s) => s.approval === 'pending').map((s) => s.name);
    if (pending.length > 0) c.warn(`warning: MCP servers of .mcp.json not approved, not started: ${pending.join(', ')} (approve with "enabledMcpjsonServers" in .claude/settings.local.json)`);
  }
  dropAmbiguousNames(servers, c.warn);
  if (servers.size === 0) return undefined;
  return new McpClientManager({
    cwd: c.cwd,
    servers,
    env: c.env,
    // roots/list: the session's working folders, nothing else.
    roots: [c.cwd, ...(options.additionalDirectories ?? []).map((d) => path.resolve(c.cwd, d))],
    ...(options.onQuestion ? { onQuestion: options.onQuestion } : {}),
    onServerEvent: (e) => {
      if (e.type === 'failed') c.warn(`warning: ${e.error.split('\n')[0]}`);
    },
  });
}

/**
 * Servers whose tool names would be the same (`mcp__<name>__`, names normalized: plugin `kit`'s server `x_srv` and
 * plugin `kit_x`'s server `srv` are both `plugin_kit_x_srv`) are not started, none of them: a permission rule or
 * hook matcher written for one would also match the other's tools (docs/security.md §9). Dropping only the later one
 * would leave the earlier in place under the rule — which may be the impostor.
 */
function dropAmbiguousNames(servers: Map<string, ScopedMcpServer>, warn: (text: string) => void): void {
  const byTool = new Map<string, string[]>();
  for (const name of servers.keys()) {
    const key = normalizeNameForMcp(name);
    byTool.set(key, [...(byTool.get(key) ?? []), name]);
  }
  for (const [key, names] of byTool) {
    if (names.length < 2) continue;
    for (const name of names) servers.delete(name);
    warn(`warning: MCP servers ${names.map((n) => `"${n}"`).join(', ')} would all have tools named mcp__${key}__*: none of them is started (rename one)`);
  }
}

/**
 * The session's working folders as MCP roots: the cwd and the permission context's working directories (`--add-dir`,
 * and any a permission answer or `/add-dir` added since), told to the servers when they changed.
 */
export async function syncMcpRoots(mcp: McpClientManager | undefined, runtime: ToolRuntime): Promise<void> {
  if (!mcp) return;
  await mcp.setRoots([runtime.cwd, ...runtime.permissionContext.additionalWorkingDirectories.keys()]);
}

/** A server's state in the Agent SDK's words (what `init` and `mcpServerStatus()` report). */
export type McpStatusWord = 'connected' | 'failed' | 'needs-auth' | 'pending' | 'disabled';

/** One MCP server as a session reports it. */
export interface SessionMcpServer {
  readonly name: string;
  readonly status: McpStatusWord;
  readonly scope: string;
  /** `sdk` for an in-process server. */
  readonly source?: string;
  readonly error?: string;
  readonly tools: readonly string[];
}

/** The manager's servers as a session reports them. */
export async function mcpStatusOf(mcp: McpClientManager | undefined): Promise<SessionMcpServer[]> {
  if (!mcp) return [];
  const status = await mcp.status();
  return status.map((s) => ({
    name: s.name,
    status: s.state === 'connected' ? 'connected' : s.state === 'failed' ? 'failed' : s.state === 'needs-login' ? 'needs-auth' : s.state === 'rejected' ? 'disabled' : 'pending',
    scope: s.scope,
    ...(s.type === 'sdk' ? { source: 'sdk' } : {}),
    ...(s.error ? { error: s.error } : {}),
    tools: [...s.tools],
  }));
}
