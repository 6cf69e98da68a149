/**
 * What a session is made of, in toolgate's own words: the faces (the Agent SDK face, the CLI's `-p` and terminal
 * session, the durable backend) each translate their options into a `SessionOptions` once, and the session wires
 * settings, MCP servers, agents, hooks, permission answers and the loop from it — in one place (setup.ts).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentDefinition, PermissionAnswer, QueryEvent, QueryResult, QuestionAnswer, QuestionRequest, RuntimePermissionRequest } from '../agent/types.js';
import type { QueryOptions } from '../agent/query-options.js';
import type { Effort } from '../agent/request.js';
import type { AutoClassifierOptions } from '../agent/auto-classifier.js';
import type { HookCallback } from '../hooks/types.js';
import type { PermissionClassifier } from '../permissions/auto-mode.js';
import type { McpServerConfig } from '../mcp/config.js';
import type { PermissionMode } from '../tool/permission-types.js';
import type { CheckpointSettings } from './checkpoints.js';

/** Options a session cannot be started with: the message says which and why (a face may reword it in its own terms). */
export class SessionOptionError extends TypeError {
  override readonly name = 'SessionOptionError';
}

/** Where the loop runs: in this process, or durably on toolgate workers behind a Restate ingress. */
export type SessionBackend = { readonly kind: 'local' } | { readonly kind: 'restate'; readonly url: string };

/** The settings files a session reads besides the machine's managed policy (always read). */
export type SessionSettingSource = 'user' | 'project' | 'local';

/** The loop a session runs: `query()` (src/agent), or a stand-in with the same contract (a test's scripted loop). */
export type SessionLoop = (options: QueryOptions) => AsyncGenerator<QueryEvent, QueryResult | void>;

export interface SessionOptions {
  // — where, and with which environment and model client —
  /** Working directory and project root (default: `process.cwd()`). */
  readonly cwd?: string;
  /**
   * The session's environment (default: `process.env`): what the tools' processes and hooks start from, the model
   * client's credentials (`ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`), the model table's
   * `ANTHROPIC_DEFAULT_*_MODEL`, `HOME`, the state folder. `process.env` is never changed.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The Messages API client (default: one made from `env`, no SDK retries: the loop retries). */
  readonly client?: Anthropic;
  /** API betas (`anthropic-beta`) for every request. */
  readonly betas?: readonly string[];

  // — ids and folders —
  /** A new session's id (default: a fresh UUID). */
  readonly sessionId?: string;
  /** Go on from this session: its id (a folder of `sessionsDir`) or a transcript's path. */
  readonly resume?: string;
  /** Go on from the newest session of `cwd`. */
  readonly continue?: boolean;
  /** With `resume` or `continue`: go on under a new id (the old transcript stays as it was). */
  readonly fork?: boolean;
  /**
   * With `resume`: the conversation goes on from this message of it (the transcript's message id, as
   * `getSessionMessages` gives it), included; under a new id — the transcript resumed stays whole.
   */
  readonly resumeAt?: string;
  /**
   * File checkpoints (docs/checkpoints.md): before each user message the files of `cwd` and the added directories are
   * recorded, so `rewindFiles` can put them back — whatever tool changed them, Bash included. `true`: the defaults.
   */
  readonly checkpoints?: boolean | CheckpointSettings;
  /** `false`: no transcript is written (the session cannot be resumed). */
  readonly persist?: boolean;
  /** Told each entry of the session's transcript once it is written to the state folder (the main thread's, not sub-agents'). */
  readonly onTranscriptEntry?: (entry: Readonly<Record<string, unknown>> & { readonly type: string }) => void;
  /** The folder of the session folders (default: `<state>/sessions`). */
  readonly sessionsDir?: string;
  /** More working directories the tools may use. */
  readonly additionalDirectories?: readonly string[];

  // — settings —
  /** Which settings files to read (default: all three; `[]`: none). The managed policy file is always read. */
  readonly settingSources?: readonly SessionSettingSource[];
  /** Settings files (a path or inline JSON) above the standard ones; a later one wins. */
  readonly settingsFiles?: readonly string[];
  /** A settings object, above every file but the managed policy. */
  readonly settings?: Readonly<Record<string, unknown>>;

