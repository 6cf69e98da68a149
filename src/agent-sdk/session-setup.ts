/**
 * From the Agent SDK's options to one session's pieces: its environment and model client, its ids and folder, the
 * runtime (settings, rules, hooks, the permission handler, MCP servers, agents, the structured-output tool) and the
 * system prompt. Everything here belongs to the one session: nothing is read from or written to `process.env`, and no
 * two sessions share a runtime, a client or a transcript.
 */
import Anthropic from '@anthropic-ai/sdk';
import os from 'node:os';
import path from 'node:path';
import { createToolRuntime } from '../agent/create-tool-runtime.js';
import { resolveModel } from '../tool/models.js';
import { stateDirectory } from '../agent/session-dir.js';
import { latestSessionFor } from '../agent/transcript.js';
import type { QuestionAnswer, QuestionRequest, RuntimePermissionRequest, PermissionAnswer, SettingSource as RuntimeSource, ToolRuntime } from '../agent/types.js';
import { parseMcpServerConfig } from '../mcp/config.js';
import { loadMcpConfig, type ScopedMcpServer } from '../mcp/load-config.js';
import { McpClientManager } from '../mcp/manager.js';
import { createPermissionPromptTool } from '../mcp/permission-prompt-tool.js';
import type { PermissionMode as RuntimeMode } from '../tool/permission-types.js';
import type { AgentDefinition as ToolgateAgentDefinition } from '../tools/agent/agent-definitions.js';
import { hookCallbacks } from './hooks.js';
import { inProcessConfig } from './mcp.js';
import type { Options } from './options.js';
import { permissionHandler } from './permissions.js';
import { AgentSdkOptionError } from './session-options.js';
import { STRUCTURED_OUTPUT_TOOL_NAME, structuredOutputTool } from './structured-output.js';
import { randomUUID } from '../tool/crypto.js';

export interface SessionPieces {
  readonly runtime: ToolRuntime;
  readonly client: Anthropic;
  readonly env: Readonly<Record<string, string>>;
  readonly model: string;
  readonly sessionId: string;
  /** The transcript to go on from (`resume`, `continue`, a fork's source). */
  readonly resume?: string;
  readonly fork: boolean;
  readonly systemPrompt?: string;
  readonly appendSystemPrompt?: string;
  readonly mcp?: McpClientManager;
  readonly apiKeySource: 'ANTHROPIC_API_KEY' | 'none';
  readonly structuredOutput?: { readonly toolName: string };
}

export interface SetupHooks {
  /** `deny` with `interrupt: true` from `canUseTool`: the running turn ends. */
  readonly onInterrupt: () => void;
  readonly warn: (text: string) => void;
  readonly signal: AbortSignal;
  /** Settings files beyond `options.settings` (the CLI's repeatable `--settings`; later wins). */
  readonly settingsFiles?: readonly string[];
}

/** The session's environment: `options.env` replaces `process.env`, as it replaces a child process's environment. */
export function sessionEnv(options: Options): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env ?? process.env)) if (typeof v === 'string') out[k] = v;
  return out;
}

