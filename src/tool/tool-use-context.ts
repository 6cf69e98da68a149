/**
 * The context threaded through every tool call, grouped by concern: `options` (fixed for a query), execution state
 * (changes while tools run), `ui` callbacks (absent when headless) and agent identity.
 *
 * Higher layers hang their own services on `services` by augmenting the `ToolServices` interface from their module
 * (`declare module '…/tool/tool-use-context.js'`), so the contract never imports upward.
 */
import { DEFAULT_MODEL } from './models.js';
import { addSharedAbortListener } from './shared-abort-listener.js';
import { FileStateCache } from './file-state-cache.js';
import type { NotificationQueue } from './notification-queue.js';
import type { PathChecks } from './path-checks.js';
import type { PermissionAskDecision, PermissionDecision, PermissionPreview, PermissionRisk, ToolPermissionContext } from './permission-types.js';
import type { AnyTool, MessageParam, Tools } from './tool.js';

/** Slots for services of higher layers (task registry, MCP clients, hook runner…), added by module augmentation. */
export interface ToolServices {
  /** Messages for the model's next turn (e.g. "background task X finished"); the executor drains it. */
  readonly notifications?: NotificationQueue;
}

/**
 * State tools carry from call to call for one agent (the Bash tool's exported variables and functions), added by
 * module augmentation like `ToolServices`. Immutable: a tool changes it only through a `contextModifier`, so calls
 * running together each see the state of their start and their changes apply in call order. A sub-agent starts from
 * its parent's; what it changes stays its own. Two runtimes never share it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by module augmentation
export interface ToolSessionState {}

/** Settings tools read; higher layers add typed fields by augmentation, like `ToolServices`. */
export interface ToolSettings {
  /** Refuse Edit/Write of a file the model has not fully read (default true). */
  readonly requireReadBeforeWrite?: boolean;
  /** Settings' `env`: set in every process a tool starts (after secret scrubbing: these names were asked for). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The environment a tool's processes start from instead of `process.env`: a session given an environment of its
   * own (the Agent SDK face's `env`), so that concurrent sessions in one process each see theirs.
   */
  readonly baseEnv?: Readonly<Record<string, string>>;
}

export interface ToolUseContextOptions {
  readonly tools: Tools;
  readonly mainLoopModel: string;
  readonly debug: boolean;
  /** Headless (SDK, CLI exec, background): nobody can answer a prompt. */
  readonly isNonInteractiveSession: boolean;
  /** API betas in effect (e.g. input examples). */
  readonly betas?: readonly string[];
  /** Where this session keeps its files (persisted tool results go in `<sessionDir>/tool-results`). */
  readonly sessionDir: string;
  readonly sessionId: string;
  readonly settings: ToolSettings;
  /** Names of deferred tools whose schema the model has loaded through ToolSearch. */
  readonly loadedDeferredTools?: ReadonlySet<string>;
}

/** Shared state that outlives one tool call. */
export interface AppState {
  readonly toolPermissionContext: ToolPermissionContext;
  /** The shell's current directory (a `cd` in Bash moves it, within the working directories). */
  readonly cwd: string;
}

export interface DenialTrackingState {
  consecutiveDenials: number;
  totalDenials: number;
  /**
   * Auto mode's classifier denials (src/permissions/auto-mode.ts): in a row (a classifier or a person allowing a call
   * ends the run) and in all. Past the limits, calls the classifier would judge go to a person (denied headless).
   */
  classifierConsecutiveDenials?: number;
  classifierTotalDenials?: number;
}

/** The per-conversation record of tool-result sizes; `src/execution/budget.ts` implements and augments it. */
export interface ContentReplacementState {
  clone(): ContentReplacementState;
}

/** A question to a person (or to a parent agent in bubble mode) about one tool call. */
export interface PermissionRequest {
  readonly tool: AnyTool;
  readonly input: Record<string, unknown>;
  readonly toolUseID: string;
  readonly ask: PermissionAskDecision;
  readonly signal: AbortSignal;
  /** The call's risk, from the tool's traits: what a dialog shows, and why "always allow" of a destructive call takes a second step. */
  readonly risk: PermissionRisk;
  /** What the call will do (its tool's `permissionPreview`): an edit's diff. What is approved is bound to it. */
  readonly preview?: PermissionPreview;
}

export type PermissionPromptHandler = (request: PermissionRequest) => Promise<PermissionDecision>;

