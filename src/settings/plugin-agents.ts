/**
 * A plugin's agents: each `.md` of its agents folders (or a single file the manifest names), read with the Agent
 * tool's own parser and named `<plugin>:<name>`, as Claude Code names them. As in Claude Code, a plugin's agent may
 * not choose its permission mode: `permissionMode` is dropped with a warning (a plugin never widens permissions).
 * A file that resolves outside the plugin is left out.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { AgentDefinitionError, parseAgentMarkdown, type AgentDefinition } from '../tools/agent/agent-definitions.js';
import { readConfigText } from '../tool/read-config-file.js';
import { isInside, type PluginFolder } from './plugin-folder.js';

export function pluginAgents(plugin: PluginFolder, warnings: string[]): AgentDefinition[] {
  const out: AgentDefinition[] = [];
  for (const part of plugin.agents) {
    let files: string[];
    try {
      files = statSync(part).isDirectory() ? readdirSync(part).filter((n) => n.endsWith('.md') && !n.startsWith('.')).sort().map((n) => path.join(part, n)) : [part];
    } catch (error) {
      warnings.push(`${part}: could not be listed (${(error as Error).message}); its agents are not loaded`);
      continue;
    }
    for (const file of files) {
      if (!isInside(plugin.root, file)) {
        warnings.push(`${file}: leads outside the plugin ${plugin.name} (a symlink); not loaded`);
        continue;
      }
      const read = readConfigText(file);
      if (read.kind !== 'ok') {
        if (read.kind === 'error') warnings.push(`${file}: ${read.message}`);
        continue;
      }
      try {
        const d = parseAgentMarkdown(read.text, file, 'plugin');
        if (d.permissionMode !== undefined) warnings.push(`${file}: "permissionMode" is ignored in a plugin's agent (a plugin never changes permissions)`);
        const { permissionMode: _dropped, ...rest } = d;
        out.push({ ...rest, agentType: `${plugin.name}:${d.agentType}` });
      } catch (error) {
        warnings.push(error instanceof AgentDefinitionError ? error.message : `${file}: ${(error as Error).message}`);
      }
    }
  }
  return out;
}
