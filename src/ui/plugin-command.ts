/**
 * `/plugin` in the terminal session: the plugins this session loaded and what each added — commands and skills
 * (`/plugin:name`), agents, MCP servers with their state. `/plugin install PLUGIN@MARKETPLACE` installs one from a
 * marketplace of the settings: it shows what the plugin contains (each hook's command, each MCP server's command
 * line) and asks the person first; the plugin is enabled in the user's settings and loads when a session starts.
 */
import type { TerminalSession } from './session.js';

export async function pluginCommand(terminal: TerminalSession, args: readonly string[] = []): Promise<void> {
  if (args[0] === 'install') return installCommand(terminal, args[1]);
  const { store, session } = terminal;
  const plugins = session.plugins;
  const how = 'Install one from a marketplace of your settings with /plugin install PLUGIN@MARKETPLACE (it shows what the plugin runs and asks), or load a folder with --plugin-dir; plugins load when a session starts.';
  if (plugins.length === 0) return store.notice(`No plugins in this session.\n${how}`);
  const [commands, agents, servers] = await Promise.all([session.commands(), session.agents(), session.mcp.status()]);
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

async function installCommand(terminal: TerminalSession, ref: string | undefined): Promise<void> {
  const { store, session } = terminal;
  if (ref === undefined) return store.notice('/plugin install PLUGIN@MARKETPLACE — a marketplace your settings declare (extraKnownMarketplaces)', 'warn');
  try {
    const result = await session.installPlugin(ref, async (contents) => {
      store.notice(contents.join('\n'));
      const question = `Install ${ref}? Its hooks and MCP servers run as you, with your rights.`;
      const answer = await store.askQuestion({
        kind: 'choice',
        questions: [{ question, header: 'Plugin', options: [{ label: 'Install', description: 'copy it into the state folder and enable it' }, { label: 'Do not install' }] }],
        signal: new AbortController().signal,
      });
      return answer.action === 'accept' && answer.answers?.[question] === 'Install';
    });
    if (!result.installed) return store.notice(`${ref} was not installed.`);
    store.notice(`Installed ${ref} into ${result.path} and enabled it (${result.settingsFile}); it loads when a session starts.`);
  } catch (error) {
    store.notice(`/plugin install: ${(error as Error).message}`, 'warn');
  }
}
