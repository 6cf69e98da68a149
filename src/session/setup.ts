/**
 * From `SessionOptions` to one session's pieces: its environment and model client, its ids and folder, the runtime
 * (settings, rules, hooks, the permission handler, MCP servers, agents, the structured-output tool) and the system
 * prompt. Everything here belongs to the one session: nothing is read from or written to `process.env` beyond the
 * default environment, and no two sessions share a runtime, a client or a transcript.
 */
import Anthropic from '@anthropic-ai/sdk';
import os from 'node:os';
import path from 'node:path';
import { agentTypesFor } from '../agent/agent-types.js';
import { createToolRuntime } from '../agent/create-tool-runtime.js';
import { stateDirectory } from '../agent/session-dir.js';
import { latestSessionFor } from '../agent/transcript.js';
import type { AgentDefinition, PermissionAnswer, RuntimePermissionRequest, SettingSource, ToolRuntime } from '../agent/types.js';
import type { HookCallback } from '../hooks/types.js';
import type { McpClientManager } from '../mcp/manager.js';
import { createPermissionPromptTool } from '../mcp/permission-prompt-tool.js';
import { randomUUID } from '../tool/crypto.js';
import { resolveModel } from '../tool/models.js';
import { startMcpServers, syncMcpRoots } from './mcp.js';
import { loadSessionPlugins } from './plugins.js';
import { cutTranscript } from './resume-at.js';
import { SessionOptionError, type SessionOptions } from './options.js';
import { STRUCTURED_OUTPUT_TOOL_NAME, structuredOutputTool } from './structured-output.js';

export interface SessionParts {
  readonly runtime: ToolRuntime;
  readonly client: Anthropic;
  readonly env: Readonly<Record<string, string>>;
  readonly model: string;
  /** The transcript to go on from (`resume`, `continue`, a fork's source). */
  readonly resume?: string;
  readonly systemPrompt?: string;
  readonly appendSystemPrompt?: string;
  readonly mcp?: McpClientManager;
  readonly apiKeySource: 'ANTHROPIC_API_KEY' | 'none';
  readonly structuredOutput?: { readonly toolName: string };
  /** The plugins loaded (names and folders: the init message's `plugins`). */
  readonly plugins?: readonly { readonly name: string; readonly path: string }[];
}

/** The session's environment: `options.env` replaces `process.env`, as it replaces a child process's environment. */
export function sessionEnv(options: SessionOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env ?? process.env)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The model client of `env` (its key or token, its base URL), no SDK retries: the loop retries. */
function clientOf(env: Readonly<Record<string, string>>, betas: readonly string[] | undefined): { client: Anthropic; apiKeySource: SessionParts['apiKeySource'] } {
  const apiKey = env.ANTHROPIC_API_KEY?.trim() || undefined;
  const authToken = env.ANTHROPIC_AUTH_TOKEN?.trim() || undefined;
  if (!apiKey && !authToken) throw new SessionOptionError('no API key: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (in the session\'s environment)');
  const client = new Anthropic({
    apiKey: apiKey ?? null,
    authToken: apiKey ? null : (authToken ?? null),
    ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    maxRetries: 0,
    ...(betas && betas.length > 0 ? { defaultHeaders: { 'anthropic-beta': betas.join(',') } } : {}),
  });
  return { client, apiKeySource: apiKey ? 'ANTHROPIC_API_KEY' : 'none' };
}

/** The session's id and the transcript it goes on from: a resumed session keeps its id unless forked. */
export function sessionIds(options: SessionOptions, sessionsDir: string, cwd: string): { sessionId: string; resume?: string } {
  const resume = options.continue ? latestSessionFor(sessionsDir, cwd) : options.resume;
  if (options.continue && resume === undefined) throw new SessionOptionError(`no session to continue in ${cwd}`);
  if (options.resumeAt !== undefined) {
    if (resume === undefined) throw new SessionOptionError('resumeAt needs a session to resume');
    // A cut conversation goes on under a new id: the transcript it was cut from stays whole.
    const sessionId = cutTranscript(sessionsDir, resume, options.resumeAt, options.sessionId ?? randomUUID());
    return { sessionId, resume: sessionId };
  }
  const fork = resume !== undefined && options.fork === true;
  const sessionId = resume !== undefined && !fork ? path.basename(resume, '.jsonl') : (options.sessionId ?? randomUUID());
  return { sessionId, ...(resume !== undefined ? { resume } : {}) };
}

/** The folder of the session folders: `sessionsDir`, else `<state>/sessions` of the session's environment. */
export function sessionsDirOf(options: SessionOptions, env: Readonly<Record<string, string>>): string {
  return options.sessionsDir ?? path.join(stateDirectory(env, env.HOME ?? os.homedir()), 'sessions');
}

export interface SetupHooks {
  /** Ends the session's runtime (its calls answered, its processes ended) when aborted. */
  readonly signal: AbortSignal;
  readonly warn: (text: string) => void;
  /** The session's own callbacks (live-settings.ts: MCP servers' mode overrides), after the program's hooks. */
  readonly sessionHooks?: readonly HookCallback[];
}

