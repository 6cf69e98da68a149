/**
 * `claude -p`'s flags as the Agent SDK's options: the headless run is the Agent SDK's session engine
 * (src/agent-sdk/session.ts), so each flag becomes the option `claude` itself turns it into for the SDK, and the one
 * mapping from options to the runtime (session-setup.ts) does the rest. What is checked here is only what a flag's
 * text can get wrong (a malformed --agents JSON, a --session-id that is not a UUID, a missing --system-prompt-file):
 * each is one line naming the flag, before anything starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentDefinition, Options, SettingSource } from '../../agent-sdk/options.js';
import { isUuid } from '../../agent-sdk/session-options.js';
import { defaultSessionDir, stateDirectory } from '../../agent/session-dir.js';
import { latestSessionFor, transcriptPath } from '../../agent/transcript.js';
import { loadAgentDefinitions, type AgentDefinition as FileAgent } from '../../tools/agent/agent-definitions.js';
import type { RunOptions } from './run.js';

/** A flag whose value cannot be used: exit 1 with this one line (and a JSON error result under the JSON formats). */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

const SETTING_SOURCES: readonly SettingSource[] = ['user', 'project', 'local'];
const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'];
const INPUT_FORMATS = ['text', 'stream-json'];

export interface PrintSession {
  readonly options: Options;
  /** More than one `--settings` (toolgate's extension: claude takes one; later wins). */
  readonly settingsFiles: readonly string[];
  readonly replayUserMessages: boolean;
  readonly inputFormat: 'text' | 'stream-json';
  /** Flags accepted that change nothing in toolgate: one stderr line each. */
  readonly notes: readonly string[];
}

