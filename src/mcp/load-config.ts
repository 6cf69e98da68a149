/**
 * Where MCP servers are configured, as in Claude Code: `--mcp-config` (files or inline JSON), the local scope
 * (`~/.claude.json` → `projects[<project>].mcpServers`, and `mcpServers` in local settings), the project's
 * `.mcp.json`, and the user scope (`~/.claude.json` → `mcpServers`, `mcpServers` in user settings). On a name clash the
 * higher scope wins: flag → local → project → user → managed.
 *
 * Project servers (`.mcp.json`, or `mcpServers` in the committed `.claude/settings.json`) run code the repository
 * chose, so they start only once approved: `enableAllProjectMcpServers`, `enabledMcpjsonServers`, or the person when
 * asked; `disabledMcpjsonServers` always wins. Approvals are read from every settings scope except the committed
 * project file — a repository cannot approve its own servers.
 */
import os from 'node:os';
import path from 'node:path';
import { defaultManagedSettingsPath } from '../settings/load-settings.js';
import { isInlineJson, parseConfigJson, readConfigText } from '../tool/read-config-file.js';
import { parseMcpServersObject, type McpConfigProblem, type McpConfigScope, type McpServerConfig } from './config.js';

export type McpApproval = 'approved' | 'pending' | 'rejected';

export interface ScopedMcpServer {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly scope: McpConfigScope;
  /** The file (or `--mcp-config` argument) the entry is in. */
  readonly file: string;
  /** Project servers only need approval; every other scope is `approved`. */
  readonly approval: McpApproval;
}