  // — MCP, agents, tools, rules, hooks —
  /** MCP servers of the session (in-process ones too), beside those the settings and `.mcp.json` name. */
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /** Only the servers of `mcpServers`: none from settings or `.mcp.json`. */
  readonly strictMcpConfig?: boolean;
  /** Agent types of this session, beside the built-in ones and those of the agents folders. */
  readonly agents?: readonly AgentDefinition[];
  /** The agent the main thread runs as (one of `agents`): its prompt, tools, model and mode. */
  readonly agent?: string;
  /** The built-in tools offered, by name (default: all; `[]`: none). */
  readonly tools?: readonly string[];
  /**
   * Every built-in's module loaded when the session starts (a face that draws calls from the pool: the terminal).
   * Default: a built-in loads when first called (registry/lazy-tool.ts); what the session hands a face (a tool_use
   * event, a permission request, a result) waits for it, and `tools`/`findTool` may answer a stub until then.
   */
  readonly eagerTools?: boolean;
  readonly allowedTools?: readonly string[];
  readonly disallowedTools?: readonly string[];
  readonly mode?: PermissionMode;
  /** bypassPermissions may be entered later (a mode change) though the session does not start in it. */
  readonly allowBypass?: boolean;
  /**
   * Plugin folders (Claude Code's plugin format: `--plugin-dir`, the Agent SDK's `plugins`), beside those the settings
   * enable; relative to `cwd`. One that cannot be read stops the session (session/plugins.ts).
   */
  readonly plugins?: readonly string[];
  /** In-process hook callbacks, beside the hooks of the settings files. */
  readonly hooks?: readonly HookCallback[];
  /**
   * Auto mode's classifier: a function of yours, options of the built-in one, or `false` for none (default: the
   * built-in one over the session's client, as the settings' `toolgate.autoMode` configure it).
   */
  readonly classifier?: PermissionClassifier | AutoClassifierOptions | false;

  // — who answers —
  /** Answers permission prompts. Absent: headless, what would ask is denied with the rule that would allow it. */
  readonly onPermissionRequest?: (request: RuntimePermissionRequest) => Promise<PermissionAnswer>;
  /** An MCP tool (`mcp__server__tool`) that answers permission prompts, when there is no `onPermissionRequest`. */
  readonly permissionPromptTool?: string;
  /** Answers questions (AskUserQuestion, MCP elicitation, plan approval). Absent: they are declined. */
  readonly onQuestion?: (request: QuestionRequest) => Promise<QuestionAnswer>;

  // — the loop —
  /** An alias or a model id (default: the main agent's, else `ANTHROPIC_MODEL`, else the table's default). */
  readonly model?: string;
  /** Models to fall back to when the main one is overloaded or unavailable (comma-separated). */
  readonly fallbackModel?: string;
  readonly maxTurns?: number;
  readonly maxBudgetUsd?: number;
  readonly thinking?: Anthropic.Messages.ThinkingConfigParam;
  /** The model's effort (`output_config.effort` and its beta on every request). */
  readonly effort?: Effort;
  /** Replaces toolgate's system prompt. */
  readonly systemPrompt?: string;
  /** Added to the end of the system prompt. */
  readonly appendSystemPrompt?: string;
  /** The answer's JSON Schema (structured output: a `StructuredOutput` tool the model answers with). */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** Each raw Messages API stream event as a `stream_event` event. */
  readonly streamEvents?: boolean;
  /** `false`: a message starting with `/` is sent as typed, not expanded as a skill or custom command. */
  readonly expandSlashCommands?: boolean;

  // — how it runs —
  /** Where the loop runs (default: this process). */
  readonly backend?: SessionBackend;
  /**
   * Told the durable session's id once its first run is accepted: a client that dies can attach to the run again
   * (the same prompt, `resume` with that id). Default: said through `warn`.
   */
  readonly onDurableRun?: (sessionId: string) => void;
  /** Ends the session (as `close()` does) when aborted. */
  readonly signal?: AbortSignal;
  /** Warnings a person should see (settings, MCP servers that failed): one line each. */
  readonly warn?: (text: string) => void;
  /** The loop to run (default: `query()`). */
  readonly loop?: SessionLoop;
}

/** A background task a session's call started ended: how, and where its output is. */
export interface SessionTaskEnd {
  readonly id: string;
  readonly status: 'completed' | 'failed' | 'killed';
  readonly outputFile: string;
  /** One line: what ended and how. */
  readonly summary: string;
  readonly endedAt: number;
}

/** What a session yields: the loop's events, and the end of a background task it waited for. */
export type SessionEvent = QueryEvent | { readonly type: 'task_ended'; readonly task: SessionTaskEnd };