/** The Agent SDK options of a `toolgate -p` run; throws `FlagError` on a value that cannot be used. */
export function printSessionOptions(opts: RunOptions, env: NodeJS.ProcessEnv = process.env): PrintSession {
  const cwd = path.resolve(opts.cwd);
  const notes: string[] = [];
  const inputFormat = opts.inputFormat ?? 'text';
  if (!INPUT_FORMATS.includes(inputFormat)) throw new FlagError(`unknown --input-format "${inputFormat}" (expected one of: ${INPUT_FORMATS.join(', ')})`);

  const maxTurns = opts.maxTurns === undefined ? undefined : Number(opts.maxTurns);
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) throw new FlagError(`--max-turns must be a positive integer (got "${opts.maxTurns}")`);
  const budget = opts.maxBudgetUsd === undefined ? undefined : Number(opts.maxBudgetUsd);
  if (budget !== undefined && !(Number.isFinite(budget) && budget > 0)) throw new FlagError(`--max-budget-usd must be a positive number of dollars (got "${opts.maxBudgetUsd}")`);
  if (opts.sessionId !== undefined && !isUuid(opts.sessionId)) throw new FlagError(`--session-id must be a valid UUID (got "${opts.sessionId}")`);
  if (opts.sessionId !== undefined && (opts.continue || opts.resume !== undefined) && !opts.forkSession) {
    throw new FlagError('--session-id can only be used with --continue or --resume if --fork-session is also given');
  }
  if (opts.effort !== undefined && !EFFORT_LEVELS.includes(opts.effort)) throw new FlagError(`--effort must be one of ${EFFORT_LEVELS.join(', ')} (got "${opts.effort}")`);
  if (opts.permissionPrompts !== undefined && opts.permissionPrompts !== 'host' && opts.permissionPrompts !== 'none') {
    throw new FlagError(`--permission-prompts must be "host" or "none" (got "${opts.permissionPrompts}")`);
  }

  // Which session goes on: --continue (the newest of this folder), --resume ID, --resume alone (headless: the newest).
  const sessionsRoot = path.join(stateDirectory(env), 'sessions');
  let resume: string | undefined;
  if (opts.continue || opts.resume === true) {
    resume = latestSessionFor(sessionsRoot, cwd);
    if (!resume) throw new FlagError(`No conversation found to continue in ${cwd}`);
  } else if (typeof opts.resume === 'string') {
    if (!existsSync(transcriptPath(defaultSessionDir(opts.resume, env)))) throw new FlagError(`No conversation found with session ID: ${opts.resume}`);
    resume = opts.resume;
  }

  let agents = opts.agents !== undefined ? agentsOf(opts.agents, cwd) : undefined;
  if (opts.agent !== undefined && !Object.hasOwn(agents ?? {}, opts.agent)) {
    // Not one of --agents: an agent of the agents folders (~/.claude/agents, .claude/agents) or a built-in one.
    const found = loadAgentDefinitions(cwd, env.HOME ?? os.homedir()).agents.find((d) => d.agentType === opts.agent);
    if (!found) throw new FlagError(`--agent "${opts.agent}" is neither one of --agents nor an agent of ~/.claude/agents or .claude/agents`);
    agents = { ...agents, [found.agentType]: sdkAgent(found) };
  }
  const mode = opts.permissionMode === 'manual' ? 'default' : opts.permissionMode;
  const bypass = opts.dangerouslySkipPermissions === true || mode === 'bypassPermissions';
  const options: Options = {
    cwd,
    stderr: (text) => process.stderr.write(`toolgate: ${text}`),
    ...(opts.model !== undefined ? { model: opts.model } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(budget !== undefined ? { maxBudgetUsd: budget } : {}),
    ...(opts.fallbackModel !== undefined ? { fallbackModel: opts.fallbackModel } : {}),
    // The flag is the explicit choice the Agent SDK asks for with allowDangerouslySkipPermissions.
    ...(bypass ? { permissionMode: 'bypassPermissions' as const, allowDangerouslySkipPermissions: true } : mode !== undefined ? { permissionMode: mode as Options['permissionMode'] } : {}),
    ...(opts.allowDangerouslySkipPermissions ? { allowDangerouslySkipPermissions: true } : {}),
    allowedTools: opts.allowedTools,
    disallowedTools: opts.disallowedTools,
    ...(opts.addDir.length > 0 ? { additionalDirectories: opts.addDir.map((d) => path.resolve(cwd, d)) } : {}),
    ...(opts.settings.length === 1 ? { settings: settingsArg(opts.settings[0]!, cwd) } : {}),
    ...(opts.settingSources !== undefined ? { settingSources: settingSources(opts.settingSources) } : {}),
    ...toolsOf(opts.tools),
    ...mcpServersOf(opts.mcpConfig, cwd),
    ...(opts.strictMcpConfig ? { strictMcpConfig: true } : {}),
    ...(opts.permissionPromptTool !== undefined ? { permissionPromptToolName: opts.permissionPromptTool } : {}),
    ...(opts.permissionPrompts !== undefined ? { permissionPrompts: opts.permissionPrompts as 'host' | 'none' } : {}),
    ...(opts.jsonSchema !== undefined ? { outputFormat: { type: 'json_schema' as const, schema: jsonSchema(opts.jsonSchema) } } : {}),
    ...(agents !== undefined ? { agents } : {}),
    ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
    ...systemPromptOf(opts, cwd),
    ...(resume !== undefined ? { resume } : {}),
    ...(opts.forkSession ? { forkSession: true } : {}),
    ...(opts.sessionId !== undefined ? { sessionId: opts.sessionId } : {}),
    ...(opts.sessionPersistence === false ? { persistSession: false } : {}),
    ...(opts.betas.length > 0 ? { betas: opts.betas } : {}),
    ...(opts.includePartialMessages ? { includePartialMessages: true } : {}),
    ...(opts.includeHookEvents ? { includeHookEvents: true } : {}),
    ...(opts.forwardSubagentText ? { forwardSubagentText: true } : {}),
  };
  if (opts.effort !== undefined) notes.push(`--effort ${opts.effort} is accepted; toolgate sends no effort level (the model's default applies)`);
  if (opts.debug !== undefined) notes.push('--debug is accepted for compatibility with claude; toolgate writes no debug log');
  return {
    options,
    settingsFiles: opts.settings.length > 1 ? opts.settings.map((s) => settingsArg(s, cwd)) : [],
    replayUserMessages: opts.replayUserMessages === true,
    inputFormat: inputFormat as 'text' | 'stream-json',
    notes,
  };
}

function settingsArg(value: string, cwd: string): string {
  return value.trimStart().startsWith('{') ? value : path.resolve(cwd, value);
}