export async function setUpSession(options: Options, hooks: SetupHooks): Promise<SessionPieces> {
  const env = sessionEnv(options);
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const homeDir = env.HOME ?? os.homedir();
  const apiKey = env.ANTHROPIC_API_KEY?.trim() || undefined;
  const authToken = env.ANTHROPIC_AUTH_TOKEN?.trim() || undefined;
  if (!apiKey && !authToken) throw new AgentSdkOptionError('no API key: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (in options.env, or in the environment when options.env is not given)');
  const client = new Anthropic({
    apiKey: apiKey ?? null,
    authToken: apiKey ? null : (authToken ?? null),
    ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    maxRetries: 0,
    ...(options.betas && options.betas.length > 0 ? { defaultHeaders: { 'anthropic-beta': options.betas.join(',') } } : {}),
  });

  // Ids: a resumed session keeps its id unless it is forked; `continue` takes the newest session of this folder.
  const sessionsRoot = path.join(stateDirectory(env, homeDir), 'sessions');
  let resume = options.resume;
  if (options.continue) resume = latestSessionFor(sessionsRoot, cwd);
  const fork = resume !== undefined && options.forkSession === true;
  const sessionId = resume !== undefined && !fork ? path.basename(resume, '.jsonl') : (options.sessionId ?? randomUUID());

  const sources: RuntimeSource[] = [...(options.settingSources ?? ['user', 'project', 'local']), 'managed'];
  const settingsFile = typeof options.settings === 'string' ? options.settings : undefined;
  const settingsFiles = [...(settingsFile ? [settingsFile] : []), ...(hooks.settingsFiles ?? [])];
  const settingsObject = {
    ...(typeof options.settings === 'object' && options.settings !== null ? options.settings : {}),
    ...(options.sandbox !== undefined ? { sandbox: { ...((options.settings as { sandbox?: object } | undefined)?.sandbox ?? {}), ...options.sandbox } } : {}),
  };

  // Agents: the program's own, and the main thread's when `agent` names one.
  const agents = Object.entries(options.agents ?? {}).map(([name, d]) => agentDefinition(name, d));
  const mainAgent = options.agent !== undefined ? agents.find((a) => a.agentType === options.agent) : undefined;
  if (options.agent !== undefined && !mainAgent) throw new AgentSdkOptionError(`options.agent "${options.agent}" is not one of options.agents (${agents.map((a) => a.agentType).join(', ') || 'none given'})`);
  // The one model table, read with the session's environment (its ANTHROPIC_DEFAULT_*_MODEL, never process.env's).
  const pick = (m: string | undefined) => (m === undefined || m === 'inherit' ? undefined : resolveModel(m, env));
  const model = pick(options.model) ?? pick(mainAgent?.model) ?? resolveModel(undefined, env);

  const mcp = mcpManager(options, { cwd, env, homeDir, sources, settingsFiles, settingsObject, warn: hooks.warn });
  const structured = options.outputFormat ? structuredOutputTool(options.outputFormat.schema) : undefined;

  const made: { runtime?: ToolRuntime } = {};
  let onPermissionRequest: ((request: RuntimePermissionRequest) => Promise<PermissionAnswer>) | undefined;
  if (options.permissionPrompts !== 'none') {
    if (options.canUseTool) onPermissionRequest = permissionHandler({ canUseTool: options.canUseTool, runtime: () => made.runtime, onInterrupt: hooks.onInterrupt, warn: hooks.warn });
    else if (options.permissionPromptToolName) {
      if (!mcp) throw new AgentSdkOptionError(`options.permissionPromptToolName ${options.permissionPromptToolName}: no MCP server is configured`);
      onPermissionRequest = createPermissionPromptTool(mcp, options.permissionPromptToolName);
    }
  }
  const builtinTools = Array.isArray(options.tools) ? options.tools : mainAgent?.tools ? [...mainAgent.tools] : undefined;
  const runtime = await createToolRuntime({
    cwd,
    env,
    ...(options.additionalDirectories ? { additionalDirectories: options.additionalDirectories } : {}),
    settings: { sources, homeDir, ...(settingsFiles.length > 0 ? { files: settingsFiles } : {}), ...(Object.keys(settingsObject).length > 0 ? { object: settingsObject } : {}) },
    ...(options.permissionMode ? { mode: options.permissionMode as RuntimeMode } : mainAgent?.permissionMode ? { mode: mainAgent.permissionMode } : {}),
    rules: {
      allow: [...(options.allowedTools ?? []), ...(structured ? [STRUCTURED_OUTPUT_TOOL_NAME] : [])],
      deny: [...(options.disallowedTools ?? []), ...(mainAgent?.disallowedTools ?? [])],
    },
    ...(structured ? { tools: [structured] } : {}),
    ...(builtinTools ? { builtinTools: [...builtinTools, ...(structured ? [STRUCTURED_OUTPUT_TOOL_NAME] : [])] } : {}),
    hooks: hookCallbacks(options.hooks),
    ...(onPermissionRequest ? { onPermissionRequest } : {}),
    ...(options.onElicitation ? { onQuestion: elicitationHandler(options.onElicitation) } : {}),
    sessionId,
    sessionDir: path.join(sessionsRoot, sessionId),
    model,
    client,
    signal: hooks.signal,
    sessionStart: options.continue ? 'continue' : resume !== undefined ? 'resume' : 'fresh',
    services: {
      agentDefinitions: { definitions: agents, readFiles: sources.includes('project') || sources.includes('user') },
      ...(mcp ? { mcpResources: mcp.resourceService } : {}),
    },
    ...(mcp ? { toolProviders: [mcp.toolProvider()] } : {}),
  });
  made.runtime = runtime;
  for (const w of runtime.warnings) hooks.warn(`warning: ${w}`);
  const prompt = systemPromptOf(options, mainAgent);
  return {
    runtime,
    client,
    env,
    model,
    sessionId,
    ...(resume !== undefined ? { resume } : {}),
    fork,
    ...prompt,
    ...(mcp ? { mcp } : {}),
    apiKeySource: apiKey ? 'ANTHROPIC_API_KEY' : 'none',
    ...(structured ? { structuredOutput: { toolName: STRUCTURED_OUTPUT_TOOL_NAME } } : {}),
  };
}

