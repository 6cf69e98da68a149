/**
 * What a plugin contains, one line each — what it adds (commands, skills, agents) and, above all, what it would run
 * (each hook's command or URL, each MCP server's command line or URL): shown to a person before it is installed and
 * by `toolgate plugin validate`.
 */
import { discoverCommandFiles } from './command-files.js';
import { pluginAgents } from './plugin-agents.js';
import type { PluginFolder } from './plugin-folder.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function describePlugin(plugin: PluginFolder): string[] {
  const lines = [`plugin ${plugin.name}${plugin.version ? ` ${plugin.version}` : ''} (${plugin.root})${plugin.description ? `: ${plugin.description}` : ''}`];
  const found = discoverCommandFiles({ projectDir: plugin.root, sources: [], plugins: [plugin] });
  for (const f of found.files) lines.push(`  ${f.kind} /${f.name}`);
  for (const a of pluginAgents(plugin, [])) lines.push(`  agent ${a.agentType}`);
  for (const part of plugin.hooks) {
    if (!isObject(part.hooks)) continue;
    for (const [event, groups] of Object.entries(part.hooks)) {
      for (const g of Array.isArray(groups) ? groups : []) {
        const handlers = isObject(g) && Array.isArray(g.hooks) ? g.hooks : [];
        for (const h of handlers) {
          if (!isObject(h)) continue;
          const what = handlerText(h);
          lines.push(`  hook ${event}${isObject(g) && typeof g.matcher === 'string' && g.matcher !== '' ? ` (${g.matcher})` : ''}: ${what}`);
        }
      }
    }
  }
  for (const part of plugin.mcpServers) {
    const servers = isObject(part.json) && isObject(part.json.mcpServers) ? part.json.mcpServers : {};
    for (const [name, s] of Object.entries(servers)) {
      if (!isObject(s)) continue;
      const what = typeof s.command === 'string' ? `runs ${s.command}${Array.isArray(s.args) ? ` ${s.args.map(String).join(' ')}` : ''}` : typeof s.url === 'string' ? `connects to ${s.url}` : 'a server';
      lines.push(`  MCP server ${name} (tools mcp__plugin_${plugin.name}_${name}__*): ${what}`);
    }
  }
  if (lines.length === 1) lines.push('  (nothing: no commands, skills, agents, hooks or MCP servers)');
  return lines;
}

/**
 * What one hook handler does, in the words the person needs to consent: the command line, or the URL and the
 * environment variables its headers carry there (a token of the person's, `allowedEnvVars`). Claude Code's
 * `mcp_tool`, `prompt` and `agent` hooks are parsed but not run by toolgate: said, with what they would call.
 */
function handlerText(h: Record<string, unknown>): string {
  if (typeof h.command === 'string') return `runs ${h.command}${Array.isArray(h.args) ? ` ${h.args.map(String).join(' ')}` : ''}`;
  if (typeof h.url === 'string') return `posts to ${h.url}${Array.isArray(h.allowedEnvVars) && h.allowedEnvVars.length > 0 ? ` (sending $${h.allowedEnvVars.map(String).join(', $')})` : ''}`;
  if (h.type === 'mcp_tool') return `an mcp_tool hook calling ${String(h.tool)} of server ${String(h.server)} (not run by toolgate)`;
  if (h.type === 'prompt' || h.type === 'agent') return `a ${h.type} hook (not run by toolgate)`;
  return `a ${String(h.type)} hook`;
}
