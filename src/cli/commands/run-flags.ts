/**
 * `toolgate run`'s flags as a session (`SessionOptions`), once, for `-p` and the terminal session alike: each flag
 * becomes what it means for the session, and every file a flag names (`--mcp-config`, `--agents`, the prompt files)
 * is read here, once. What is checked here is only what a flag's text can get wrong (a malformed --agents JSON, a
 * --session-id that is not a UUID, a missing --system-prompt-file): each is one line naming the flag, before anything
 * starts. The output flags of `-p` (`--output-format`, `--input-format`, `--include-partial-messages`,
 * `--replay-user-messages`, `--include-hook-events`, `--forward-subagent-text`) and who answers its permission prompts
 * (`--json-schema`, `--permission-prompt-tool`, `--permission-prompts`) mean nothing in a terminal: `printOnlyFlags`
 * names those given there.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentTypesFor } from '../../agent/agent-types.js';
import { EFFORTS, type Effort } from '../../agent/request.js';
import type { AgentDefinition } from '../../agent/types.js';
import { defaultSessionDir, stateDirectory } from '../../agent/session-dir.js';
import { latestSessionFor, transcriptPath } from '../../agent/transcript.js';
import { parseBackendSpec } from '../../distributed/backend-spec.js';
import { loadMcpConfig } from '../../mcp/load-config.js';
import type { McpServerConfig } from '../../mcp/config.js';
import type { SessionOptions, SessionSettingSource } from '../../session/index.js';
import type { PermissionMode } from '../../tool/permission-types.js';
import { inlineJsonOrPath, isInlineJson, readConfigText } from '../../tool/read-config-file.js';
import type { RunOptions } from './run.js';

/** A flag whose value cannot be used: exit 1 with this one line (and a JSON error result under the JSON formats). */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

const SETTING_SOURCES: readonly SessionSettingSource[] = ['user', 'project', 'local'];
const EFFORT_LEVELS: readonly string[] = EFFORTS;
const INPUT_FORMATS = ['text', 'stream-json'];

export interface RunSession {
  /** The session the flags describe. */
  readonly session: SessionOptions;
  /** What `-p` prints beyond the default messages. */
  readonly output: { readonly includePartialMessages?: boolean; readonly includeHookEvents?: boolean; readonly forwardSubagentText?: boolean };
  readonly replayUserMessages: boolean;
  readonly inputFormat: 'text' | 'stream-json';
  /** Flags accepted that change nothing in toolgate: one stderr line each. */
  readonly notes: readonly string[];
}

/** Flags given that only `-p` applies (docs/cli.md): the terminal session says it does not. */
export function printOnlyFlags(opts: RunOptions): string[] {
  const given: [string, boolean][] = [
    ['--input-format', opts.inputFormat !== undefined],
    ['--include-partial-messages', opts.includePartialMessages === true],
    ['--replay-user-messages', opts.replayUserMessages === true],
    ['--include-hook-events', opts.includeHookEvents === true],
    ['--forward-subagent-text', opts.forwardSubagentText === true],
    ['--json-schema', opts.jsonSchema !== undefined],
    ['--permission-prompts', opts.permissionPrompts !== undefined],
    ['--permission-prompt-tool', opts.permissionPromptTool !== undefined],
  ];
  return given.filter(([, on]) => on).map(([flag]) => flag);
}

