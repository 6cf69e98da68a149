/**
 * Agent definitions: the built-in ones (a general-purpose agent, a read-only explorer, a planner) and Markdown files
 * with YAML frontmatter from the user's and the project's `.claude/agents/` folders (Claude Code's format: `name`,
 * `description`, `tools`, `disallowedTools`, `model`, `permissionMode`; the body is the system prompt). A project
 * definition replaces a user one of the same name, which replaces a built-in one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { PERMISSION_MODES, type PermissionMode } from '../../tool/permission-types.js';
import { readConfigText } from '../../tool/read-config-file.js';

export interface AgentDefinition {
  readonly agentType: string;
  readonly description: string;
  /** Allow-list of tool names (`*` or absent: every tool the parent may give). */
  readonly tools?: readonly string[];
  /** Removed first, whatever `tools` says. */
  readonly disallowedTools?: readonly string[];
  /** `sonnet`, `opus`, `haiku`, a full model id, or `inherit` (absent: inherit). */
  readonly model?: string;
  readonly permissionMode?: PermissionMode;
  readonly systemPrompt: string;
  /** `session`: given by a program for one session (the Agent SDK face's `agents`). */
  readonly source: 'built-in' | 'user' | 'project' | 'session' | 'plugin';
  readonly file?: string;
}

const READ_ONLY_DENY = ['Edit', 'Write', 'NotebookEdit', 'Agent'];

export const BUILT_IN_AGENTS: readonly AgentDefinition[] = [
  {
    agentType: 'general-purpose',
    description: 'General agent for multi-step tasks: researching, searching code, making changes. Use it when a task needs several rounds of searching and reading, or to run independent work in parallel.',
    source: 'built-in',
    systemPrompt:
      'You are a sub-agent working on one task for the main agent. Do the task completely with the tools you have, ' +
      'then answer with a concise report: what you found or changed, with file paths, and anything left undone. The ' +
      'main agent sees only your final message.',
  },
  {
    agentType: 'Explore',
    description: 'Read-only explorer: finds files, searches code, reads and summarises. It cannot edit anything. Say how thorough to be.',
    disallowedTools: READ_ONLY_DENY,
    permissionMode: 'plan',
    source: 'built-in',
    systemPrompt:
      'You are a read-only exploration sub-agent. Find and read what the task asks about — search broadly, then ' +
      'read the relevant parts — and answer with the facts, the file paths and line numbers. You cannot change ' +
      'files; do not try.',
  },
  {
    agentType: 'Plan',
    description: 'Planner: explores the code read-only and returns a step-by-step implementation plan with the files to change.',
    disallowedTools: READ_ONLY_DENY,
    permissionMode: 'plan',
    source: 'built-in',
    systemPrompt:
      'You are a planning sub-agent. Explore the code read-only, then answer with an implementation plan: the ' +
      'steps in order, the files and functions each touches, the risks, and how to check the result. You cannot ' +
      'change files.',
  },
];

export class AgentDefinitionError extends Error {
  override readonly name = 'AgentDefinitionError';
}

function listField(value: unknown, field: string, file: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((v) => v.trim()).filter(Boolean);
  throw new AgentDefinitionError(`${file}: "${field}" must be a comma-separated string or a list of tool names`);
}

/** One Markdown definition; throws AgentDefinitionError naming the file and the field. */
export function parseAgentMarkdown(text: string, file: string, source: 'user' | 'project' | 'plugin'): AgentDefinition {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!m) throw new AgentDefinitionError(`${file}: no frontmatter (the file must start with a --- block)`);
  let front: unknown;
  try {
    front = yaml.load(m[1]!, { schema: yaml.JSON_SCHEMA });
  } catch (error) {
    throw new AgentDefinitionError(`${file}: the frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (front === null || typeof front !== 'object' || Array.isArray(front)) throw new AgentDefinitionError(`${file}: the frontmatter must be a mapping`);
  const f = front as Record<string, unknown>;
  if (typeof f.name !== 'string' || !/^[A-Za-z0-9_:.-]{1,64}$/.test(f.name)) {
    throw new AgentDefinitionError(`${file}: "name" must be a word of letters, digits, - _ : . (at most 64)`);
  }
  if (typeof f.description !== 'string' || f.description.trim() === '') throw new AgentDefinitionError(`${file}: "description" is required`);
  if (f.model !== undefined && typeof f.model !== 'string') throw new AgentDefinitionError(`${file}: "model" must be a string`);
  if (f.permissionMode !== undefined && !(PERMISSION_MODES as readonly unknown[]).includes(f.permissionMode)) {
    throw new AgentDefinitionError(`${file}: "permissionMode" must be one of ${PERMISSION_MODES.join(', ')}`);
  }
  return {
    agentType: f.name,
    description: f.description.trim(),
    tools: listField(f.tools, 'tools', file),
    disallowedTools: listField(f.disallowedTools, 'disallowedTools', file),
    model: f.model as string | undefined,
    permissionMode: f.permissionMode as PermissionMode | undefined,
    systemPrompt: m[2]!.trim(),
    source,
    file,
  };
}

export interface LoadedAgents {
  readonly agents: readonly AgentDefinition[];
  /** Files that could not be read or parsed, one line each (they are skipped, not fatal). */
  readonly errors: readonly string[];
}

function readFolder(dir: string, source: 'user' | 'project', errors: string[]): AgentDefinition[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.md')).sort();
  } catch {
    return [];
  }
  const out: AgentDefinition[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const read = readConfigText(file);
    if (read.kind !== 'ok') {
      if (read.kind === 'error') errors.push(`${file}: ${read.message}`);
      continue;
    }
    try {
      out.push(parseAgentMarkdown(read.text, file, source));
    } catch (error) {
      errors.push(error instanceof AgentDefinitionError ? error.message : `${file}: ${(error as Error).message}`);
    }
  }
  return out;
}

/** Built-ins, then `~/.claude/agents`, then `<project>/.claude/agents`; a later definition of a name wins. */
export function loadAgentDefinitions(projectDir: string, homeDir: string = os.homedir()): LoadedAgents {
  const errors: string[] = [];
  const byName = new Map<string, AgentDefinition>();
  for (const d of BUILT_IN_AGENTS) byName.set(d.agentType, d);
  for (const d of readFolder(path.join(homeDir, '.claude', 'agents'), 'user', errors)) byName.set(d.agentType, d);
  if (path.resolve(projectDir) !== path.resolve(homeDir)) {
    for (const d of readFolder(path.join(projectDir, '.claude', 'agents'), 'project', errors)) byName.set(d.agentType, d);
  }
  return { agents: [...byName.values()], errors };
}
