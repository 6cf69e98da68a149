/**
 * Which of the Agent SDK's options toolgate honours, which it accepts and ignores, and which it refuses — decided
 * here, once, before anything starts. An option a program passes is never silently dropped: an unknown name is an
 * error (a typo must not weaken a session), an option that only means something for a child process is accepted and
 * ignored (documented in docs/agent-sdk.md), and one whose absence could change what a session may do (tool aliases,
 * another project's configuration, policy settings) is refused with the reason, rather than run without it.
 */
import type { Options } from './options.js';

/** An option toolgate cannot take as given: an unknown name, a wrong value, or one it refuses (the message says why). */
export class AgentSdkOptionError extends TypeError {
  override readonly name = 'AgentSdkOptionError';
}

/** Options honoured by the session engine. */
const HONOURED = [
  'abortController',
  'additionalDirectories',
  'agent',
  'agents',
  'allowedTools',
  'canUseTool',
  'continue',
  'cwd',
  'disallowedTools',
  'tools',
  'env',
  'fallbackModel',
  'forkSession',
  'enableFileCheckpointing',
  'resumeSessionAt',
  'sessionStore',
  'sessionStoreFlush',
  'betas',
  'hooks',
  'onElicitation',
  'persistSession',
  'includeHookEvents',
  'includePartialMessages',
  'forwardSubagentText',
  'verbatimPrompts',
  'thinking',
  'effort',
  'maxThinkingTokens',
  'maxTurns',
  'maxBudgetUsd',
  'mcpServers',
  'model',
  'outputFormat',
  'permissionMode',
  'allowDangerouslySkipPermissions',
  'permissionPromptToolName',
  'permissionPrompts',
  'plugins',
  'resume',
  'sessionId',
  'sandbox',
  'skills',
  'settings',
  'settingSources',
  'stderr',
  'strictMcpConfig',
  'systemPrompt',
  'title',
] as const;

/**
 * Accepted and ignored: they configure the Claude Code process the Agent SDK would start (toolgate starts none) or
 * features toolgate has no reason to produce (prompt suggestions, progress summaries, dialogs).
 */
export const IGNORED_OPTIONS = [
  'executable',
  'executableArgs',
  'extraArgs',
  'pathToClaudeCodeExecutable',
  'spawnClaudeCodeProcess',
  'mcpServersDelivery',
  'pluginDelivery',
  'loadTimeoutMs',
  'debug',
  'debugFile',
  'perTaskStopAffordance',
  'promptSuggestions',
  'agentProgressSummaries',
  'supportedDialogKinds',
  'onUserDialog',
  'toolConfig',
  'planModeInstructions',
  'taskBudget',
] as const;

/** Refused: running without them could let a session do what the program meant to stop, or lose what it meant to keep. */
const REFUSED: Readonly<Record<string, string>> = {
  projectConfigRoot: 'project settings and hooks would come from cwd instead of the trusted checkout',
  toolAliases: "a call to the aliased name would run the built-in tool instead of the program's own",
  managedSettings: "policy settings are read from the machine's managed settings file only",
  resumeDropsTurn: 'toolgate does not check what a resumeSessionAt leaves out',
};

const KNOWN = new Set<string>([...HONOURED, ...IGNORED_OPTIONS, ...Object.keys(REFUSED)]);

