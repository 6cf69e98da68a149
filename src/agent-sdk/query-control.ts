/**
 * The Agent SDK's `Query` control methods beyond the first ones, translated to the session's verbs (src/session/):
 * MCP servers (reconnect, toggle, replace), background tasks, context usage and the initialization answer. The
 * session decides; this file only says it in the Agent SDK's shapes (its .d.ts of 0.3.328).
 */
import { DEFAULT_MODEL } from '../agent/request.js';
import type { McpServerConfig as SessionMcpServer } from '../mcp/config.js';
import type { AgentSession } from './session.js';

export interface McpSetServersResult {
  added: string[];
  removed: string[];
  errors: Record<string, string>;
}

export interface ContextUsageCategory {
  id?: 'system_prompt' | 'system_tools' | 'mcp_tools' | 'messages' | 'free_space';
  name: string;
  tokens: number;
  color: string;
  kind: 'used' | 'free' | 'buffer' | 'deferred';
}

export interface ContextUsageResponse {
  categories: ContextUsageCategory[];
  totalTokens: number;
  maxTokens: number;
  rawMaxTokens: number;
  percentage: number;
  model: string;
}

export interface InitializationResult {
  commands: { name: string; description: string; argumentHint: string }[];
  agents: { name: string; description: string; model?: string }[];
  output_style: string;
  available_output_styles: string[];
  models: { value: string; resolvedModel?: string; displayName: string; description: string }[];
  account: Record<string, never>;
  hook_on_failure_supported: true;
}

/** The context window toolgate assumes for its models (the session does not compact: docs/agent-sdk.md). */
const CONTEXT_WINDOW = 200_000;

export async function contextUsage(agent: AgentSession): Promise<ContextUsageResponse> {
  await agent.ready();
  const u = await agent.session.contextUsage();
  const used = (id: ContextUsageCategory['id'], name: string, tokens: number, color: string): ContextUsageCategory => ({ id, name, tokens, color, kind: 'used' });
  const categories = [
    used('system_prompt', 'System prompt', u.systemPrompt, 'promptBorder'),
    used('system_tools', 'System tools', u.builtInTools.tokens, 'inactive'),
    used('mcp_tools', 'MCP tools', u.mcpTools.tokens, 'cyan_FOR_SUBAGENTS_ONLY'),
    used('messages', 'Messages', u.messages.typed + u.messages.replies + u.messages.toolResults, 'purple_FOR_SUBAGENTS_ONLY'),
  ];
  const total = u.lastRequestTokens > 0 ? u.lastRequestTokens : u.total;
  categories.push({ id: 'free_space', name: 'Free space', tokens: Math.max(0, CONTEXT_WINDOW - total), color: 'promptBorder', kind: 'free' });
  return { categories, totalTokens: total, maxTokens: CONTEXT_WINDOW, rawMaxTokens: CONTEXT_WINDOW, percentage: Math.round((total / CONTEXT_WINDOW) * 1000) / 10, model: agent.session.model };
}

export async function initializationResult(agent: AgentSession): Promise<InitializationResult> {
  await agent.ready();
  const session = agent.session;
  const commands = (await session.commands()).filter((c) => c.userInvocable).map((c) => ({ name: c.name, description: c.description, argumentHint: c.argumentHint ?? '' }));
  const agents = (await session.agents()).map((d) => ({ name: d.agentType, description: d.description, ...(d.model ? { model: d.model } : {}) }));
  const current = session.model;
  const models = [{ value: 'default', resolvedModel: DEFAULT_MODEL, displayName: 'Default', description: `toolgate's default model (${DEFAULT_MODEL})` }];
  if (current !== DEFAULT_MODEL) models.push({ value: current, resolvedModel: current, displayName: current, description: 'The model this session was started with' });
  // toolgate has no logins (API keys only) and no output styles: the answer says so with empty values.
  return { commands, agents, output_style: 'default', available_output_styles: ['default'], models, account: {}, hook_on_failure_supported: true };
}

/**
 * `setMcpServers(servers)`: the servers of earlier calls (and the program's in-process ones) are replaced by these;
 * servers of settings files and `.mcp.json` are left alone, as in the Agent SDK. A server that cannot be added is in
 * `errors`, the others go on.
 */
export async function setMcpServers(agent: AgentSession, servers: Record<string, SessionMcpServer>, replaceable: Set<string>): Promise<McpSetServersResult> {
  await agent.ready();
  const result: McpSetServersResult = { added: [], removed: [], errors: {} };
  for (const name of [...replaceable]) {
    if (name in servers) continue;
    await agent.session.mcp.remove(name);
    replaceable.delete(name);
    result.removed.push(name);
  }
  for (const [name, config] of Object.entries(servers)) {
    try {
      if (replaceable.has(name)) await agent.session.mcp.remove(name);
      await agent.session.mcp.add(name, config);
      replaceable.add(name);
      result.added.push(name);
    } catch (error) {
      result.errors[name] = error instanceof Error ? error.message : String(error);
    }
  }
  return result;
}

/** `backgroundTasks(toolUseId?)`: running calls go on in the background; false only when the one named was not running. */
export async function backgroundTasks(agent: AgentSession, toolUseId?: string): Promise<boolean> {
  await agent.ready();
  const moved = agent.session.moveToBackground(toolUseId);
  return toolUseId === undefined || moved.length > 0;
}

/** `reloadSkills()`'s answer: the skills found now (commands of the commands folders are not skills). */
export async function reloadSkills(agent: AgentSession): Promise<{ skills: { name: string; description: string; argumentHint: string }[] }> {
  await agent.ready();
  const found = await agent.session.live.reloadSkills();
  // Claude Code names where a skill of the settings folders comes from after its description: "… (project)".
  const from = (source: string) => (source === 'project' || source === 'user' ? ` (${source})` : '');
  return { skills: found.filter((c) => c.kind === 'skill' && c.userInvocable).map((c) => ({ name: c.name, description: `${c.description}${from(c.source)}`, argumentHint: c.argumentHint ?? '' })) };
}

export interface McpReadResourceResult {
  contents: { uri: string; mimeType?: string; text?: string; blob?: string }[];
}

/** `readMcpResource(server, uri)`: MCP Apps' `ui://` resources only, as the Agent SDK says. */
export async function readMcpResource(agent: AgentSession, serverName: string, uri: string): Promise<McpReadResourceResult> {
  if (typeof uri !== 'string' || !uri.startsWith('ui://')) throw new TypeError(`readMcpResource reads ui:// resources (MCP Apps) only, not ${JSON.stringify(uri)}`);
  await agent.ready();
  const contents = await agent.session.live.mcpReadResource(serverName, uri);
  return { contents: contents.map((c) => ({ uri: c.uri, ...(c.mimeType !== undefined ? { mimeType: c.mimeType } : {}), ...(c.text !== undefined ? { text: c.text } : {}), ...(c.blob !== undefined ? { blob: c.blob } : {}) })) };
}
