/**
 * The hooks vocabulary: Claude Code's `hooks` settings format (parsed into `HooksConfig`), the events toolgate fires
 * around a tool call, and what a `HookRunner` reports back to the executor. Protocol: reference/hooks-and-settings.md
 * Part A — toolgate runs hooks written for Claude Code unchanged.
 */
import type { PermissionMode, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import type { LoopHookEventName, LoopHooks } from './loop-hooks.js';

/** The tool-call events toolgate fires. */
export const HOOK_EVENT_NAMES = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
] as const;
export type HookEventName = (typeof HOOK_EVENT_NAMES)[number];

/**
 * Every event Claude Code knows. Settings may configure any of them without a warning (the same file drives Claude
 * Code); toolgate keeps the non-tool ones in the config but never fires them.
 */
export const CLAUDE_CODE_HOOK_EVENTS = [
  ...HOOK_EVENT_NAMES,
  'SessionStart',
  'Setup',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'PostToolBatch',
  'Notification',
  'MessageDisplay',
  'SubagentStart',
  'SubagentStop',
  'TaskCreated',
  'TaskCompleted',
  'Stop',
  'StopFailure',
  'TeammateIdle',
  'InstructionsLoaded',
  'ConfigChange',
  'CwdChanged',
  'DirectoryAdded',
  'FileChanged',
  'WorktreeCreate',
  'WorktreeRemove',
  'PreCompact',
  'PostCompact',
  'Elicitation',
  'ElicitationResult',
  'SessionEnd',
] as const;
export type ClaudeCodeHookEventName = (typeof CLAUDE_CODE_HOOK_EVENTS)[number];

/** Fields every handler type shares. */
interface HookHandlerBase {
  /**
   * One permission rule (`Bash(git *)`) that further filters the call; see `if` in the reference. Matched by the
   * permission engine (`preparePermissionMatcher`): the hook runs for exactly the calls a deny rule with the same text
   * would deny, and also when the engine cannot rule the rule out (a command it cannot parse).
   */
  readonly if?: string;
  /** Seconds (as in settings); absent → the runner's default (600 s for command hooks). */
  readonly timeout?: number;
  readonly statusMessage?: string;
  /** Skills only in Claude Code: run once per session. Accepted; toolgate runs the hook every time. */
  readonly once?: boolean;
  /** toolgate extension: a non-zero exit (other than 2, which blocks anyway) or a timeout becomes a deny. */
  readonly failClosed?: boolean;
}

/** `type: "command"`: shell form (`command` run by bash) or exec form (`command` + `args`, no shell). */
export interface CommandHookHandler extends HookHandlerBase {
  readonly type: 'command';
  readonly command: string;
  readonly args?: readonly string[];
  /** Runs in the background; cannot decide (toolgate starts it and does not wait). */
  readonly async?: boolean;
  /** Background like `async`; Claude Code wakes the model on exit 2. toolgate treats it as `async`. */
  readonly asyncRewake?: boolean;
  readonly shell?: 'bash' | 'powershell';
}

/** `type: "http"`: the input JSON is POSTed to `url`. */
export interface HttpHookHandler extends HookHandlerBase {
  readonly type: 'http';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly allowedEnvVars?: readonly string[];
}

/** Handler types Claude Code has and toolgate parses but does not run (`mcp_tool`, `prompt`, `agent`). */
export interface UnsupportedHookHandler extends HookHandlerBase {
  readonly type: 'mcp_tool' | 'prompt' | 'agent';
  readonly raw: Readonly<Record<string, unknown>>;
}

export type HookHandler = CommandHookHandler | HttpHookHandler | UnsupportedHookHandler;

