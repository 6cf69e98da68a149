/**
 * `/plugin` in the terminal session: the plugins this session loaded and what each added — commands and skills
 * (`/plugin:name`), agents, MCP servers with their state. Installing is `toolgate plugin install` (it shows what the
 * plugin would run and asks); a plugin installed or enabled there loads when a session starts.
 */
import type { TerminalSession } from './session.js';

export async function pluginCommand(terminal: TerminalSession): Promise<void> {
  const { store, session } = terminal;
  const plugins = session.plugins;
  const how = 'Install one from a marketplace of your settings with `toolgate plugin install PLUGIN@MARKETPLACE` (it shows what the plugin runs and asks), or load a folder with --plugin-dir; plugins load when a session starts.';
  if (plugins.length === 0) return store.notice(`No plugins in this session.\n${how}`);
  const [commands, agents, servers] = await Promise.all([session.commands(), session.agents(), session.mcpStatus()]);
  const lines = ['Plugins:'];
  for (const p of plugins) {
    lines.push(`  ${p.name}  (${p.path})`);
    for (const c of commands.filter((c) => c.name.startsWith(`${p.name}:`))) lines.push(`    ${c.kind} /${c.name}${c.description ? ` — ${c.description}` : ''}`);
    for (const a of agents.filter((a) => a.agentType.startsWith(`${p.name}:`))) lines.push(`    agent ${a.agentType}`);
    for (const s of servers.filter((s) => s.name.startsWith(`plugin:${p.name}:`))) lines.push(`    MCP server ${s.name}: ${s.status}${s.tools.length > 0 ? ` (${s.tools.length} tools)` : ''}`);
  }
  lines.push('', how);
  store.notice(lines.join('\n'));
}
