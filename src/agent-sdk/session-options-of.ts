/**
 * The Agent SDK's `Options` in toolgate's words (`SessionOptions`): each option becomes what it means for the session;
 * the session (src/session/) wires the rest. Only what an SDK option's own shape can get wrong is checked here (an
 * agent without a prompt, an MCP entry that is not a server); which options are honoured, ignored or refused is
 * session-options.ts.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentDefinition as SessionAgent, QuestionAnswer, QuestionRequest } from '../agent/types.js';
import { EFFORTS, type Effort } from '../agent/request.js';
import { parseMcpServerConfig, type McpServerConfig as SessionMcpServer } from '../mcp/config.js';
import { parseBackendSpec } from '../distributed/backend-spec.js';
import type { SessionBackend, SessionOptions } from '../session/index.js';
import type { PermissionMode as RuntimeMode, PermissionUpdate } from '../tool/permission-types.js';
import { hookCallbacks } from './hooks.js';
import { inProcessConfig } from './mcp.js';
import type { Options } from './options.js';
import { permissionHandler } from './permissions.js';
import { AgentSdkOptionError } from './session-options.js';

/** What the translation needs from the face: where warnings go, the turn to end, the session's one applier. */
export interface FaceHooks {
  readonly warn: (text: string) => void;
  /** `deny` with `interrupt: true` from `canUseTool`: the running turn ends. */
  readonly onInterrupt: () => void;
  /** An answer's `updatedPermissions`: applied (and saved) by the session; returns what went wrong. */
  readonly applyUpdates: (updates: readonly PermissionUpdate[]) => Promise<readonly string[]>;
  /** Waits until the program was handed the assistant message with a call, before a callback about it runs. */
  readonly delivered?: (toolUseId: string | undefined, signal: AbortSignal) => Promise<void>;
}

/** The Agent SDK's default system prompt is short; toolgate's own short one stands in for it. */
export const DEFAULT_AGENT_PROMPT = 'You are an AI agent. Work on what the user asks with the tools you have, and say plainly what you did.';

/** The environment variable that asks for the durable backend (`restate=URL`), read from the session's environment. */
export const BACKEND_VARIABLE = 'TOOLGATE_BACKEND';