/** The session of a `toolgate run`; throws `FlagError` on a value that cannot be used. */
export function runSessionOptions(opts: RunOptions, mode: { readonly print: boolean }, env: NodeJS.ProcessEnv = process.env): RunSession {
  const cwd = path.resolve(opts.cwd);
  const notes: string[] = [];
  const inputFormat = opts.inputFormat ?? 'text';
  if (!INPUT_FORMATS.includes(inputFormat)) throw new FlagError(`unknown --input-format "${inputFormat}" (expected one of: ${INPUT_FORMATS.join(', ')})`);
  const maxTurns = positive('--max-turns', opts.maxTurns, Number.isInteger);
  const budget = positive('--max-budget-usd', opts.maxBudgetUsd, Number.isFinite, 'a positive number of dollars');
  if (opts.sessionId !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(opts.sessionId)) throw new FlagError(`--session-id must be a valid UUID (got "${opts.sessionId}")`);
  if (opts.resumeSessionAt !== undefined && typeof opts.resume !== 'string') throw new FlagError('--resume-session-at needs --resume ID (the session it cuts)');
  if (opts.sessionId !== undefined && (opts.continue || opts.resume !== undefined) && !opts.forkSession) {
    throw new FlagError('--session-id can only be used with --continue or --resume if --fork-session is also given');
  }
  if (opts.effort !== undefined && !EFFORT_LEVELS.includes(opts.effort)) throw new FlagError(`--effort must be one of ${EFFORT_LEVELS.join(', ')} (got "${opts.effort}")`);
  if (opts.permissionPrompts !== undefined && opts.permissionPrompts !== 'host' && opts.permissionPrompts !== 'none') {
    throw new FlagError(`--permission-prompts must be "host" or "none" (got "${opts.permissionPrompts}")`);
  }
  const backend = backendOf(opts, mode.print);
  const agents = opts.agents !== undefined ? agentsOf(opts.agents, cwd) : [];
  const mode_ = opts.permissionMode === 'manual' ? 'default' : opts.permissionMode;
  const bypass = opts.dangerouslySkipPermissions === true || mode_ === 'bypassPermissions';
  // In a terminal the person answers the prompts; only -p hands them to a tool or refuses them.
  const prompts = mode.print && opts.permissionPrompts !== 'none';
  const session: SessionOptions = {
    cwd,
    ...(opts.model !== undefined ? { model: opts.model } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(budget !== undefined ? { maxBudgetUsd: budget } : {}),
    ...(opts.fallbackModel !== undefined ? { fallbackModel: opts.fallbackModel } : {}),
    // The flag is the explicit choice the session asks for with allowBypass.
    ...(bypass ? { mode: 'bypassPermissions' as const, allowBypass: true } : mode_ !== undefined ? { mode: mode_ as PermissionMode } : {}),
    ...(opts.allowDangerouslySkipPermissions ? { allowBypass: true } : {}),
    allowedTools: opts.allowedTools,
    disallowedTools: opts.disallowedTools,
    ...(opts.addDir.length > 0 ? { additionalDirectories: opts.addDir.map((d) => path.resolve(cwd, d)) } : {}),
    ...(opts.settings.length > 0 ? { settingsFiles: opts.settings.map((s) => inlineJsonOrPath(s, cwd)) } : {}),
    ...(opts.settingSources !== undefined ? { settingSources: settingSources(opts.settingSources) } : {}),
    ...toolsOf(opts.tools),
    ...(opts.mcpConfig.length > 0 ? { mcpServers: mcpServersOf(opts.mcpConfig, cwd, env) } : {}),
    ...(opts.strictMcpConfig ? { strictMcpConfig: true } : {}),
    ...(opts.pluginDir.length > 0 ? { plugins: opts.pluginDir.map((d) => path.resolve(cwd, d)) } : {}),
    ...(prompts && opts.permissionPromptTool !== undefined ? { permissionPromptTool: opts.permissionPromptTool } : {}),
    ...(mode.print && opts.jsonSchema !== undefined ? { outputSchema: jsonSchema(opts.jsonSchema) } : {}),
    ...(agents.length > 0 ? { agents } : {}),
    ...(opts.agent !== undefined ? mainAgent(opts.agent, agents, cwd, env) : {}),
    ...systemPromptOf(opts, cwd),
    // On the durable backend `--resume ID` names the durable session (its conversation is kept there, not here).
    ...(backend ? { backend, ...(typeof opts.resume === 'string' ? { resume: opts.resume } : {}) } : resumeOf(opts, cwd, env, mode.print)),
    ...(opts.forkSession ? { fork: true } : {}),
    ...(opts.resumeSessionAt !== undefined ? { resumeAt: opts.resumeSessionAt } : {}),
    // The terminal session checkpoints unless told not to (as Claude Code's does); -p only when asked (`--checkpoints`).
    ...((opts.checkpoints ?? !mode.print) ? { checkpoints: true } : {}),
    ...(opts.sessionId !== undefined ? { sessionId: opts.sessionId } : {}),
    ...(opts.sessionPersistence === false ? { persist: false } : {}),
    ...(opts.betas.length > 0 ? { betas: opts.betas } : {}),
    // Sent as Claude Code sends it: `output_config.effort` with its beta (agent/request.ts).
    ...(opts.effort !== undefined ? { effort: opts.effort as Effort } : {}),
    ...(mode.print && opts.includePartialMessages ? { streamEvents: true } : {}),
  };
  if (opts.debug !== undefined) notes.push('--debug is accepted for compatibility with claude; toolgate writes no debug log');
  return {
    session,
    output: {
      ...(opts.includePartialMessages ? { includePartialMessages: true } : {}),
      ...(opts.includeHookEvents ? { includeHookEvents: true } : {}),
      ...(opts.forwardSubagentText ? { forwardSubagentText: true } : {}),
    },
    replayUserMessages: opts.replayUserMessages === true,
    inputFormat: inputFormat as 'text' | 'stream-json',
    notes,
  };
}

function positive(flag: string, value: string | undefined, ok: (n: number) => boolean, what = 'a positive integer'): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(ok(n) && n > 0)) throw new FlagError(`${flag} must be ${what} (got "${value}")`);
  return n;
}