export interface ToolUseUICallbacks {
  /** Answers permission prompts; absent when headless. Shared with sub-agents so bubble mode can escalate. */
  readonly requestPermission?: PermissionPromptHandler;
}

/** What a tool call runs with: the pool and settings, the abort signal, file state, permissions, services, agent identity. */
export interface ToolUseContext {
  // — configuration —
  readonly options: ToolUseContextOptions;
  // — execution state —
  readonly abortController: AbortController;
  readonly readFileState: FileStateCache;
  readonly messages: readonly MessageParam[];
  getAppState(): AppState;
  setAppState(update: (prev: AppState) => AppState): void;
  readonly contentReplacementState?: ContentReplacementState;
  readonly localDenialTracking: DenialTrackingState;
  readonly services: ToolServices;
  /** Per-agent state tools carry between calls (see `ToolSessionState`). */
  readonly sessionState?: ToolSessionState;
  /** The tool_use this context was made for: set for `call()` (and everything the call does); absent between calls. */
  readonly toolUseId?: string;
  /** Set for `call()` when a person changed the input before approving it (Edit and Write tell the model so). */
  readonly inputModifiedByUser?: boolean;
  /** Set for `call()` when the call was approved at a prompt that showed this preview (`Tool.permissionPreview`). */
  readonly approvedPreview?: PermissionPreview;
  /**
   * A path tool's call: what its permission decision resolved each path to (the engine notes them, `call()` requires
   * that what it opens is that object). Absent: no decision of the engine's to bind to (deny rules still apply).
   */
  readonly pathChecks?: PathChecks;
  // — UI —
  readonly ui?: ToolUseUICallbacks;
  // — agent identity —
  readonly agentId?: string;
  readonly agentType?: string;
  /** 0 for the main thread, parent + 1 for each sub-agent level. */
  readonly agentDepth: number;
  readonly isAsyncAgent?: boolean;
  /** The parent's rendered system prompt, frozen so a forked child cannot drift from it (prompt-cache hits). */
  readonly renderedSystemPrompt?: string;
}

export interface SubagentOverrides {
  readonly agentId?: string;
  readonly agentType?: string;
  /** Async (background) children run detached: own abort controller, no writes to the parent's app state. */
  readonly isAsync?: boolean;
  readonly options?: Partial<ToolUseContextOptions>;
  readonly messages?: readonly MessageParam[];
  readonly abortController?: AbortController;
  readonly getAppState?: () => AppState;
  readonly renderedSystemPrompt?: string;
  /** The state the child starts from (default: the parent context's). */
  readonly sessionState?: ToolSessionState;
}

let agentCounter = 0;

/** An AbortController that aborts when `parent` does, but whose own abort leaves the parent running. */
export function createChildAbortController(parent: AbortController): AbortController {
  return createLinkedAbortController(parent).controller;
}

/**
 * As `createChildAbortController` (of a controller or a bare signal), plus `unlink()` to drop the link once the
 * child's work is done without aborting it: a long-lived parent (a runtime serving thousands of runs) would otherwise
 * keep one listener per finished child.
 */
export function createLinkedAbortController(parent: AbortController | AbortSignal): { controller: AbortController; unlink: () => void } {
  const signal = parent instanceof AbortController ? parent.signal : parent;
  const child = new AbortController();
  if (signal.aborted) {
    child.abort(signal.reason);
    return { controller: child, unlink: () => {} };
  }
  // Through the shared listener: a runtime's or a turn's signal has one child per run or tool, hundreds at once.
  const unlink = addSharedAbortListener(signal, () => child.abort(signal.reason));
  // Drop the listener once the child ends on its own, so long-lived parents do not accumulate them.
  child.signal.addEventListener('abort', unlink, { once: true });
  return { controller: child, unlink };
}

/**
 * The context of a sub-agent, decided field by field:
 * - options: shared (overridable: a child may get fewer tools or another model);
 * - abortController: a child of the parent's (the parent's abort reaches it, its own does not reach the parent);
 *   async children get a fresh, unlinked one — they outlive the turn that started them;
 * - readFileState: cloned (the child knows what the parent read; its reads do not leak back);
 * - messages: fresh (the child's own conversation) unless given;
 * - getAppState: shared; setAppState: shared for sync children, a no-op for async ones (a background agent must not
 *   change the foreground's permission mode or cwd behind its back);
 * - contentReplacementState: cloned (the child's budget starts from the parent's, then diverges);
 * - localDenialTracking: fresh (the parent's denial streak says nothing about the child's calls);
 * - services: shared (one task registry, one set of MCP clients per process);
 * - sessionState: the parent's as it is now (immutable, so a snapshot); the child's changes stay its own;
 * - ui: only `requestPermission` is kept, so bubble mode can escalate to the parent's handler; a child renders nothing;
 * - identity: a new agentId, depth + 1, the given (frozen) system prompt.
 */