export function sessionOptionsOf(options: Options, face: FaceHooks): SessionOptions {
  const env = options.env ?? process.env;
  const settingsObject = {
    ...(typeof options.settings === 'object' && options.settings !== null ? options.settings : {}),
    ...(options.sandbox !== undefined ? { sandbox: { ...((options.settings as { sandbox?: object } | undefined)?.sandbox ?? {}), ...options.sandbox } } : {}),
  };
  const slips: string[] = [];
  const agents = Object.entries(options.agents ?? {}).map(([name, d]) => agentDefinition(name, d, slips));
  // Harmless shape slips the Agent SDK runs with: told once, not refused (a missing prompt still is).
  if (slips.length > 0) face.warn(`warning: options.agents: ${slips.join('; ')} (tolerated, as the Agent SDK does)`);
  const prompts = options.permissionPrompts !== 'none';
  const thinking = thinkingOf(options);
  const backend = backendOf(env[BACKEND_VARIABLE]);
  return {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    env,
    ...(options.betas ? { betas: options.betas } : {}),
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    ...(options.resume !== undefined ? { resume: options.resume } : {}),
    ...(options.continue ? { continue: true } : {}),
    ...(options.forkSession ? { fork: true } : {}),
    ...(options.resumeSessionAt !== undefined ? { resumeAt: options.resumeSessionAt } : {}),
    ...(options.enableFileCheckpointing ? { checkpoints: true } : {}),
    ...(options.persistSession === false ? { persist: false } : {}),
    ...(options.additionalDirectories ? { additionalDirectories: options.additionalDirectories } : {}),
    ...(options.settingSources ? { settingSources: options.settingSources } : {}),
    ...(typeof options.settings === 'string' ? { settingsFiles: [options.settings] } : {}),
    ...(Object.keys(settingsObject).length > 0 ? { settings: settingsObject } : {}),
    ...(options.mcpServers ? { mcpServers: mcpServersOf(options.mcpServers, env) } : {}),
    ...(options.strictMcpConfig ? { strictMcpConfig: true } : {}),
    ...(options.plugins && options.plugins.length > 0 ? { plugins: options.plugins.map((p, i) => pluginPath(p, i)) } : {}),
    ...(agents.length > 0 ? { agents } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(Array.isArray(options.tools) ? { tools: options.tools } : {}),
    ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
    ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
    ...(options.permissionMode ? { mode: options.permissionMode as RuntimeMode } : {}),
    ...(options.allowDangerouslySkipPermissions ? { allowBypass: true } : {}),
    ...(options.hooks ? { hooks: hookCallbacks(options.hooks, face.delivered) } : {}),
    ...(prompts && options.canUseTool ? { onPermissionRequest: permissionHandler({ canUseTool: options.canUseTool, ...face }) } : {}),
    ...(prompts && !options.canUseTool && options.permissionPromptToolName ? { permissionPromptTool: options.permissionPromptToolName } : {}),
    ...(options.onElicitation ? { onQuestion: elicitationHandler(options.onElicitation) } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.fallbackModel !== undefined ? { fallbackModel: options.fallbackModel } : {}),
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.maxBudgetUsd !== undefined ? { maxBudgetUsd: options.maxBudgetUsd } : {}),
    ...(thinking ? { thinking } : {}),
    ...effortOf(options.effort),
    ...systemPromptOf(options),
    ...(options.outputFormat ? { outputSchema: options.outputFormat.schema } : {}),
    ...(options.includePartialMessages ? { streamEvents: true } : {}),
    ...(options.verbatimPrompts ? { expandSlashCommands: false } : {}),
    ...(backend ? { backend } : {}),
    warn: face.warn,
  };
}