/** What toolgate does with an option of the Agent SDK's (undefined: not an option; passing it is an error). */
export function optionDisposition(name: string): 'honoured' | 'ignored' | 'refused' | undefined {
  if ((HONOURED as readonly string[]).includes(name)) return 'honoured';
  if ((IGNORED_OPTIONS as readonly string[]).includes(name)) return 'ignored';
  return name in REFUSED ? 'refused' : undefined;
}
const MODES = new Set(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk', 'auto']);
const SOURCES = new Set(['user', 'project', 'local']);

/** Checks a program's options; returns the names it passed that toolgate ignores (for a note on `stderr`). */
export function checkOptions(options: Options | undefined): string[] {
  if (options === undefined) return [];
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new AgentSdkOptionError('options must be an object');
  const ignored: string[] = [];
  for (const key of Object.keys(options)) {
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (!KNOWN.has(key)) throw new AgentSdkOptionError(`options.${key} is not an option of query()${suggest(key)}`);
    if (key in REFUSED && !isEmpty(value)) throw new AgentSdkOptionError(`options.${key} is not supported by toolgate/agent-sdk: ${REFUSED[key]}`);
    if ((IGNORED_OPTIONS as readonly string[]).includes(key)) ignored.push(key);
  }
  const o = options;
  expect(o.cwd === undefined || typeof o.cwd === 'string', 'options.cwd must be a path');
  expect(o.model === undefined || (typeof o.model === 'string' && o.model.trim() !== ''), 'options.model must be a model name');
  expect(o.maxTurns === undefined || (Number.isInteger(o.maxTurns) && o.maxTurns > 0), 'options.maxTurns must be a positive integer');
  expect(o.maxBudgetUsd === undefined || (typeof o.maxBudgetUsd === 'number' && o.maxBudgetUsd > 0), 'options.maxBudgetUsd must be a positive number of dollars');
  expect(o.maxThinkingTokens === undefined || (Number.isInteger(o.maxThinkingTokens) && o.maxThinkingTokens >= 0), 'options.maxThinkingTokens must be a whole number');
  expect(o.permissionMode === undefined || MODES.has(o.permissionMode), `options.permissionMode must be one of ${[...MODES].join(', ')}`);
  expect(o.settingSources === undefined || (Array.isArray(o.settingSources) && o.settingSources.every((s) => SOURCES.has(s))), 'options.settingSources must list "user", "project" or "local"');
  for (const key of ['allowedTools', 'disallowedTools', 'additionalDirectories', 'betas'] as const) {
    const list = o[key];
    expect(list === undefined || (Array.isArray(list) && list.every((x) => typeof x === 'string')), `options.${key} must be an array of strings`);
  }
  expect(o.tools === undefined || (Array.isArray(o.tools) ? o.tools.every((t) => typeof t === 'string') : o.tools?.type === 'preset'), 'options.tools must be a list of tool names or { type: "preset", preset: "claude_code" }');
  expect(o.canUseTool === undefined || typeof o.canUseTool === 'function', 'options.canUseTool must be a function');
  expect(o.stderr === undefined || typeof o.stderr === 'function', 'options.stderr must be a function');
  expect(o.abortController === undefined || o.abortController instanceof AbortController, 'options.abortController must be an AbortController');
  expect(o.env === undefined || (typeof o.env === 'object' && o.env !== null), 'options.env must be an object of strings');
  expect(!(o.continue && o.resume), 'options.continue and options.resume cannot be used together');
  expect(o.resumeSessionAt === undefined || (typeof o.resumeSessionAt === 'string' && o.resume !== undefined), 'options.resumeSessionAt needs options.resume (the session it cuts)');
  expect(o.sessionId === undefined || isUuid(o.sessionId), 'options.sessionId must be a UUID');
  expect(o.sessionId === undefined || !(o.resume || o.continue) || o.forkSession === true, 'options.sessionId can be used with resume or continue only together with forkSession');
  expect(o.outputFormat === undefined || o.outputFormat.type === 'json_schema', 'options.outputFormat.type must be "json_schema"');
  const schema: unknown = o.outputFormat?.schema;
  expect(o.outputFormat === undefined || (schema !== null && typeof schema === 'object' && !Array.isArray(schema)), 'options.outputFormat.schema must be a JSON Schema object');
  expect(o.outputFormat === undefined || [undefined, 'object'].includes((schema as { type?: unknown }).type as string | undefined), 'options.outputFormat.schema must describe an object ({"type": "object", …})');
  expect(o.skills === undefined || o.skills === 'all', 'options.skills: toolgate offers every discovered skill ("all"); a list of skills is not supported');
  expect(o.permissionPrompts === undefined || o.permissionPrompts === 'host' || o.permissionPrompts === 'none', 'options.permissionPrompts must be "host" or "none"');
  // Fail closed, as the Agent SDK does: bypassing every check needs the explicit opt-in.
  expect(o.permissionMode !== 'bypassPermissions' || o.allowDangerouslySkipPermissions === true, 'options.permissionMode "bypassPermissions" needs options.allowDangerouslySkipPermissions: true');
  return ignored;
}

function expect(ok: boolean, message: string): void {
  if (!ok) throw new AgentSdkOptionError(message);
}

function isEmpty(value: unknown): boolean {
  return value === null || value === false || (Array.isArray(value) && value.length === 0);
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

function suggest(key: string): string {
  const lower = key.toLowerCase();
  const close = [...KNOWN].find((k) => k.toLowerCase() === lower || distance(k.toLowerCase(), lower) <= 2);
  return close ? ` (did you mean "${close}"?)` : '';
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length]![b.length]!;
}
