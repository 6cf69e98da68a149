/**
 * The agent layer's public shapes: `createToolRuntime()` (one place that wires settings, hooks, the permission engine,
 * the tool pool and the executor) and `query()` (the streaming agent loop over `@anthropic-ai/sdk`).
 *
 * These types are the contract the CLI, the MCP server, the terminal UI and the distributed backend build on. Change
 * them additively; a breaking change here breaks four layers at once. The loop's own shapes (`QueryLive`,
 * `QueryEvent`, `QueryResult`, `Usage`, …) live in query-types.ts and are re-exported here, so that this module stays
 * the one place the other layers import the agent layer's shapes from — all but `QueryOptions` (query-options.ts),
 * which names `ToolRuntime` and would make the two modules import each other.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { PluginFolder } from '../settings/plugin-folder.js';
import type { TelemetryOption } from './telemetry/start.js';
import type { ToolQuestionAnswer, ToolQuestionRequest } from '../tools/shared/questions.js';
import type { ToolCallBackend } from '../execution/backend.js';
import type { TodoItem } from '../tools/todo-write/index.js';
import type { ToolUseOutcome } from '../execution/outcome.js';
import type { HookCallback } from '../hooks/types.js';
import type { PermissionDecision, PermissionMode, PermissionUpdate, ToolPermissionContext } from '../tool/permission-types.js';
import type { PermissionUpdateOptions, SavedPermissionUpdates } from '../permissions/permission-updates.js';
import type { TaskInfo } from '../tools/shared/task-registry.js';
import type { AgentDefinition } from '../tools/agent/agent-definitions.js';
import type { PermissionClassifier } from '../permissions/auto-mode.js';
import type { AutoClassifierOptions } from './auto-classifier.js';
import type { QueryEvent } from './query-types.js';
import type {
  AnyTool,
  APIToolDefinition,
  AssistantMessage,
  MessageParam,
  ToolProgress,
  ToolResultBlockParam,
  ToolUseBlock,
  ToolUseBlockParam,
  Tools,
} from '../tool/tool.js';
import type { PermissionRequest, ToolServices, ToolSessionState } from '../tool/tool-use-context.js';
import type { NotificationQueue } from '../tool/notification-queue.js';

/** Which settings files `createToolRuntime` reads, as Claude Code's `--setting-sources`. */
export type SettingSource = 'user' | 'project' | 'local' | 'managed';

/**
 * How a person (or a program acting for one) answers a permission prompt.
 * - `once`: this call only.
 * - `session`: the narrowest rule covering the call is added for the rest of the session (not written anywhere).
 * - `rule`: the rule(s) are written to a settings file (`destination`) and apply from now on; `expiresAt` is an ISO
 *   date after which the engine ignores the rule (toolgate's extension, see the permissions issue).
 * - `deny`: refused, `message` goes to the model.
 */
export type PermissionAnswer =
  | {
      readonly behavior: 'allow';
      readonly scope?: 'once';
      readonly updatedInput?: Record<string, unknown>;
      /** `false`: the input was changed by a program, not a person, and the model is not told it was (default: true). */
      readonly userModified?: boolean;
    }
  | { readonly behavior: 'allow'; readonly scope: 'session'; readonly rules?: readonly string[] }
  | {
      readonly behavior: 'allow';
      readonly scope: 'rule';
      readonly rules?: readonly string[];
      readonly destination: 'session' | 'localSettings' | 'projectSettings' | 'userSettings';
      readonly expiresAt?: string;
    }
  | { readonly behavior: 'deny'; readonly message?: string; readonly interrupt?: boolean };

/** A call that needs a person's answer, as `onPermissionRequest` receives it (with the rules that would cover it). */
export interface RuntimePermissionRequest extends PermissionRequest {
  /** The narrowest allow rules that would cover this call (per subcommand of a compound Bash command). */
  readonly suggestedRules: readonly string[];
  /** The agent that asks (`undefined`: the main thread). Sub-agents bubble their prompts up to this one handler. */
  readonly agentId?: string;
}

/** A question to the person (AskUserQuestion, MCP elicitation, ExitPlanMode approval). Declared once, beside the
 * tools that ask (`tools/shared/questions.ts`), so the tools never import upward. */
export type QuestionRequest = ToolQuestionRequest;
/** The answer to a `QuestionRequest` (the choices made, or declined). */
export type QuestionAnswer = ToolQuestionAnswer;