export function createSubagentContext(parent: ToolUseContext, overrides: SubagentOverrides = {}): ToolUseContext {
  const isAsync = overrides.isAsync ?? false;
  const abortController =
    overrides.abortController ?? (isAsync ? new AbortController() : createChildAbortController(parent.abortController));
  const ui = parent.ui?.requestPermission ? { requestPermission: parent.ui.requestPermission } : undefined;
  return {
    options: { ...parent.options, ...overrides.options },
    abortController,
    readFileState: parent.readFileState.clone(),
    messages: overrides.messages ?? [],
    getAppState: overrides.getAppState ?? parent.getAppState,
    setAppState: isAsync ? () => {} : parent.setAppState,
    contentReplacementState: parent.contentReplacementState?.clone(),
    localDenialTracking: { consecutiveDenials: 0, totalDenials: 0 },
    services: parent.services,
    sessionState: overrides.sessionState ?? parent.sessionState,
    ui,
    agentId: overrides.agentId ?? `agent-${++agentCounter}`,
    agentType: overrides.agentType,
    agentDepth: parent.agentDepth + 1,
    isAsyncAgent: isAsync,
    renderedSystemPrompt: overrides.renderedSystemPrompt ?? parent.renderedSystemPrompt,
    ...PER_CALL_KEYS,
  };
}

export interface CreateToolUseContextInput {
  readonly tools: Tools;
  readonly permissionContext: ToolPermissionContext;
  /** Defaults to the permission context's cwd. */
  readonly cwd?: string;
  readonly sessionDir: string;
  readonly sessionId?: string;
  readonly mainLoopModel?: string;
  readonly isNonInteractiveSession?: boolean;
  readonly settings?: ToolSettings;
  readonly betas?: readonly string[];
  readonly abortController?: AbortController;
  readonly readFileState?: FileStateCache;
  readonly contentReplacementState?: ContentReplacementState;
  readonly services?: ToolServices;
  readonly ui?: ToolUseUICallbacks;
  readonly debug?: boolean;
}

/** A main-thread context with an in-memory app state: what a CLI, a test or an embedding program starts from. */
export function createToolUseContext(input: CreateToolUseContextInput): ToolUseContext {
  let state: AppState = { toolPermissionContext: input.permissionContext, cwd: input.cwd ?? input.permissionContext.cwd };
  return {
    options: {
      tools: input.tools,
      mainLoopModel: input.mainLoopModel ?? DEFAULT_MODEL,
      debug: input.debug ?? false,
      isNonInteractiveSession: input.isNonInteractiveSession ?? input.ui?.requestPermission === undefined,
      betas: input.betas,
      sessionDir: input.sessionDir,
      sessionId: input.sessionId ?? `session-${Date.now().toString(36)}`,
      settings: input.settings ?? {},
    },
    abortController: input.abortController ?? new AbortController(),
    readFileState: input.readFileState ?? new FileStateCache(),
    messages: [],
    getAppState: () => state,
    setAppState: (update) => {
      state = update(state);
    },
    contentReplacementState: input.contentReplacementState,
    localDenialTracking: { consecutiveDenials: 0, totalDenials: 0 },
    services: input.services ?? {},
    sessionState: undefined,
    ui: input.ui,
    agentId: undefined,
    agentType: undefined,
    agentDepth: 0,
    isAsyncAgent: undefined,
    renderedSystemPrompt: undefined,
    ...PER_CALL_KEYS,
  };
}

/**
 * Every context has every key, in one order, from birth: the executor and the pipeline copy a context per call with
 * `{ ...context, key: value }`, and V8 copies an object fast only when the copy's keys are the source's — adding a key
 * that was not there takes a slow path (~10× the cost of the whole copy; measured with execution.overhead_us).
 */
const PER_CALL_KEYS = { toolUseId: undefined, inputModifiedByUser: undefined, pathChecks: undefined } as const;
