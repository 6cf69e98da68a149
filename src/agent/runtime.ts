/**
 * The runtime itself (a `ToolRuntime`): runs, the context kept between them, the tool pool, definitions, child
 * runtimes for sub-agents (their context is derived in child-context.ts) and shutdown. `createToolRuntime()`
 * (create-tool-runtime.ts) wires what it stands on — settings, hooks, the permission engine, telemetry — and makes the
 * root one.
 */
import path from 'node:path';
import { snapshotAssistantMessage } from '../execution/block-snapshot.js';
import { redactorFor, refreshEnvironmentSecrets } from '../execution/redaction.js';
import { savePermissionUpdates, type PermissionUpdateOptions, type SavedPermissionUpdates } from '../permissions/permission-updates.js';
import type { TaskInfo } from '../tools/shared/task-registry.js';
import { currentTeam } from '../tools/shared/team.js';
import { agentDefinitionsFor } from '../tools/agent/definitions-for.js';
import type { AgentDefinition } from '../tools/agent/agent-definitions.js';
import type { StreamingToolExecutorOptions } from '../execution/streaming-tool-executor.js';
import { enterPlanMode, updatePermissionContext } from '../permissions/permission-context.js';
import { findToolByName } from '../tool/find-tool.js';
import { addSharedAbortListener } from '../tool/shared-abort-listener.js';
import { deferredLoadingFor, toolsToAPI } from '../tool/api-format.js';
import { createSubagentRunner, type QueryFn } from './subagent-runner.js';
import { childContext } from './child-context.js';
import type { PermissionMode, PermissionUpdate, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool, APIToolDefinition, AssistantMessage, CanUseToolFn, MessageParam, ToolUseBlock, Tools } from '../tool/tool.js';
import { createLinkedAbortController, type ToolServices, type ToolUseContext } from '../tool/tool-use-context.js';
import { createPermissionHandler, type PermissionBridge } from './permission-handler.js';
import type { SpeculativeClassifier } from '../permissions/speculative-classifier.js';
import { type StartedTelemetry } from './telemetry/start.js';
import { ToolRun } from './tool-run.js';
import type { ChildRuntimeOptions, QueryEvent, RunEvent, RunInput, RunOptions, RunResult, ToolProvider, ToolRunHandle, ToolRuntime, ToolRuntimeOptions } from './types.js';
import { assembleRootPool, samePool } from './runtime-pool.js';
import { RUNTIME_CONTEXT } from './runtime-context.js';

/** The reason the runtime's controller is aborted with by `dispose()`. */
export const RUNTIME_DISPOSED = 'runtime disposed';
/** How long `dispose()` waits for cancelled runs to answer every call before it ends background tasks anyway. */
const DISPOSE_GRACE_MS = 5_000;

/** What a runtime and its sub-agents' runtimes share. */
export interface Shared {
  readonly options: ToolRuntimeOptions;
  readonly cwd: string;
  /** The session the runtime writes for; `switchSession()` moves it (/clear, /resume). */
  sessionId: string;
  sessionDir: string;
  readonly env: Readonly<Record<string, string>>;
  /** Settings' warnings, then those of skills and commands (some found only when a file is first read). */
  readonly warnings: string[];
  readonly services: ToolServices;
  readonly canUseTool: CanUseToolFn;
  /** Auto mode's early classification of shell calls (pipeline step 5), when a classifier is configured. */
  readonly speculation?: SpeculativeClassifier;
  readonly providers: readonly ToolProvider[];
  readonly providerTools: Map<ToolProvider, Tools>;
  readonly runsByToolUse: Map<string, ToolRun>;
  readonly bridge: PermissionBridge;
  /** The caller's `persistRules`, else the settings-file writer (src/settings/grants.ts). */
  readonly persistRules: ToolRuntimeOptions['persistRules'];
  /** OpenTelemetry export, when on: flushed and stopped by the root's dispose(). */
  readonly telemetry?: StartedTelemetry;
  /**
   * The root runtime's signal: aborted by `dispose()` or the caller's signal, never by a user interrupt — so it still
   * ends a call that blocks interrupts after an interrupt let it run on (a sub-agent's or a run's signal may be spent).
   */
  readonly shutdown: AbortSignal;
  /**
   * The names of the root pool's built-ins (every other tool is an extra or MCP tool); set by the root's
   * refreshTools(). By name: the deferral step may hand back copies of MCP tools.
   */
  builtIns: ReadonlySet<string>;
  /** Who hears what happens under the loop (sub-agents' events, hook processes): the session's top loop. */
  readonly loopListeners: Set<(event: QueryEvent) => void>;
  /** Awaited before each call that is not read-only (the session's file checkpoint); `beforeMutatingCalls()` sets it. */
  beforeMutatingCall?: ((toolUseId: string) => Promise<void>) | undefined;
}