/** What `persistRules` is asked to write when a person answers a prompt with scope `rule`. */
export interface PersistRulesRequest {
  /** Allow rules in their text form (`Bash(npm test:*)`). */
  readonly rules: readonly string[];
  readonly destination: 'localSettings' | 'projectSettings' | 'userSettings';
  readonly expiresAt?: string;
  /** The runtime's working directory (the project whose settings files are meant). */
  readonly cwd: string;
}

/** A source of tools beside the built-ins (the MCP layer's servers); `refreshTools()` asks it again. */
export interface ToolProvider {
  readonly name: string;
  getTools(): Promise<Tools>;
  dispose?(): Promise<void>;
}

/** What a sub-agent's runtime changes from its parent's (`ToolRuntime.child`). */
export interface ChildRuntimeOptions {
  readonly agentId?: string;
  readonly agentType?: string;
  /** The child's tools: a list of names to keep, or a filter over the parent's pool. Default: the parent's pool. */
  readonly tools?: readonly string[] | ((tool: AnyTool) => boolean);
  /**
   * The child's permission mode (default: the parent's). Never wider than the parent's, live: while the one asked for
   * is not within the parent's (permissions/mode-order.ts), the child has the parent's.
   */
  readonly mode?: PermissionMode;
  /** A background child: own abort controller, cannot change the parent's app state. */
  readonly isAsync?: boolean;
  /**
   * Its permission prompts wait on nobody: what would ask is denied, with the rule that would allow it
   * (`shouldAvoidPermissionPrompts`). Default: `isAsync`.
   */
  readonly avoidPermissionPrompts?: boolean;
  readonly model?: string;
  readonly renderedSystemPrompt?: string;
  readonly signal?: AbortSignal;
  /**
   * The per-agent state the child starts from (the Bash session's environment): the calling context's, so a sub-agent
   * sees what a call earlier in the same turn left. Default: this runtime's.
   */
  readonly sessionState?: ToolSessionState;
  /** The child's own notification queue (a teammate's inbox), instead of the parent's. */
  readonly notifications?: NotificationQueue;
}