function backendOf(spec: string | undefined): SessionBackend | undefined {
  if (spec === undefined || spec.trim() === '') return undefined;
  try {
    return parseBackendSpec(spec.trim());
  } catch (error) {
    throw new AgentSdkOptionError(`${BACKEND_VARIABLE}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The keys of the Agent SDK 0.3.328's `AgentDefinition`: another key is a slip, told and ignored. */
const AGENT_KEYS = new Set(['description', 'tools', 'disallowedTools', 'prompt', 'model', 'mcpServers', 'skills', 'initialPrompt', 'maxTurns', 'autoCompactWindow', 'background', 'omitClaudeMd', 'memory', 'effort', 'permissionMode', 'observer', 'observerMessage']);

function agentDefinition(name: string, d: NonNullable<Options['agents']>[string], slips: string[]): SessionAgent {
  if (d === null || typeof d !== 'object' || typeof d.prompt !== 'string') {
    throw new AgentSdkOptionError(`options.agents.${name} must be an object with a prompt (a string)`);
  }
  if (d.description !== undefined && typeof d.description !== 'string') throw new AgentSdkOptionError(`options.agents.${name}.description must be a string`);
  if (d.description === undefined) slips.push(`${name} has no description`);
  const unknown = Object.keys(d).filter((k) => !AGENT_KEYS.has(k));
  if (unknown.length > 0) slips.push(`${name} has keys the Agent SDK does not define (${unknown.join(', ')}), ignored`);
  return {
    agentType: name,
    description: d.description ?? name,
    systemPrompt: d.prompt,
    source: 'session',
    ...(d.tools ? { tools: d.tools } : {}),
    ...(d.disallowedTools ? { disallowedTools: d.disallowedTools } : {}),
    ...(d.model ? { model: d.model } : {}),
    ...(d.permissionMode ? { permissionMode: d.permissionMode as RuntimeMode } : {}),
  };
}

/** One of `options.plugins`: a local folder (the only kind the Agent SDK has). */
function pluginPath(p: NonNullable<Options['plugins']>[number], i: number): string {
  if (p === null || typeof p !== 'object' || p.type !== 'local' || typeof p.path !== 'string' || p.path === '') {
    throw new AgentSdkOptionError(`options.plugins[${i}] must be { type: 'local', path: '<plugin folder>' }`);
  }
  return p.path;
}

/** `options.mcpServers`: in-process servers as the MCP layer's in-process config, the others parsed as Claude Code's files are. */
export function mcpServersOf(servers: NonNullable<Options['mcpServers']>, env: Readonly<Record<string, string | undefined>>): Record<string, SessionMcpServer> {
  const out: Record<string, SessionMcpServer> = {};
  for (const [name, entry] of Object.entries(servers)) {
    if (entry !== null && typeof entry === 'object' && entry.type === 'sdk') {
      out[name] = inProcessConfig(entry);
      continue;
    }
    const parsed = parseMcpServerConfig(name, entry, env);
    if (!parsed.config) throw new AgentSdkOptionError(`options.mcpServers.${name}: ${parsed.problems.join('; ')}`);
    out[name] = parsed.config;
  }
  return out;
}

/**
 * The system prompt: a string (or strings) as given; the Claude Code preset is toolgate's full prompt with `append`;
 * nothing given is the main agent's prompt, or a short prompt of toolgate's own, as the Agent SDK's default is short.
 */
function systemPromptOf(options: Options): Pick<SessionOptions, 'systemPrompt' | 'appendSystemPrompt'> {
  const sp = options.systemPrompt;
  const join = (p: string | string[]) => (Array.isArray(p) ? p.filter((x) => x !== '__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__').join('\n\n') : p);
  if (typeof sp === 'string' || Array.isArray(sp)) return { systemPrompt: join(sp) };
  if (sp?.type === 'custom') return { systemPrompt: join(sp.prompt) };
  if (sp?.type === 'preset') return sp.append ? { appendSystemPrompt: sp.append } : {};
  return options.agent !== undefined ? {} : { systemPrompt: DEFAULT_AGENT_PROMPT };
}

/** `effort`: a level goes to the API as Claude Code sends it; anything else is refused, not dropped. */
function effortOf(effort: unknown): Pick<SessionOptions, 'effort'> {
  if (effort === undefined || effort === null) return {};
  if (typeof effort === 'string' && (EFFORTS as readonly string[]).includes(effort)) return { effort: effort as Effort };
  throw new AgentSdkOptionError(`options.effort must be one of ${EFFORTS.join(', ')} (got ${JSON.stringify(effort)})`);
}

/** `thinking` (or the older `maxThinkingTokens`) as the Messages API's thinking parameter. */
function thinkingOf(options: Options): Anthropic.Messages.ThinkingConfigParam | undefined {
  const t = options.thinking;
  if (t?.type === 'disabled') return undefined;
  if (t?.type === 'adaptive') return { type: 'adaptive' };
  if (t?.type === 'enabled') return { type: 'enabled', budget_tokens: t.budgetTokens ?? 10_000 };
  if (options.maxThinkingTokens !== undefined && options.maxThinkingTokens > 0) return { type: 'enabled', budget_tokens: options.maxThinkingTokens };
  return undefined;
}

function elicitationHandler(onElicitation: NonNullable<Options['onElicitation']>): (request: QuestionRequest) => Promise<QuestionAnswer> {
  return async (request) => {
    if (request.kind !== 'elicitation') return { action: 'decline' };
    const m = /^MCP server "(.*?)" asks: ([\s\S]*)$/.exec(request.message ?? '');
    try {
      const mode = request.url ? { mode: 'url' as const, url: request.url } : { mode: 'form' as const };
      const answer = await onElicitation({ serverName: m?.[1] ?? '', message: m?.[2] ?? request.message ?? '', ...mode, ...(request.schema ? { requestedSchema: request.schema } : {}) }, { signal: request.signal });
      return answer.action === 'accept' ? { action: 'accept', ...(answer.content ? { content: answer.content } : {}) } : { action: answer.action };
    } catch {
      return { action: 'cancel' };
    }
  };
}