/** `--setting-sources user,project` (commas or spaces; "" loads none of the files). */
function settingSources(value: string): SettingSource[] {
  const list = value.split(/[,\s]+/).filter((s) => s !== '');
  const unknown = list.filter((s) => !(SETTING_SOURCES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new FlagError(`--setting-sources: unknown source "${unknown[0]}" (expected a comma-separated list of: ${SETTING_SOURCES.join(', ')})`);
  return list as SettingSource[];
}

/** `--tools "Bash,Edit,Read"` (commas or spaces), `--tools ""` for none, `--tools default` for all. */
function toolsOf(values: readonly string[] | undefined): Pick<Options, 'tools'> {
  if (values === undefined) return {};
  const names = values.flatMap((v) => v.split(/[,\s]+/)).filter((n) => n !== '');
  if (names.length === 1 && names[0] === 'default') return {};
  if (names.includes('default')) throw new FlagError('--tools: "default" stands alone (all built-in tools); list names without it');
  return { tools: names };
}

/** Every `--mcp-config` (a file or inline JSON) as one `mcpServers` object; run-preflight.ts has checked them. */
function mcpServersOf(configs: readonly string[], cwd: string): Pick<Options, 'mcpServers'> {
  if (configs.length === 0) return {};
  const servers: Record<string, unknown> = {};
  for (const arg of configs) {
    const inline = arg.trimStart().startsWith('{');
    const text = inline ? arg : readFileSync(path.resolve(cwd, arg), 'utf8');
    const parsed = JSON.parse(text.replace(/^\uFEFF/, '')) as { mcpServers?: Record<string, unknown> };
    Object.assign(servers, parsed.mcpServers ?? {});
  }
  return { mcpServers: servers as Options['mcpServers'] };
}

function jsonSchema(text: string): Record<string, unknown> {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new FlagError(`--json-schema is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new FlagError('--json-schema must be a JSON Schema object');
  return schema as Record<string, unknown>;
}

/** `--agents '{"name": {"description", "prompt", …}}'`, or (as with claude -p) the path of a file that holds it. */
function agentsOf(value: string, cwd: string): Record<string, AgentDefinition> {
  let text = value;
  if (!value.trimStart().startsWith('{')) {
    try {
      text = readFileSync(path.resolve(cwd, value), 'utf8');
    } catch {
      throw new FlagError(`--agents is neither a JSON object nor a readable file: ${value}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FlagError(`--agents is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new FlagError('--agents must be a JSON object of agents by name');
  for (const [name, d] of Object.entries(parsed)) {
    const def = d as Record<string, unknown> | null;
    if (def === null || typeof def !== 'object' || typeof def.description !== 'string' || typeof def.prompt !== 'string') {
      throw new FlagError(`--agents: agent "${name}" needs a "description" and a "prompt" (strings)`);
    }
    for (const key of ['tools', 'disallowedTools'] as const) {
      if (def[key] !== undefined && !(Array.isArray(def[key]) && (def[key] as unknown[]).every((t) => typeof t === 'string'))) {
        throw new FlagError(`--agents: agent "${name}": "${key}" must be a list of tool names`);
      }
    }
  }
  return parsed as Record<string, AgentDefinition>;
}

/** An agent of the agents folders as `--agents` would give it. */
function sdkAgent(d: FileAgent): AgentDefinition {
  return {
    description: d.description,
    prompt: d.systemPrompt,
    ...(d.tools ? { tools: [...d.tools] } : {}),
    ...(d.disallowedTools ? { disallowedTools: [...d.disallowedTools] } : {}),
    ...(d.model ? { model: d.model } : {}),
    ...(d.permissionMode ? { permissionMode: d.permissionMode as AgentDefinition['permissionMode'] } : {}),
  };
}

/**
 * --system-prompt or --system-prompt-file replace toolgate's prompt; --append-system-prompt(-file) add to whichever
 * prompt is used. Without either replacement the prompt is toolgate's full one (the Agent SDK's `claude_code`
 * preset), as claude's is — unless --agent names an agent, whose prompt is then the session's.
 */
function systemPromptOf(opts: RunOptions, cwd: string): Pick<Options, 'systemPrompt'> {
  if (opts.systemPrompt !== undefined && opts.systemPromptFile !== undefined) throw new FlagError('--system-prompt and --system-prompt-file cannot be used together');
  if (opts.appendSystemPrompt !== undefined && opts.appendSystemPromptFile !== undefined) {
    throw new FlagError('--append-system-prompt and --append-system-prompt-file cannot be used together');
  }
  const base = opts.systemPromptFile !== undefined ? readPromptFile('--system-prompt-file', opts.systemPromptFile, cwd) : opts.systemPrompt;
  const append = opts.appendSystemPromptFile !== undefined ? readPromptFile('--append-system-prompt-file', opts.appendSystemPromptFile, cwd) : opts.appendSystemPrompt;
  if (base !== undefined) return { systemPrompt: append ? `${base}\n\n${append}` : base };
  if (opts.agent !== undefined) {
    if (append) throw new FlagError('--append-system-prompt with --agent: put the text in the agent\'s prompt instead (toolgate uses the agent\'s prompt as the system prompt)');
    return {};
  }
  return { systemPrompt: { type: 'preset', preset: 'claude_code', ...(append ? { append } : {}) } };
}

function readPromptFile(flag: string, file: string, cwd: string): string {
  const full = path.resolve(cwd, file);
  try {
    return readFileSync(full, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FlagError(code === 'ENOENT' || code === 'ENOTDIR' ? `${flag}: file not found: ${full}` : `${flag}: cannot read ${full} (${code ?? String(error)})`);
  }
}