/** Where `loadMcpConfig` looks: the project, the home directory, `--mcp-config` files or JSON, strict mode. */
export interface LoadMcpConfigOptions {
  readonly cwd: string;
  /** Where `.mcp.json` and `.claude/` live (default: cwd). */
  readonly projectDir?: string;
  readonly homeDir?: string;
  /** `--mcp-config` arguments: paths or inline JSON objects with `mcpServers`. */
  readonly mcpConfigs?: readonly string[];
  /** `--strict-mcp-config`: only the servers of `mcpConfigs`. */
  readonly strict?: boolean;
  /** `--settings` arguments and an in-memory settings object (command-line level). */
  readonly flagSettings?: readonly string[];
  readonly settingsObject?: Record<string, unknown>;
  /** Which of the settings files to read (default: all; `[]` reads none — tests, servers). */
  readonly sources?: readonly ('user' | 'project' | 'local' | 'managed')[];
  readonly managedSettingsPath?: string;
  /** For `${VAR}` expansion (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The MCP servers of a session with their scope and approval, and what was wrong in the files. */
export interface LoadedMcpConfig {
  /** By name, in the order the scopes were read (stable). */
  readonly servers: ReadonlyMap<string, ScopedMcpServer>;
  readonly problems: readonly McpConfigProblem[];
}

interface Source {
  readonly scope: McpConfigScope;
  readonly file: string;
  readonly json: unknown;
  /** Its approval keys count (every settings scope but the committed project file). */
  readonly approves: boolean;
  /** Its `mcpServers` are project servers (need approval). */
  readonly isProject: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads the MCP servers from Claude Code's files, unchanged: `.mcp.json`, `~/.claude.json`, settings, `--mcp-config`. */
export function loadMcpConfig(options: LoadMcpConfigOptions): LoadedMcpConfig {
  const cwd = path.resolve(options.cwd);
  const projectDir = path.resolve(cwd, options.projectDir ?? cwd);
  const homeDir = path.resolve(options.homeDir ?? os.homedir());
  const env = options.env ?? process.env;
  const sources = new Set(options.sources ?? ['user', 'project', 'local', 'managed']);
  const problems: McpConfigProblem[] = [];
  const read = (file: string): unknown => readJson(file, problems);

  // Highest precedence first.
  const list: Source[] = [];
  for (const arg of options.mcpConfigs ?? []) {
    const inline = isInlineJson(arg);
    const file = inline ? '--mcp-config (inline JSON)' : path.resolve(cwd, arg);
    const json = inline ? parseInline(arg, problems) : read(file);
    if (!inline && json === undefined) problems.push({ file, message: 'the --mcp-config file does not exist' });
    list.push({ scope: 'flag', file, json, approves: false, isProject: false });
  }
  if (!options.strict) {
    for (const arg of options.flagSettings ?? []) {
      const inline = isInlineJson(arg);
      const file = inline ? '--settings (inline JSON)' : path.resolve(cwd, arg);
      list.push({ scope: 'flag', file, json: inline ? parseInline(arg, problems) : read(file), approves: true, isProject: false });
    }
    if (options.settingsObject) list.push({ scope: 'flag', file: 'settings object', json: options.settingsObject, approves: true, isProject: false });
    const globalConfig = sources.has('user') || sources.has('local') ? read(path.join(homeDir, '.claude.json')) : undefined;
    if (sources.has('local')) {
      const projects = isObject(globalConfig) && isObject(globalConfig.projects) ? globalConfig.projects : {};
      const entry = projects[projectDir];
      if (entry !== undefined) list.push({ scope: 'local', file: `${path.join(homeDir, '.claude.json')} (projects["${projectDir}"])`, json: entry, approves: true, isProject: false });
      for (const dir of ['.toolgate', '.claude']) {
        const file = path.join(projectDir, dir, 'settings.local.json');
        list.push({ scope: 'local', file, json: read(file), approves: true, isProject: false });
      }
    }
    if (sources.has('project')) {
      const file = path.join(projectDir, '.mcp.json');
      list.push({ scope: 'project', file, json: read(file), approves: false, isProject: true });
      for (const dir of ['.toolgate', '.claude']) {
        const settings = path.join(projectDir, dir, 'settings.json');
        list.push({ scope: 'project', file: settings, json: read(settings), approves: false, isProject: true });
      }
    }
    if (sources.has('user')) {
      list.push({ scope: 'user', file: path.join(homeDir, '.claude.json'), json: globalConfig, approves: false, isProject: false });
      for (const dir of ['.toolgate', '.claude']) {
        const file = path.join(homeDir, dir, 'settings.json');
        list.push({ scope: 'user', file, json: read(file), approves: true, isProject: false });
      }
    }
    if (sources.has('managed')) {
      const file = options.managedSettingsPath ?? defaultManagedSettingsPath();
      list.push({ scope: 'managed', file, json: read(file), approves: true, isProject: false });
    }
  }

  const approval = approvalKeys(list, problems);
  const servers = new Map<string, ScopedMcpServer>();
  for (const source of list) {
    if (source.json === undefined) continue;
    const parsed = parseMcpServersObject(source.json, source.file, env);
    problems.push(...parsed.problems);
    for (const [name, config] of parsed.servers) {
      if (servers.has(name)) continue; // a higher scope already named it
      const state: McpApproval = !source.isProject
        ? 'approved'
        : approval.disabled.has(name)
          ? 'rejected'
          : approval.all || approval.enabled.has(name)
            ? 'approved'
            : 'pending';
      servers.set(name, { name, config, scope: source.scope, file: source.file, approval: state });
    }
  }
  return { servers, problems };
}

function approvalKeys(list: readonly Source[], problems: McpConfigProblem[]): { all: boolean; enabled: Set<string>; disabled: Set<string> } {
  const enabled = new Set<string>();
  const disabled = new Set<string>();
  let all = false;
  for (const s of list) {
    if (!s.approves || !isObject(s.json)) continue;
    const j = s.json;
    if (j.enableAllProjectMcpServers === true) all = true;
    for (const [key, into] of [['enabledMcpjsonServers', enabled], ['disabledMcpjsonServers', disabled]] as const) {
      const v = j[key];
      if (v === undefined) continue;
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) problems.push({ file: s.file, message: `"${key}" must be an array of server names` });
      else for (const name of v) into.add(name);
    }
  }
  return { all, enabled, disabled };
}

function readJson(file: string, problems: McpConfigProblem[]): unknown {
  const read = readConfigText(file);
  if (read.kind === 'missing') return undefined;
  if (read.kind === 'error') {
    problems.push({ file, message: `cannot read: ${read.message}` });
    return undefined;
  }
  if (read.text.trim() === '') return undefined;
  return parseJson(read.text, file, problems);
}

function parseInline(text: string, problems: McpConfigProblem[]): unknown {
  return parseJson(text, '--mcp-config (inline JSON)', problems);
}

function parseJson(text: string, file: string, problems: McpConfigProblem[]): unknown {
  const parsed = parseConfigJson(text);
  if (parsed.ok) return parsed.json;
  const error = parsed.problem === 'depth' ? parsed.message : parsed.error;
  problems.push({ file, message: parsed.problem === 'depth' ? parsed.message : `invalid JSON: ${error instanceof Error ? error.message : String(error)}` });
  return undefined;
}