/** One `{ matcher, hooks: [...] }` entry, remembering where it was defined. */
export interface HookMatcherGroup {
  /** Absent, `""` or `"*"` match every tool. */
  readonly matcher?: string;
  readonly hooks: readonly HookHandler[];
  /** The settings source (`userSettings`, `projectSettings`, a plugin name…). */
  readonly source: string;
  readonly file?: string;
  /** Where in that file: `hooks.PreToolUse[0]`. */
  readonly path?: string;
  /** Set for its commands beside the session's environment: a plugin's `CLAUDE_PLUGIN_ROOT`. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Parsed hooks, by event; every source merged (none replaces another). */
export type HooksConfig = { readonly [E in ClaudeCodeHookEventName]?: readonly HookMatcherGroup[] };

/** What the executor knows about a tool call when it fires a hook. */
export interface HookToolEvent {
  sessionId: string;
  transcriptPath?: string;
  /** Where the hook process runs and what it sees as `cwd` (follows `cd`). */
  cwd: string;
  permissionMode: PermissionMode;
  /** Canonical tool name (`Bash`, `mcp__server__tool`). */
  toolName: string;
  toolInput: Record<string, unknown>;
  toolUseId: string;
  /** The session's project root, exported as `CLAUDE_PROJECT_DIR` and `TOOLGATE_PROJECT_DIR`. */
  projectDir: string;
  /** Inside a sub-agent. */
  agentId?: string;
  agentType?: string;
  /**
   * The tool being called: handlers' `if` rules are matched against it by its traits. Without it only rules naming
   * the tool as a whole can be told apart; a content rule naming it (`Bash(rm *)`) cannot be ruled out, so the hook runs.
   */
  tool?: AnyTool;
  /** Where the call is decided (cwd, project root, home anchor `if` path rules); default: from `cwd` and `projectDir`. */
  permissionContext?: ToolPermissionContext;
}

export type PreToolUseBehavior = 'allow' | 'deny' | 'ask' | 'defer';

export interface PreToolUseOutcome {
  /** The winning decision across hooks (deny > defer > ask > allow); absent when no hook decided. */
  decision?: { behavior: PreToolUseBehavior; reason?: string; /** the hook that decided */ source: string };
  /** Hooks' `updatedInput`s merged in hook (configuration) order: a later hook wins per key. */
  updatedInput?: Record<string, unknown>;
  additionalContext: string[];
  systemMessages: string[];
  /** Some hook said `continue: false`. */
  preventContinuation?: { stopReason?: string };
  /** Hooks that failed without blocking (exit ≠ 0/2, timeout, spawn error, bad JSON…), one line each. */
  nonBlockingErrors: string[];
}

export interface PostToolUseOutcome {
  /** `decision: "block"` or exit 2: the reason is shown to the model next to the (already produced) result. */
  block?: { reason: string };
  /** `hookSpecificOutput.updatedToolOutput` (or legacy `updatedMCPToolOutput`); the last hook that set it wins. */
  updatedToolOutput?: unknown;
  additionalContext: string[];
  systemMessages: string[];
  preventContinuation?: { stopReason?: string };
  nonBlockingErrors: string[];
}

export interface PermissionRequestOutcome {
  decision?: { behavior: 'allow' | 'deny'; updatedInput?: Record<string, unknown>; message?: string; interrupt?: boolean };
  /** `decision.updatedPermissions` entries (allow only), passed through unvalidated for the permission layer. */
  updatedPermissions?: unknown[];
  nonBlockingErrors: string[];
}

export interface PermissionDeniedOutcome {
  retry?: boolean;
  additionalContext: string[];
  nonBlockingErrors: string[];
}

export interface HookRunner {
  /** Fast path: false when no configured hook or callback could fire for this tool, so the executor skips the work. */
  hasHooks(event: HookEventName, toolName: string): boolean;
  preToolUse(e: HookToolEvent, signal: AbortSignal): Promise<PreToolUseOutcome>;
  postToolUse(e: HookToolEvent & { toolResponse: unknown; durationMs?: number }, signal: AbortSignal): Promise<PostToolUseOutcome>;
  postToolUseFailure(
    e: HookToolEvent & { error: string; isInterrupt?: boolean; durationMs?: number },
    signal: AbortSignal,
  ): Promise<PostToolUseOutcome>;
  permissionRequest(
    e: HookToolEvent & { permissionSuggestions?: unknown[] },
    signal: AbortSignal,
  ): Promise<PermissionRequestOutcome>;
  permissionDenied(e: HookToolEvent & { reason: string }, signal: AbortSignal): Promise<PermissionDeniedOutcome>;
  /** The agent loop's events over the same configuration and callbacks (absent in runners built by hand). */
  readonly loop?: LoopHooks;
}

/**
 * An in-process hook registered by a library user. It receives the same JSON a shell hook reads on stdin and returns
 * the JSON a shell hook would print (or nothing). A throw is a non-blocking error unless `failClosed`; a timeout on
 * PreToolUse blocks the call, as the Agent SDK does.
 */
export interface HookCallback {
  /** A tool event, or one of the agent loop's events (`SessionStart`, `UserPromptSubmit`, `Stop`, `SessionEnd`). */
  event: HookEventName | LoopHookEventName;
  matcher?: string;
  callback(input: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown> | void>;
  failClosed?: boolean;
  timeoutMs?: number;
  /** Shown in reports; defaults to `callback#<index>`. */
  name?: string;
}

export interface HookRunnerOptions {
  config: HooksConfig;
  callbacks?: HookCallback[];
  /** Large hook output goes to `<sessionDir>/hook-outputs/`. */
  sessionDir: string;
  /** Base environment of hook processes (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Default per-hook timeout for command/http hooks (600,000 ms). */
  defaultTimeoutMs?: number;
  /** Told when a command or http hook starts and what it answered (not callbacks); for faces that show hook activity. */
  onHookRun?: (notice: HookRunNotice) => void;
}

/** A command or http hook starting, then answering (`id` pairs the two); `name` is `PreToolUse:Bash`, `Stop`, … */
export type HookRunNotice =
  | { readonly phase: 'started'; readonly id: string; readonly name: string; readonly event: string }
  | {
      readonly phase: 'response';
      readonly id: string;
      readonly name: string;
      readonly event: string;
      readonly stdout: string;
      readonly stderr: string;
      readonly exitCode?: number;
      readonly outcome: 'success' | 'error' | 'cancelled';
    };

export interface HooksSettingsSource {
  /** `userSettings`, `projectSettings`, `localSettings`, `policySettings`, a plugin name… */
  source: string;
  file?: string;
  /** The value of the file's `hooks` key, unvalidated. */
  hooks: unknown;
  /** Set for the commands of these hooks (a plugin's `CLAUDE_PLUGIN_ROOT`). */
  env?: Readonly<Record<string, string>>;
}

export interface ParsedHooksSettings {
  config: HooksConfig;
  /** Entries that were dropped: each names the file, the event and the index path. */
  errors: string[];
  /** Entries kept or skipped with a note (unknown keys, unsupported handler types, events toolgate never fires). */
  warnings: string[];
}

declare module '../tool/tool-use-context.js' {
  interface ToolServices {
    /** Fires PreToolUse/PostToolUse/… hooks around each tool call; absent → no hooks. */
    readonly hooks?: HookRunner;
  }
}