/** Tells every listener; one that throws does not stop the others or the session. */
export function publish(listeners: ReadonlySet<(event: QueryEvent) => void>, event: QueryEvent): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch {
      // a listener's failure is its own
    }
  }
}

/**
 * query(), loaded when a sub-agent first runs: it brings the Anthropic SDK, which a runtime that never calls a model
 * (`toolgate exec`, `check`, `mcp serve`) should not load at start-up.
 */
const lazyQuery: QueryFn = async function* (options) {
  const { query } = await import('./query.js');
  return yield* query(options);
};

export class Runtime implements ToolRuntime {
  readonly #shared: Shared;
  readonly #parent: Runtime | undefined;
  readonly #keep: ((tool: AnyTool) => boolean) | undefined;
  readonly #children = new Set<Runtime>();
  #context: ToolUseContext;
  #definitions = new Map<string, Promise<APIToolDefinition[]>>();
  #active = new Map<ToolRun, Promise<void>>();
  #disposed: Promise<void> | undefined;

  constructor(shared: Shared, context: ToolUseContext, parent: Runtime | undefined, keep?: (tool: AnyTool) => boolean) {
    this.#shared = shared;
    // The Agent tool's sub-agents are children of the runtime whose call made them: each runtime puts its own runner
    // on its context (a caller's own `services.subagents` wins).
    const client = shared.options.client;
    this.#context =
      client !== undefined && shared.options.services?.subagents === undefined
        ? { ...context, services: { ...context.services, subagents: createSubagentRunner({ client, query: lazyQuery, parent: this, publish: (event) => publish(shared.loopListeners, event) }) } }
        : context;
    this.#parent = parent;
    this.#keep = keep;
  }

  get cwd(): string {
    return this.#shared.cwd;
  }
  get sessionId(): string {
    return this.#shared.sessionId;
  }
  get sessionDir(): string {
    return this.#shared.sessionDir;
  }
  get env(): Readonly<Record<string, string>> {
    return this.#shared.env;
  }
  get warnings(): readonly string[] {
    return this.#shared.warnings;
  }
  get tools(): Tools {
    return this.#context.options.tools;
  }
  get [RUNTIME_CONTEXT](): ToolUseContext {
    return this.#context;
  }
  get permissionContext(): ToolPermissionContext {
    return this.#context.getAppState().toolPermissionContext;
  }

  get sandboxEnabled(): boolean {
    return this.#context.options.settings?.sandbox?.enabled === true;
  }