/** `--backend restate=URL`: the session runs durably on the workers (with `-p`; `--resume ID` names its session). */
function backendOf(opts: RunOptions, print: boolean): SessionOptions['backend'] {
  if (opts.backend === undefined || opts.backend === 'local') return undefined;
  let spec: ReturnType<typeof parseBackendSpec>;
  try {
    spec = parseBackendSpec(opts.backend);
  } catch (error) {
    throw new FlagError(error instanceof Error ? error.message : String(error));
  }
  if (spec.kind === 'local') return undefined;
  if (!print) throw new FlagError('--backend restate=URL runs headless sessions: use it with -p');
  if (opts.continue || opts.resume === true) throw new FlagError('--continue and --resume without an id are not available with --backend restate=URL: use --resume ID');
  return { kind: 'restate', url: spec.url };
}

/** Which session goes on: --continue (the newest of this folder), --resume ID, --resume alone (headless: the newest). */
function resumeOf(opts: RunOptions, cwd: string, env: NodeJS.ProcessEnv, print: boolean): Pick<SessionOptions, 'resume'> {
  const sessionsRoot = path.join(stateDirectory(env), 'sessions');
  // In a terminal `--resume` alone opens the picker (run-interactive.ts).
  if (opts.continue || (opts.resume === true && print)) {
    const latest = latestSessionFor(sessionsRoot, cwd);
    if (!latest) throw new FlagError(`No conversation found to continue in ${cwd}`);
    return { resume: latest };
  }
  if (typeof opts.resume === 'string') {
    if (!existsSync(transcriptPath(defaultSessionDir(opts.resume, env)))) throw new FlagError(`No conversation found with session ID: ${opts.resume}`);
    return { resume: opts.resume };
  }
  return {};
}