export async function setUpSession(options: SessionOptions, hooks: SetupHooks): Promise<SessionParts> {
  const env = sessionEnv(options);
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const homeDir = env.HOME ?? os.homedir();
  const { client, apiKeySource } = options.client ? { client: options.client, apiKeySource: env.ANTHROPIC_API_KEY?.trim() ? ('ANTHROPIC_API_KEY' as const) : ('none' as const) } : clientOf(env, options.betas);
  const sessionsDir = sessionsDirOf(options, env);
  const { sessionId, resume } = sessionIds(options, sessionsDir, cwd);

  const sources: SettingSource[] = [...(options.settingSources ?? ['user', 'project', 'local']), 'managed'];
  const settingsFiles = options.settingsFiles ?? [];
  const settingsObject = { ...options.settings };

  const plugins = loadSessionPlugins(options, { cwd, env, homeDir, sources, settingsFiles, settingsObject, warn: hooks.warn });
  // Agents: the session's own (plugins' below them), and the main thread's when `agent` names one (its own, the
  // agents folders', a built-in).
  const agents = [...plugins.agents.filter((p) => !(options.agents ?? []).some((a) => a.agentType === p.agentType)), ...(options.agents ?? [])];
  const readAgentFiles = sources.includes('project') || sources.includes('user');
  const mainAgent = options.agent === undefined ? undefined : agentTypesFor(cwd, homeDir, agents, readAgentFiles).find((a) => a.agentType === options.agent);
  if (options.agent !== undefined && !mainAgent) {
    throw new SessionOptionError(`the agent "${options.agent}" is neither one of the session's agents (${agents.map((a) => a.agentType).join(', ') || 'none given'}) nor one of the agents folders`);
  }
  // The one model table, read with the session's environment (its ANTHROPIC_DEFAULT_*_MODEL, never process.env's).
  const pick = (m: string | undefined) => (m === undefined || m === 'inherit' ? undefined : resolveModel(m, env));
  const model = pick(options.model) ?? pick(mainAgent?.model) ?? resolveModel(undefined, env);

  const mcp = startMcpServers(options, { cwd, env, homeDir, sources, settingsFiles, settingsObject, warn: hooks.warn, pluginServers: plugins.mcpServers });
  const structured = options.outputSchema ? structuredOutputTool({ ...options.outputSchema }) : undefined;
  let onPermissionRequest: ((request: RuntimePermissionRequest) => Promise<PermissionAnswer>) | undefined = options.onPermissionRequest;
  if (!onPermissionRequest && options.permissionPromptTool) {
    if (!mcp) throw new SessionOptionError(`the permission prompt tool ${options.permissionPromptTool}: no MCP server is configured`);
    onPermissionRequest = createPermissionPromptTool(mcp, options.permissionPromptTool);
  }
  const builtinTools = options.tools ?? mainAgent?.tools;
  const mode = options.mode ?? mainAgent?.permissionMode;
  const runtime = await createToolRuntime({
    cwd,
    env,
    ...(options.additionalDirectories ? { additionalDirectories: options.additionalDirectories } : {}),
    settings: { sources, homeDir, ...(plugins.folders.length > 0 ? { plugins: plugins.folders } : {}), ...(settingsFiles.length > 0 ? { files: settingsFiles } : {}), ...(Object.keys(settingsObject).length > 0 ? { object: settingsObject } : {}) },
    ...(mode ? { mode } : {}),
    ...(options.allowBypass ? { allowDangerouslySkipPermissions: true } : {}),
    rules: {
      allow: [...(options.allowedTools ?? []), ...(structured ? [STRUCTURED_OUTPUT_TOOL_NAME] : [])],
      deny: [...(options.disallowedTools ?? []), ...(mainAgent?.disallowedTools ?? [])],
    },
    ...(structured ? { tools: [structured] } : {}),
    // A session's calls and events wait for a built-in's module (query(), the tool run); a face that draws from the
    // pool itself asks for them all at the start.
    ...(options.eagerTools ? {} : { lazyBuiltins: true }),
    ...(builtinTools ? { builtinTools: [...builtinTools, ...(structured ? [STRUCTURED_OUTPUT_TOOL_NAME] : [])] } : {}),
    hooks: [...(options.hooks ?? []), ...(hooks.sessionHooks ?? [])],
    ...(options.classifier !== undefined ? { classifier: options.classifier } : {}),
    ...(onPermissionRequest ? { onPermissionRequest } : {}),
    ...(options.onQuestion ? { onQuestion: options.onQuestion } : {}),
    sessionId,
    sessionDir: path.join(sessionsDir, sessionId),
    model,
    client,
    signal: hooks.signal,
    sessionStart: options.continue ? 'continue' : resume !== undefined ? 'resume' : 'fresh',
    services: {
      agentDefinitions: { definitions: agents, readFiles: readAgentFiles },
      ...(mcp ? { mcpResources: mcp.resourceService } : {}),
    },
    ...(mcp ? { toolProviders: [mcp.toolProvider()] } : {}),
  }).catch(async (error: unknown) => {
    await mcp?.dispose().catch(() => undefined);
    throw error;
  });
  for (const w of runtime.warnings) hooks.warn(`warning: ${w}`);
  // roots/list: every working folder the session starts with (the settings' `additionalDirectories` too).
  await syncMcpRoots(mcp, runtime);
  return {
    runtime,
    client,
    env,
    model,
    ...(resume !== undefined ? { resume } : {}),
    ...systemPromptOf(options, mainAgent),
    ...(mcp ? { mcp } : {}),
    apiKeySource,
    ...(structured ? { structuredOutput: { toolName: STRUCTURED_OUTPUT_TOOL_NAME } } : {}),
    ...(plugins.folders.length > 0 ? { plugins: plugins.folders.map((p) => ({ name: p.name, path: p.root })) } : {}),
  };
}

/** The session's prompt: its own, else the main agent's, else toolgate's full one; `appendSystemPrompt` goes after. */
function systemPromptOf(options: SessionOptions, mainAgent: AgentDefinition | undefined): { systemPrompt?: string; appendSystemPrompt?: string } {
  const base = options.systemPrompt ?? mainAgent?.systemPrompt;
  if (base !== undefined) return { systemPrompt: options.appendSystemPrompt ? `${base}\n\n${options.appendSystemPrompt}` : base };
  return options.appendSystemPrompt ? { appendSystemPrompt: options.appendSystemPrompt } : {};
}
