/**
 * A session's plugins (Claude Code's plugin format): those the session names (`plugins`: `--plugin-dir`, the Agent
 * SDK's `plugins`) and those the settings enable (`enabledPlugins`, installed from a marketplace: settings/plugin-
 * install.ts). Each is read once (settings/plugin-folder.ts) and feeds the house's own loaders — nothing here runs a
 * part itself: skills and commands go to the command catalogue and hooks to the settings' hooks (both through
 * `createToolRuntime`'s `settings.plugins`), agents to the session's agent definitions, MCP servers to the session's
 * one MCP start-up, named `plugin:<plugin>:<server>` so their tools are `mcp__plugin_<plugin>_<server>__<tool>`.
 */
import os from 'node:os';
import path from 'node:path';
import type { AgentDefinition } from '../agent/types.js';
import { parseMcpServersObject } from '../mcp/config.js';
import type { ScopedMcpServer } from '../mcp/load-config.js';
import { pluginAgents } from '../settings/plugin-agents.js';
import { readPluginFolder, type PluginFolder } from '../settings/plugin-folder.js';
import { describePlugin } from '../settings/plugin-describe.js';
import { enabledInstalledPlugins, installPlugin, setPluginEnabled } from '../settings/plugin-install.js';
import type { SettingSourceName } from '../settings/load-settings.js';
import { SessionOptionError, type SessionOptions } from './options.js';

export interface SessionPlugins {
  readonly folders: readonly PluginFolder[];
  readonly agents: readonly AgentDefinition[];
  readonly mcpServers: ReadonlyMap<string, ScopedMcpServer>;
}

export interface PluginLoad {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly homeDir: string;
  readonly sources: readonly SettingSourceName[];
  readonly settingsFiles: readonly string[];
  readonly settingsObject: Record<string, unknown>;
  readonly warn: (text: string) => void;
}

/**
 * The session's plugins. A plugin the session names that cannot be read stops the session (it was asked for: running
 * without it would run without its hooks); one the settings enable is left out with a warning.
 */
export function loadSessionPlugins(options: SessionOptions, c: PluginLoad): SessionPlugins {
  const folders: PluginFolder[] = [];
  const problems: string[] = [];
  const add = (dir: string, named: boolean) => {
    const r = readPluginFolder(dir);
    for (const w of r.warnings) c.warn(`warning: plugin ${dir}: ${w}`);
    if (!r.plugin) {
      if (named) problems.push(...r.errors);
      else c.warn(`warning: plugin ${dir} not loaded: ${r.errors.join('; ')}`);
      return;
    }
    const same = folders.find((f) => f.name === r.plugin!.name);
    if (same && same.root === r.plugin.root) return;
    if (same) {
      (named ? problems : []).push(`two plugins are named "${same.name}": ${same.root} and ${r.plugin.root}`);
      if (!named) c.warn(`warning: plugin ${r.plugin.root} not loaded: a plugin named "${same.name}" is already loaded (${same.root})`);
      return;
    }
    folders.push(r.plugin);
  };
  for (const dir of options.plugins ?? []) add(path.resolve(c.cwd, dir), true);
  if (problems.length > 0) throw new SessionOptionError(`plugins could not be loaded:\n  ${problems.join('\n  ')}`);
  const enabled = enabledInstalledPlugins({ cwd: c.cwd, env: c.env, homeDir: c.homeDir, sources: c.sources, settingsFiles: c.settingsFiles, settingsObject: c.settingsObject });
  for (const w of enabled.warnings) c.warn(`warning: ${w}`);
  for (const dir of enabled.folders) add(dir, false);

  const agentWarnings: string[] = [];
  const agents = folders.flatMap((f) => pluginAgents(f, agentWarnings));
  for (const w of agentWarnings) c.warn(`warning: ${w}`);
  return { folders, agents, mcpServers: pluginMcpServers(folders, c) };
}

function pluginMcpServers(folders: readonly PluginFolder[], c: PluginLoad): Map<string, ScopedMcpServer> {
  const servers = new Map<string, ScopedMcpServer>();
  for (const plugin of folders) {
    for (const part of plugin.mcpServers) {
      const parsed = parseMcpServersObject(part.json, part.file, { ...c.env, CLAUDE_PLUGIN_ROOT: plugin.root });
      for (const p of parsed.problems) c.warn(`warning: MCP config ${p.file}${p.server ? ` (server "${p.server}")` : ''}: ${p.message}`);
      for (const [name, config] of parsed.servers) {
        const full = `plugin:${plugin.name}:${name}`;
        // A plugin's stdio server starts in the plugin's folder unless it says otherwise.
        const placed = config.type === 'stdio' || config.type === undefined ? { ...config, cwd: (config as { cwd?: string }).cwd ?? plugin.root } : config;
        servers.set(full, { name: full, config: placed as typeof config, scope: 'plugin', file: part.file, approval: 'approved' });
      }
    }
  }
  return servers;
}

/**
 * Installs `plugin@marketplace` from a marketplace the session's settings declare, and enables it in the user's
 * settings: `confirm` is shown what the plugin contains (each hook's command, each MCP server's command line) and
 * decides. The plugin loads when a session starts.
 */
export async function installSessionPlugin(
  options: SessionOptions,
  where: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
  ref: string,
  confirm: (contents: readonly string[]) => Promise<boolean>,
): Promise<{ readonly installed: false } | { readonly installed: true; readonly path: string; readonly settingsFile: string }> {
  const o = {
    cwd: where.cwd,
    env: where.env,
    homeDir: where.env.HOME ?? os.homedir(),
    sources: [...(options.settingSources ?? ['user', 'project', 'local']), 'managed'] as SettingSourceName[],
    settingsFiles: options.settingsFiles ?? [],
    settingsObject: { ...options.settings },
  };
  const done = await installPlugin(ref, o, (plugin) => confirm(describePlugin(plugin)));
  if (!done) return { installed: false };
  return { installed: true, path: done.installed.path, settingsFile: setPluginEnabled(ref, true, o) };
}