/** `--setting-sources user,project` (commas or spaces; "" loads none of the files). */
function settingSources(value: string): SessionSettingSource[] {
  const list = value.split(/[,\s]+/).filter((s) => s !== '');
  const unknown = list.filter((s) => !(SETTING_SOURCES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new FlagError(`--setting-sources: unknown source "${unknown[0]}" (expected a comma-separated list of: ${SETTING_SOURCES.join(', ')})`);
  return list as SessionSettingSource[];
}

/** `--tools "Bash,Edit,Read"` (commas or spaces), `--tools ""` for none, `--tools default` for all. */
function toolsOf(values: readonly string[] | undefined): Pick<SessionOptions, 'tools'> {
  if (values === undefined) return {};
  const names = values.flatMap((v) => v.split(/[,\s]+/)).filter((n) => n !== '');
  if (names.length === 1 && names[0] === 'default') return {};
  if (names.includes('default')) throw new FlagError('--tools: "default" stands alone (all built-in tools); list names without it');
  return { tools: names };
}

/** Every `--mcp-config` (a file or inline JSON), read once; the first problem stops the run. */
function mcpServersOf(configs: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Record<string, McpServerConfig> {
  const { servers, problems } = loadMcpConfig({ cwd, mcpConfigs: configs.map((c) => inlineJsonOrPath(c, cwd)), strict: true, env });
  const first = problems[0];
  if (first) throw new FlagError(`Invalid MCP configuration: ${first.file}${first.server ? ` (server "${first.server}")` : ''}: ${first.message}`);
  return Object.fromEntries([...servers].map(([name, s]) => [name, s.config]));
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
function agentsOf(value: string, cwd: string): AgentDefinition[] {
  let text = value;
  if (!isInlineJson(value)) {
    const read = readConfigText(path.resolve(cwd, value));
    if (read.kind !== 'ok') throw new FlagError(`--agents is neither a JSON object nor a readable file: ${value}`);
    text = read.text;
  }
  let value_: unknown;
  try {
    value_ = JSON.parse(text);
  } catch (error) {
    throw new FlagError(`--agents is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (value_ === null || typeof value_ !== 'object' || Array.isArray(value_)) throw new FlagError('--agents must be a JSON object of agents by name');
  return Object.entries(value_).map(([name, d]) => {
    const def = d as Record<string, unknown> | null;
    if (def === null || typeof def !== 'object' || typeof def.description !== 'string' || typeof def.prompt !== 'string') {
      throw new FlagError(`--agents: agent "${name}" needs a "description" and a "prompt" (strings)`);
    }
    for (const key of ['tools', 'disallowedTools'] as const) {
      if (def[key] !== undefined && !(Array.isArray(def[key]) && (def[key] as unknown[]).every((t) => typeof t === 'string'))) {
        throw new FlagError(`--agents: agent "${name}": "${key}" must be a list of tool names`);
      }
    }
    return {
      agentType: name,
      description: def.description,
      systemPrompt: def.prompt,
      source: 'session' as const,
      ...(def.tools ? { tools: def.tools as string[] } : {}),
      ...(def.disallowedTools ? { disallowedTools: def.disallowedTools as string[] } : {}),
      ...(typeof def.model === 'string' ? { model: def.model } : {}),
      ...(typeof def.permissionMode === 'string' ? { permissionMode: def.permissionMode as PermissionMode } : {}),
    };
  });
}

/**
 * `--agent NAME`: one of --agents, else an agent of the agents folders (~/.claude/agents, .claude/agents) or a
 * built-in one.
 */
function mainAgent(name: string, agents: AgentDefinition[], cwd: string, env: NodeJS.ProcessEnv): Pick<SessionOptions, 'agent'> {
  if (!agentTypesFor(cwd, env.HOME ?? os.homedir(), agents).some((d) => d.agentType === name)) {
    throw new FlagError(`--agent "${name}" is neither one of --agents nor an agent of ~/.claude/agents or .claude/agents`);
  }
  return { agent: name };
}

/**
 * --system-prompt or --system-prompt-file replace toolgate's prompt; --append-system-prompt(-file) add to whichever
 * prompt is used. Without either replacement the prompt is toolgate's full one, as claude's is — unless --agent names
 * an agent, whose prompt is then the session's.
 */
function systemPromptOf(opts: RunOptions, cwd: string): Pick<SessionOptions, 'systemPrompt' | 'appendSystemPrompt'> {
  if (opts.systemPrompt !== undefined && opts.systemPromptFile !== undefined) throw new FlagError('--system-prompt and --system-prompt-file cannot be used together');
  if (opts.appendSystemPrompt !== undefined && opts.appendSystemPromptFile !== undefined) {
    throw new FlagError('--append-system-prompt and --append-system-prompt-file cannot be used together');
  }
  const base = opts.systemPromptFile !== undefined ? readPromptFile('--system-prompt-file', opts.systemPromptFile, cwd) : opts.systemPrompt;
  const append = opts.appendSystemPromptFile !== undefined ? readPromptFile('--append-system-prompt-file', opts.appendSystemPromptFile, cwd) : opts.appendSystemPrompt;
  if (base === undefined && opts.agent !== undefined && append) {
    throw new FlagError('--append-system-prompt with --agent: put the text in the agent\'s prompt instead (toolgate uses the agent\'s prompt as the system prompt)');
  }
  return { ...(base !== undefined ? { systemPrompt: base } : {}), ...(append ? { appendSystemPrompt: append } : {}) };
}

function readPromptFile(flag: string, file: string, cwd: string): string {
  const full = path.resolve(cwd, file);
  const read = readConfigText(full, { lenientUtf8: true });
  if (read.kind === 'ok') return read.text;
  throw new FlagError(read.kind === 'missing' ? `${flag}: file not found: ${full}` : `${flag}: cannot read ${full} (${read.message})`);
}