  get builtInToolCount(): number {
    return this.tools.filter((t) => this.#shared.builtIns.has(t.name)).length;
  }

  definitions(options: { readonly model?: string; readonly betas?: readonly string[] } = {}): Promise<APIToolDefinition[]> {
    const model = options.model ?? this.#context.options.mainLoopModel;
    const betas = options.betas ?? this.#context.options.betas;
    // Deferred tools: `defer_loading` where the model resolves tool_reference blocks; otherwise only the loaded ones,
    // in full — so the cache key also names the loaded set there.
    const deferredLoading = deferredLoadingFor(model, this.#context.options.loadedDeferredTools);
    const loaded = deferredLoading.mode === 'text' ? [...(deferredLoading.loaded ?? [])].sort().join(',') : '';
    const key = `${model}\u0000${loaded}\u0000${[...(betas ?? [])].sort().join(',')}`;
    let cached = this.#definitions.get(key);
    if (!cached) {
      // Memoised per pool (the map is cleared when the pool changes): the tools array must be byte-identical from
      // request to request, or the prompt cache misses.
      const tools = this.tools;
      cached = toolsToAPI(tools, {
        model,
        ...(betas !== undefined ? { betas } : {}),
        getToolPermissionContext: () => this.permissionContext,
        settings: this.#context.options.settings,
        deferredLoading,
        services: this.#context.services,
      });
      cached.catch(() => this.#definitions.delete(key));
      this.#definitions.set(key, cached);
    }
    return cached;
  }

  async run(input: RunInput, options: RunOptions = {}): Promise<RunResult> {
    // Only the result is read here: the tools are not asked for progress nobody would see.
    for await (const event of this.stream(input, { progress: false, ...options })) if (event.type === 'done') return event.result;
    // Only a dropped run ends without `done` (dispose() while it ran); every call is answered by the abort path.
    throw new Error('the run was dropped before it finished (the runtime was disposed)');
  }

  async *stream(input: RunInput, options: RunOptions = {}): AsyncGenerator<RunEvent> {
    // Read once; an entry that cannot be answered (no usable id, not an object) rejects here, before anything runs.
    const { message } = snapshotAssistantMessage(input, Array.isArray(input) ? 'the list of tool_use blocks' : 'the assistant message');
    const handle = this.#begin(message, options);
    for (const block of message.content as ToolUseBlock[]) handle.add(block);
    handle.finish();
    yield* handle.events();
  }

  begin(assistantMessage: AssistantMessage, options: RunOptions = {}): ToolRunHandle {
    // Tools get a plain copy; its blocks come one by one through add(), so an odd entry here is not an error yet.
    return this.#begin(snapshotAssistantMessage(assistantMessage, 'the assistant message', { strict: false }).message, options);
  }

  /** `message` is a plain copy already (block-snapshot.ts). */
  #begin(message: AssistantMessage, options: RunOptions): ToolRun {
    if (this.#disposed) throw new Error('this runtime has been disposed');
    // A credential put in process.env since the last run is redacted from this run's results on.
    refreshEnvironmentSecrets();
    const { controller, unlink } = createLinkedAbortController(this.#context.abortController);
    const signal = options.signal;
    // A caller may hand one signal to many concurrent runs: one shared listener on it, removed when each run settles.
    let unlinkSignal: (() => void) | undefined;
    if (signal?.aborted) controller.abort(signal.reason);
    else if (signal) unlinkSignal = addSharedAbortListener(signal, () => controller.abort(signal.reason));
    let settled!: () => void;
    const done = new Promise<void>((resolve) => (settled = resolve));
    const { backend } = this.#shared.options;
    const sink = this.#shared.services.telemetry;
    const speculation = this.#shared.speculation;
    const executorOptions: StreamingToolExecutorOptions = {
      ...(backend ? { backend } : {}),
      ...(sink ? { eventSink: sink } : {}),
      ...(speculation ? { startSpeculativeClassifier: speculation.start } : {}),
      ...(this.#shared.beforeMutatingCall ? { beforeMutatingCall: this.#shared.beforeMutatingCall } : {}),
      shutdownSignal: this.#shared.shutdown,
      ...(options.progress === false ? { progress: false } : {}),
    };
    const run = new ToolRun({
      tools: this.tools,
      canUseTool: this.#shared.canUseTool,
      context: { ...this.#context, abortController: controller, ...(options.messages ? { messages: options.messages } : {}), ...this.#perRunPrompts(options) },
      assistantMessage: message,
      executorOptions,
      onAdd: (id, r) => this.#shared.runsByToolUse.set(id, r),
      onSettled: (finalContext, r) => {
        unlinkSignal?.();
        unlink();
        for (const id of r.ids) if (this.#shared.runsByToolUse.get(id) === r) this.#shared.runsByToolUse.delete(id);
        // Modifiers carry over; the runtime's own controller stays (the run's is spent).
        if (finalContext) {
          const own = this.#context;
          // The run's history and its own permission handler stay with the run.
          this.#context = options.onPermissionRequest
            ? { ...finalContext, abortController: own.abortController, messages: own.messages, ui: own.ui, options: { ...finalContext.options, isNonInteractiveSession: own.options.isNonInteractiveSession } }
            : { ...finalContext, abortController: own.abortController, messages: own.messages };
        }
        this.#active.delete(r);
        settled();
      },
    });
    this.#active.set(run, done);
    return run;
  }

  /** A run with its own permission handler: its calls ask it (tagged like the runtime's), and can be asked. */
  #perRunPrompts(options: RunOptions): Partial<ToolUseContext> {
    const handler = options.onPermissionRequest;
    if (!handler) return {};
    const requestPermission = createPermissionHandler(handler, this.#shared.persistRules, this.#shared.bridge, this.#context.agentId);
    return { ui: { ...this.#context.ui, requestPermission }, options: { ...this.#context.options, isNonInteractiveSession: false } };
  }

  switchSession(sessionId: string): void {
    if (this.#parent) throw new Error('a sub-agent runtime cannot switch sessions');
    if (this.#disposed) throw new Error('this runtime has been disposed');
    if (this.#active.size > 0) throw new Error('switchSession() while calls run: wait for the turn to end');
    // The new folder sits beside the current one (where query() looks for other sessions' transcripts too).
    const sessionDir = path.join(path.dirname(this.#shared.sessionDir), sessionId);
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(sessionId) || sessionId === '.' || sessionId === '..') throw new Error(`session id ${JSON.stringify(sessionId)} cannot name a folder`);
    this.#shared.sessionId = sessionId;
    this.#shared.sessionDir = sessionDir;
    this.#context = { ...this.#context, options: { ...this.#context.options, sessionId, sessionDir } };
  }

  setMode(mode: PermissionMode): void {
    this.#context.setAppState((prev) => ({
      ...prev,
      toolPermissionContext:
        mode === 'plan' ? enterPlanMode(prev.toolPermissionContext) : updatePermissionContext(prev.toolPermissionContext, { mode }),
    }));
  }

  async refreshTools(): Promise<void> {
    let pool: Tools;
    if (this.#parent) {
      pool = this.#parent.tools.filter((t) => this.#keep?.(t) ?? true);
    } else {
      const root = await assembleRootPool(this.#shared, this.permissionContext);
      pool = root.pool;
      this.#shared.builtIns = root.builtIns;
    }
    if (!samePool(pool, this.tools)) {
      this.#context = { ...this.#context, options: { ...this.#context.options, tools: pool } };
      this.#definitions = new Map();
    }
    if (this.#children.size > 0) await Promise.all([...this.#children].map((c) => c.refreshTools()));
  }

  findTool(name: string): AnyTool | undefined {
    return findToolByName(this.tools, name);
  }

  backgroundToolUse(toolUseId?: string): string[] {
    return this.#context.services.tasks?.moveToBackground(toolUseId) ?? [];
  }

  tasks(): readonly TaskInfo[] {
    return this.#shared.services.tasks?.list() ?? [];
  }

  async stopTask(taskId: string): Promise<void> {
    const tasks = this.#shared.services.tasks;
    if (!tasks?.get(taskId)) throw new Error(`no task ${taskId} in this session`);
    await tasks.stop(taskId);
  }

  async endBackgroundTasks(): Promise<void> {
    await this.#shared.services.tasks?.shutdown();
  }

  onTaskEnd(listener: (task: TaskInfo) => void): () => void {
    return this.#shared.services.tasks?.onTaskEnd(listener) ?? (() => {});
  }

  takeNotifications(): MessageParam[] {
    // News handed over between turns (a Monitor's lines, a task's output tail) is redacted as the executor redacts
    // what it drains into tool results: it becomes a user turn, which nothing redacts after this.
    const news = this.#context.services.notifications?.drain() ?? [];
    const redactor = redactorFor(this.#context);
    return redactor ? news.map((m) => redactor.redactMessage(m)) : news;
  }

  pendingNotifications(): number {
    return this.#context.services.notifications?.size ?? 0;
  }

  onNotification(listener: () => void): () => void {
    return this.#context.services.notifications?.onArrival(() => listener()) ?? (() => {});
  }

  wake(): void {
    this.#context.services.notifications?.poke('user-message');
  }

  beforeMutatingCalls(hook: ((toolUseId: string) => Promise<void>) | undefined): void {
    this.#shared.beforeMutatingCall = hook;
  }

  teammatesAtWork(): number {
    let working = 0;
    for (const member of currentTeam(this.#context)?.members.values() ?? []) if (member.status === 'working') working++;
    return working;
  }

  agentDefinitions(): readonly AgentDefinition[] {
    return agentDefinitionsFor(this.#context);
  }

  redact<T>(value: T): T {
    return redactorFor(this.#context)?.redactJson(value) ?? value;
  }

  applyPermissionUpdates(updates: readonly PermissionUpdate[], options: PermissionUpdateOptions = {}): Promise<SavedPermissionUpdates> {
    return savePermissionUpdates(this.#context, this.#context.services.permissionUpdates, updates, options);
  }

  onLoopEvent(listener: (event: QueryEvent) => void): () => void {
    this.#shared.loopListeners.add(listener);
    return () => this.#shared.loopListeners.delete(listener);
  }

  applyBudget(messages: readonly MessageParam[]): MessageParam[] {
    return this.#context.contentReplacementState?.applyToMessages?.(messages) ?? [...messages];
  }

  async child(options: ChildRuntimeOptions = {}): Promise<ToolRuntime> {
    if (this.#disposed) throw new Error('this runtime has been disposed');
    const { context, keep } = childContext(this.#context, this.#shared, options);
    const child = new Runtime(this.#shared, context, this, keep);
    this.#children.add(child);
    return child;
  }

  dispose(): Promise<void> {
    this.#disposed ??= this.#dispose();
    return this.#disposed;
  }

  async #dispose(): Promise<void> {
    const controller = this.#context.abortController;
    if (!controller.signal.aborted) controller.abort(RUNTIME_DISPOSED);
    await Promise.all([...this.#children].map((c) => c.dispose()));
    for (const run of this.#active.keys()) if (!run.listening) run.discard();
    // Runs being listened to answer every call on the abort path; give them the time to, then stop waiting.
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, DISPOSE_GRACE_MS)));
    await Promise.race([Promise.all(this.#active.values()), grace]);
    clearTimeout(timer);
    for (const run of this.#active.keys()) run.discard();
    if (this.#parent) {
      this.#parent.#children.delete(this);
      return; // services belong to the root runtime
    }
    const problems: string[] = [];
    try {
      await this.#shared.services.tasks?.shutdown();
    } catch (error) {
      problems.push(`background tasks: ${(error as Error).message}`);
    }
    for (const provider of this.#shared.providers) {
      try {
        await provider.dispose?.();
      } catch (error) {
        problems.push(`tool provider "${provider.name}": ${(error as Error).message}`);
      }
    }
    // Last: what the closing produced is exported too; bounded, so a collector that is down cannot hold the exit.
    await this.#shared.telemetry?.shutdown().catch(() => {});
    if (problems.length > 0) throw new Error(`the runtime was disposed, but not everything closed cleanly:\n  ${problems.join('\n  ')}`);
  }
}

