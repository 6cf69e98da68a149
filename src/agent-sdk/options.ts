/**
 * The options of `query()`, `canUseTool` and the permission shapes, in the Claude Agent SDK's names and shapes, so a
 * program's options object type-checks and means the same. Which options toolgate honours, which it accepts and
 * ignores (they only make sense for a child process) and which it refuses is decided in `session-options.ts`.
 */
import type { SessionStore, SessionStoreFlush } from './session-store.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { HookCallbackMatcher, HookEvent } from './hook-types.js';
import type { PermissionMode, SDKUserMessage } from './messages.js';

export type SettingSource = 'user' | 'project' | 'local';
export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export type ThinkingConfig =
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' }
  | { type: 'enabled'; budgetTokens?: number; display?: 'summarized' | 'omitted' }
  | { type: 'disabled' };

/** A custom sub-agent the Agent tool can start (`options.agents`). */
export interface AgentDefinition {
  description: string;
  tools?: string[];
  disallowedTools?: string[];
  prompt: string;
  /** An alias (`sonnet`, `opus`, `haiku`), a full model id, or `inherit`. */
  model?: string;
  mcpServers?: (string | Record<string, McpServerConfig>)[];
  skills?: string[];
  initialPrompt?: string;
  maxTurns?: number;
  background?: boolean;
  permissionMode?: PermissionMode;
  effort?: EffortLevel | number;
}

export interface McpStdioServerConfig {
  type?: 'stdio';
  command: string;
  args?: string[];
  env?: Record<string, string>;
  timeout?: number;
  alwaysLoad?: boolean;
}
export interface McpSSEServerConfig {
  type: 'sse';
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
  alwaysLoad?: boolean;
}
export interface McpHttpServerConfig {
  type: 'http';
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
  alwaysLoad?: boolean;
}
/** An in-process server made by `createSdkMcpServer`. */
export interface McpSdkServerConfigWithInstance {
  type: 'sdk';
  name: string;
  instance: McpServer;
  timeout?: number;
}
export type McpServerConfig = McpStdioServerConfig | McpSSEServerConfig | McpHttpServerConfig | McpSdkServerConfigWithInstance;

export interface PermissionRuleValue {
  toolName: string;
  ruleContent?: string;
}
export type PermissionBehavior = 'allow' | 'deny' | 'ask';
export type PermissionUpdateDestination = 'userSettings' | 'projectSettings' | 'localSettings' | 'session' | 'cliArg';

/** A change to the permission rules or mode that comes with an answer (`updatedPermissions`), or is suggested. */
export type PermissionUpdate =
  | { type: 'addRules' | 'replaceRules' | 'removeRules'; rules: PermissionRuleValue[]; behavior: PermissionBehavior; destination: PermissionUpdateDestination }
  | { type: 'setMode'; mode: PermissionMode; destination: PermissionUpdateDestination }
  | { type: 'addDirectories' | 'removeDirectories'; directories: string[]; destination: PermissionUpdateDestination };

/** What `canUseTool` answers. */
export type PermissionResult =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; updatedPermissions?: PermissionUpdate[]; toolUseID?: string }
  | { behavior: 'deny'; message: string; interrupt?: boolean; toolUseID?: string };

/** Asked before a tool call that no rule settles. */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: {
    signal: AbortSignal;
    suggestions?: PermissionUpdate[];
    blockedPath?: string;
    decisionReason?: string;
    toolUseID: string;
    agentID?: string;
    title?: string;
    displayName?: string;
    description?: string;
  },
) => Promise<PermissionResult>;

/** Structured output: the session's answer must match this JSON schema. */
export interface JsonSchemaOutputFormat {
  type: 'json_schema';
  schema: Record<string, unknown>;
}
export type OutputFormat = JsonSchemaOutputFormat;

/** Sandbox settings (Claude Code's `sandbox` key). */
export type SandboxSettings = Record<string, unknown> & { enabled?: boolean };

/** Options of `query()`. */
export interface Options {
  abortController?: AbortController;
  additionalDirectories?: string[];
  projectConfigRoot?: string;
  agent?: string;
  agents?: Record<string, AgentDefinition>;
  allowedTools?: string[];
  canUseTool?: CanUseTool;
  continue?: boolean;
  cwd?: string;
  disallowedTools?: string[];
  toolAliases?: Record<string, string>;
  tools?: string[] | { type: 'preset'; preset: 'claude_code' };
  /** The environment the session sees; it replaces `process.env` (spread it yourself to keep it). */
  env?: { [name: string]: string | undefined };
  executable?: 'bun' | 'deno' | 'node';
  executableArgs?: string[];
  extraArgs?: Record<string, string | null>;
  fallbackModel?: string;
  enableFileCheckpointing?: boolean;
  toolConfig?: Record<string, unknown>;
  forkSession?: boolean;
  betas?: string[];
  hooks?: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  onElicitation?: (request: { serverName: string; message: string; mode?: 'form' | 'url'; url?: string; requestedSchema?: Record<string, unknown> }, options: { signal: AbortSignal }) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }>;
  onUserDialog?: (...args: unknown[]) => unknown;
  supportedDialogKinds?: string[];
  perTaskStopAffordance?: boolean;
  persistSession?: boolean;
  /** Every transcript entry is mirrored to it (session-store.ts); the state folder keeps the transcript a resume reads. */
  sessionStore?: SessionStore;
  sessionStoreFlush?: SessionStoreFlush;
  loadTimeoutMs?: number;
  includeHookEvents?: boolean;
  includePartialMessages?: boolean;
  forwardSubagentText?: boolean;
  verbatimPrompts?: boolean;
  thinking?: ThinkingConfig;
  effort?: EffortLevel;
  maxThinkingTokens?: number;
  maxTurns?: number;
  maxBudgetUsd?: number;
  taskBudget?: { total: number };
  mcpServers?: Record<string, McpServerConfig>;
  mcpServersDelivery?: 'argv' | 'initialize';
  model?: string;
  outputFormat?: OutputFormat;
  pathToClaudeCodeExecutable?: string;
  permissionMode?: PermissionMode;
  planModeInstructions?: string;
  allowDangerouslySkipPermissions?: boolean;
  permissionPromptToolName?: string;
  permissionPrompts?: 'host' | 'none';
  plugins?: { type: 'local'; path: string }[];
  pluginDelivery?: 'argv' | 'initialize';
  promptSuggestions?: boolean;
  agentProgressSummaries?: boolean;
  resume?: string;
  sessionId?: string;
  resumeSessionAt?: string;
  resumeDropsTurn?: string;
  sandbox?: SandboxSettings;
  /** A settings file's path or a settings object (the `--settings` level). */
  settings?: string | Record<string, unknown>;
  managedSettings?: Record<string, unknown>;
  settingSources?: SettingSource[];
  skills?: string[] | 'all';
  debug?: boolean;
  debugFile?: string;
  stderr?: (data: string) => void;
  strictMcpConfig?: boolean;
  systemPrompt?:
    | string
    | string[]
    | { type: 'custom'; prompt: string | string[]; snapshot?: boolean }
    | { type: 'preset'; preset: 'claude_code'; append?: string; excludeDynamicSections?: boolean; snapshot?: boolean };
  title?: string;
  spawnClaudeCodeProcess?: (...args: unknown[]) => unknown;
}

/** What `query()` takes: a prompt (or a stream of user messages) and the options. */
export interface QueryParams {
  prompt: string | AsyncIterable<SDKUserMessage>;
  options?: Options;
}