function agentDefinition(name: string, d: NonNullable<Options['agents']>[string]): ToolgateAgentDefinition {
  if (d === null || typeof d !== 'object' || typeof d.description !== 'string' || typeof d.prompt !== 'string') {
    throw new AgentSdkOptionError(`options.agents.${name} must have a description and a prompt (strings)`);
  }
  return {
    agentType: name,
    description: d.description,
    systemPrompt: d.prompt,
    source: 'session',
    ...(d.tools ? { tools: d.tools } : {}),
    ...(d.disallowedTools ? { disallowedTools: d.disallowedTools } : {}),
    ...(d.model ? { model: d.model } : {}),
    ...(d.permissionMode ? { permissionMode: d.permissionMode as RuntimeMode } : {}),
  };
}

/**
 * The system prompt: a string (or strings) as given; the Claude Code preset is toolgate's full prompt with `append`;
 * nothing given is a short prompt of toolgate's own, as the Agent SDK's default is short.
 */
function systemPromptOf(options: Options, mainAgent: ToolgateAgentDefinition | undefined): { systemPrompt?: string; appendSystemPrompt?: string } {
  const sp = options.systemPrompt;
  const join = (p: string | string[]) => (Array.isArray(p) ? p.filter((x) => x !== '__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__').join('\n\n') : p);
  if (typeof sp === 'string' || Array.isArray(sp)) return { systemPrompt: join(sp) };
  if (sp?.type === 'custom') return { systemPrompt: join(sp.prompt) };
  if (sp?.type === 'preset') return sp.append ? { appendSystemPrompt: sp.append } : {};
  if (mainAgent) return { systemPrompt: mainAgent.systemPrompt };
  return { systemPrompt: DEFAULT_AGENT_PROMPT };
}

const DEFAULT_AGENT_PROMPT = 'You are an AI agent. Work on what the user asks with the tools you have, and say plainly what you did.';

interface McpContext {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly homeDir: string;
  readonly sources: readonly RuntimeSource[];
  readonly settingsFiles: readonly string[];
  readonly settingsObject: Record<string, unknown>;
  readonly warn: (text: string) => void;
}

/** `options.mcpServers` (in-process ones included), then — unless `strictMcpConfig` — the servers the settings name. */
function mcpManager(options: Options, c: McpContext): McpClientManager | undefined {
  const servers = new Map<string, ScopedMcpServer>();
  for (const [name, entry] of Object.entries(options.mcpServers ?? {})) {
    if (entry !== null && typeof entry === 'object' && entry.type === 'sdk') {
      servers.set(name, { name, config: inProcessConfig(entry), scope: 'flag', file: 'options.mcpServers', approval: 'approved' });
      continue;
    }
    const parsed = parseMcpServerConfig(name, entry, c.env);
    if (!parsed.config) throw new AgentSdkOptionError(`options.mcpServers.${name}: ${parsed.problems.join('; ')}`);
    servers.set(name, { name, config: parsed.config, scope: 'flag', file: 'options.mcpServers', approval: 'approved' });
  }
  if (!options.strictMcpConfig) {
    const loaded = loadMcpConfig({ cwd: c.cwd, homeDir: c.homeDir, sources: c.sources, env: c.env, ...(c.settingsFiles.length > 0 ? { flagSettings: [...c.settingsFiles] } : {}), settingsObject: c.settingsObject });
    for (const p of loaded.problems) c.warn(`warning: MCP config ${p.file}${p.server ? ` (server "${p.server}")` : ''}: ${p.message}`);
    for (const [name, server] of loaded.servers) if (!servers.has(name)) servers.set(name, server);
    const pending = [...loaded.servers.values()].filter((s) => s.approval === 'pending').map((s) => s.name);
    if (pending.length > 0) c.warn(`warning: MCP servers of .mcp.json not approved, not started: ${pending.join(', ')} (approve with "enabledMcpjsonServers" in .claude/settings.local.json)`);
  }
  if (servers.size === 0) return undefined;
  return new McpClientManager({
    cwd: c.cwd,
    servers,
    env: c.env,
    onServerEvent: (e) => {
      if (e.type === 'failed') c.warn(`warning: ${e.error.split('\n')[0]}`);
    },
  });
}

function elicitationHandler(onElicitation: NonNullable<Options['onElicitation']>): (request: QuestionRequest) => Promise<QuestionAnswer> {
  return async (request) => {
    if (request.kind !== 'elicitation') return { action: 'decline' };
    const m = /^MCP server "(.*?)" asks: ([\s\S]*)$/.exec(request.message ?? '');
    try {
      const answer = await onElicitation({ serverName: m?.[1] ?? '', message: m?.[2] ?? request.message ?? '', mode: 'form', ...(request.schema ? { requestedSchema: request.schema } : {}) }, { signal: request.signal });
      return answer.action === 'accept' ? { action: 'accept', ...(answer.content ? { content: answer.content } : {}) } : { action: answer.action };
    } catch {
      return { action: 'cancel' };
    }
  };
}