/** What `createToolRuntime` wires: working directories, settings, mode and rules, tools, hooks, answer handlers. */
export interface ToolRuntimeOptions {
  /** Working directory and project root (default: `process.cwd()`). */
  readonly cwd?: string;
  /**
   * The session's environment (default: `process.env`): what the tools' processes and hooks start from, and what the
   * tool pool reads (`ENABLE_TOOL_SEARCH`, …). `process.env` is never changed.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The built-in tools to offer, by name (default: all); tools of `tools` and of tool providers are kept. */
  readonly builtinTools?: readonly string[];
  /**
   * Built-ins come as stubs whose module loads at their first call (registry/lazy-tool.ts). For a runtime whose
   * callers go through `query()`, the tool run or `runToolUse` (which wait for the module), never one that reads a
   * tool's members directly (an MCP server's listing, a face drawing from the pool). Default: loaded as listed.
   */
  readonly lazyBuiltins?: boolean;
  /** More working directories (`--add-dir`). */
  readonly additionalDirectories?: readonly string[];
  /**
   * Settings: an object (highest precedence below managed policy, like `--settings` JSON), extra files, and which
   * of Claude Code's files to read. `sources: []` reads no file at all (tests, servers).
   */
  readonly settings?: {
    readonly object?: Record<string, unknown>;
    readonly files?: readonly string[];
    /** Default: all four. */
    readonly sources?: readonly SettingSource[];
    /** Home directory for user settings (default: `os.homedir()`). */
    readonly homeDir?: string;
    /** The managed policy file (default: the machine's, settings/load-settings.ts `defaultManagedSettingsPath`). */
    readonly managedSettingsPath?: string;
    /**
     * Plugins (settings/plugin-folder.ts): their skills and commands join the catalogue as `/plugin:name`, their hooks
     * the settings' hooks (source `plugin:<name>`). Their agents and MCP servers come through `services` and
     * `toolProviders` (the session wires them: src/session/plugins.ts).
     */
    readonly plugins?: readonly PluginFolder[];
  };
  readonly mode?: PermissionMode;
  /**
   * bypassPermissions may be entered later (Shift+Tab, a hook's `setMode`) though the runtime does not start in it —
   * the Agent SDK's option and Claude Code's `--allow-dangerously-skip-permissions`. Without it, only a runtime that
   * starts in bypassPermissions has that mode.
   */
  readonly allowDangerouslySkipPermissions?: boolean;
  /** Rules for this runtime only (`--allowedTools`, `--disallowedTools`, `--allow/--deny/--ask`). */
  readonly rules?: { readonly allow?: readonly string[]; readonly deny?: readonly string[]; readonly ask?: readonly string[] };
  /** Tools added to the built-ins (custom tools; MCP tools come through the MCP layer). */
  readonly tools?: Tools;
  /** In-process hook callbacks, beside the hooks that settings files configure. */
  readonly hooks?: readonly HookCallback[];
  /** Answers permission prompts. Absent: the runtime is headless and anything that would ask is denied with the rule. */
  readonly onPermissionRequest?: (request: RuntimePermissionRequest) => Promise<PermissionAnswer>;
  /** Answers questions (AskUserQuestion, elicitation, plan approval). Absent: headless, questions are declined. */
  readonly onQuestion?: (request: QuestionRequest) => Promise<QuestionAnswer>;
  /** TodoWrite changed an agent's list (`agentId` undefined: the main thread; `[]`: cleared). */
  readonly onTodosChanged?: (todos: readonly TodoItem[], agentId: string | undefined) => void;
  /** Where transcripts and persisted outputs go (default: under the user's state directory). */
  readonly sessionDir?: string;
  readonly sessionId?: string;
  /** The model the tools are described for and that side calls use: an alias or an id (default: `ANTHROPIC_MODEL`, else the table's default, src/tool/models.ts). */
  readonly model?: string;
  /** The Messages API client, for tools that need a model (Agent, WebFetch's prompt, WebSearch) and auto mode's classifier. */
  readonly client?: Anthropic;
  /**
   * Auto mode's classifier (`mode: 'auto'`): a function of yours; an object configuring the built-in two-stage
   * classifier (models, thinking budget, retries, its own client); `false` for none. Default: the built-in one when
   * `client` is given (models and limits from the settings' `toolgate.autoMode`), none otherwise. Without one, auto
   * mode asks a person, or denies headless.
   */
  readonly classifier?: PermissionClassifier | AutoClassifierOptions | false;
  /** Where `call()` runs (default: this process). */
  readonly backend?: ToolCallBackend;
  readonly signal?: AbortSignal;
  /** Services of higher layers (MCP clients, a model client…) put on every context; on a clash the given one wins. */
  readonly services?: Partial<ToolServices>;
  /** Tool sources beside the built-ins and `tools` (MCP servers); read at start and by `refreshTools()`. */
  readonly toolProviders?: readonly ToolProvider[];
  /**
   * Writes rules answered with scope `rule` to a settings file. Absent: such answers are refused (fail closed) —
   * the settings-file writer plugs in here.
   */
  readonly persistRules?: (request: PersistRulesRequest) => Promise<void>;
  /**
   * OpenTelemetry metrics and events in Claude Code's shape. Default: on when `CLAUDE_CODE_ENABLE_TELEMETRY=1`, with
   * exporters from the `OTEL_*` variables; `true`: on, configured the same way; `{ meterProvider, loggerProvider }`:
   * on, through the embedder's providers (the embedder flushes them); `false`: off. A sink of the embedder's own in
   * `services.telemetry` replaces it. Off: the OpenTelemetry modules are not even loaded.
   */
  readonly telemetry?: TelemetryOption;
  /** How this session began, for telemetry's session count (default `fresh`). */
  readonly sessionStart?: 'fresh' | 'resume' | 'continue';
}

/** Options of one run. */
export interface RunOptions {
  /** Aborts this run's calls (each is still answered). */
  readonly signal?: AbortSignal;
  /**
   * Answers the permission prompts of this run's calls instead of the runtime's handler (a server answering each
   * request through its own client: the MCP server asks the client that sent the call). Sub-agents keep the runtime's.
   */
  readonly onPermissionRequest?: ToolRuntimeOptions['onPermissionRequest'];
  /** The conversation so far (the agent loop's history and this assistant message): the calls' `context.messages`. */
  readonly messages?: readonly MessageParam[];
  /**
   * `false`: nobody listens to progress, so the tools are not asked for any (no `progress` events; Bash does not read
   * its output file while it runs). `run()` says so itself; so does the MCP server for a call without a progress token.
   */
  readonly progress?: boolean;
}

/** An assistant message, or its tool_use blocks (as the API returned them, or in the request form). */
export type RunInput = AssistantMessage | readonly (ToolUseBlock | ToolUseBlockParam)[];

/** What `ToolRuntime.run` returns: the user message to send back, its tool_result blocks and what happened to each call. */
export interface RunResult {
  /** The user message: one tool_result per tool_use, in call order, then any `newMessages` content. */
  readonly message: MessageParam & { readonly role: 'user' };
  readonly results: readonly ToolResultBlockParam[];
  readonly outcomes: readonly ToolUseOutcome[];
  /** Messages to append after the user message (notifications, reminders). */
  readonly newMessages: readonly MessageParam[];
  /**
   * The run was stopped by the user: a permission answer `{ behavior: 'deny', interrupt: true }` (Esc on the prompt,
   * "deny and stop"), or the caller's signal aborted as a user interrupt. A loop ends its turn here instead of handing
   * the results back to the model.
   */
  readonly interrupted?: boolean;
}

/** What `ToolRuntime.stream` and a `ToolRunHandle` yield: progress and results as they happen, then `done`. */
export type RunEvent =
  | { readonly type: 'progress'; readonly progress: ToolProgress }
  | { readonly type: 'result'; readonly outcome: ToolUseOutcome }
  | { readonly type: 'done'; readonly result: RunResult };

/** A run in progress that tool_use blocks can still be added to while the model streams. */
export interface ToolRunHandle {
  /**
   * Hand over one tool_use block as soon as its `content_block_stop` arrives. Read once; text/thinking/server-tool
   * blocks are ignored; a block without a usable id (a non-empty string) throws `ToolUseBlockError` (a TypeError);
   * an unreadable field, a non-JSON input or a repeated id gets an `is_error` result (see execution/block-snapshot.ts).
   */
  add(block: ToolUseBlock): void;
  /** Progress and results as they happen; ends with `done` after `finish()`. */
  events(): AsyncGenerator<RunEvent>;
  /** No more blocks will come: results of everything added are yielded, then `done`. */
  finish(): void;
  /** Streaming fallback: forget everything not yet started; results already produced are dropped. */
  discard(): void;
}

/** A wired tool system (`createToolRuntime`): runs tool_use blocks, gives the API definitions, owns the session. */
export interface ToolRuntime {
  readonly cwd: string;
  readonly sessionId: string;
  readonly sessionDir: string;
  /** The current pool (built-ins sorted, then MCP/extra tools sorted). */
  readonly tools: Tools;
  readonly permissionContext: ToolPermissionContext;
  /** Settings' `env`, applied to every process the tools start. */
  readonly env: Readonly<Record<string, string>>;
  /** What the settings files said that was odd but not fatal (unknown keys, ignored values). */
  readonly warnings: readonly string[];
  /**
   * How many of `tools` are built-ins: they come first, sorted, and the extra and MCP tools after them — the prompt
   * cache's breakpoint after the last built-in keeps them cached while those come and go.
   */
  readonly builtInToolCount: number;
  /** Bash commands run in the OS sandbox (the settings' `sandbox.enabled`). */
  readonly sandboxEnabled?: boolean;
  /**
   * The `tools` array for the Messages API; byte-identical between calls while the pool is unchanged. `betas`
   * (default: the context's) decide beta-only fields such as `input_examples`.
   */
  definitions(options?: { readonly model?: string; readonly betas?: readonly string[] }): Promise<APIToolDefinition[]>;
  /**
   * Runs the tool_use blocks of one assistant message to completion: one tool_result per distinct tool_use id (a
   * repeated id is not run; its error follows the results as text). Rejects with `ToolUseBlockError` (a TypeError),
   * before anything runs, when the message is not an object or an entry cannot be answered (not an object, no usable id).
   */
  run(input: RunInput, options?: RunOptions): Promise<RunResult>;
  /** The same, as events. */
  stream(input: RunInput, options?: RunOptions): AsyncGenerator<RunEvent>;
  /** A run the loop feeds block by block while the model is still streaming. */
  begin(assistantMessage: AssistantMessage, options?: RunOptions): ToolRunHandle;
  setMode(mode: PermissionMode): void;
  /**
   * From now on the runtime's session is `sessionId`, its folder beside the current one (transcript, persisted
   * outputs): a fresh id starts a new transcript (`/clear`), an old one goes on with that session (`/resume`). Between
   * turns only; not on a sub-agent's runtime.
   */
  switchSession(sessionId: string): void;
  /** Re-reads tool providers (MCP `list_changed`); the pool keeps its cache-stable order. */
  refreshTools(): Promise<void>;
  /** Looks a tool up by name or alias. */
  findTool(name: string): AnyTool | undefined;
  /**
   * Moves running foreground commands (Bash) to the background, as Ctrl+B does in the session: the call of
   * `toolUseId`, or without it every one running now (sub-agents' too: they share the task registry). Each call
   * returns at once with "Command was manually backgrounded by user with ID: <task id>. Output is being written to:
   * <file>" and its process goes on as a background task (TaskOutput, TaskStop, a notification when it ends).
   * Returns the tool_use ids moved (none when background tasks are disabled).
   */
  backgroundToolUse(toolUseId?: string): string[];
  /** The session's background tasks (Bash commands, background agents), running or ended. */
  tasks(): readonly TaskInfo[];
  /** Ends a background task of this session, as TaskStop does; rejects when there is no such task. */
  stopTask(taskId: string): Promise<void>;
  /** Ends every background task now (and each later one as it starts), without waiting for running calls as `dispose()` does. */
  endBackgroundTasks(): Promise<void>;
  /** Called as each background task ends; returns the unsubscribe function. */
  onTaskEnd(listener: (task: TaskInfo) => void): () => void;
  /** The messages for the model that wait for its next turn (background tasks' end-of-task news), taken. */
  takeNotifications(): MessageParam[];
  /** How many messages for the model wait for its next turn (taken by `takeNotifications`). */
  pendingNotifications(): number;
  /** Called as news for the model arrives (a Monitor's lines, a task's end) or `wake()` is called; returns the unsubscribe function. */
  onNotification(listener: () => void): () => void;
  /** A person's message waits for the turn: a tool that only waits (ScheduleWakeup) stops waiting. */
  wake(): void;
  /** Awaited before each call that is not read-only, from the next run on (the session's file checkpoints). */
  beforeMutatingCalls?(hook: ((toolUseId: string) => Promise<void>) | undefined): void;
  /** How many teammates of the session's agent team are working (not waiting on their inbox, not ended). */
  teammatesAtWork?(): number;
  /** The agent types the Agent tool can start in this session (built-in, the agents folders', the session's own). */
  agentDefinitions(): readonly AgentDefinition[];
  /** `value` with every secret this session knows replaced, as in tool results. */
  redact<T>(value: T): T;
  /**
   * The one applier of permission updates: file destinations written to the settings files this runtime reads, then
   * every update applied to the session (`savePermissionUpdates`).
   */
  applyPermissionUpdates(updates: readonly PermissionUpdate[], options?: PermissionUpdateOptions): Promise<SavedPermissionUpdates>;
  /** Stops background tasks and closes whatever the runtime opened. Idempotent. */
  dispose(): Promise<void>;
  /**
   * A runtime for a sub-agent: its own context (`createSubagentContext`: cloned file state and budget, a child abort
   * controller, depth + 1), the same services and the same permission handler (requests carry its `agentId`).
   * Disposing it does not dispose the parent's services.
   */
  child(options?: ChildRuntimeOptions): Promise<ToolRuntime>;
  /** `messages` with every tool_result the conversation budget has replaced swapped for its preview. */
  applyBudget(messages: readonly MessageParam[]): MessageParam[];
  /**
   * Listens to what happens under the loop while it runs — a sub-agent's loop events (`subagent`), hook processes
   * starting and answering (`hook`) — so that the session's top loop can pass them on. Returns the unsubscribe
   * function. Optional: a runtime made by hand need not have it.
   */
  onLoopEvent?(listener: (event: QueryEvent) => void): () => void;
}

export type PermissionDecisionLike = PermissionDecision;

export type { AgentDefinition, TaskInfo };

export type {
  ApiFailure,
  HookLifecycleEvent,
  ModelUsageTotals,
  QueryEvent,
  QueryLive,
  QueryResult,
  ResponseTiming,
  SubagentLoopEvent,
  Usage,
} from './query-types.js';
