/**
 * `createToolRuntime(options)`: the one place that wires settings, hooks, the permission engine, the tool pool, the
 * executor and the conversation budget. The CLI, the agent loop, the MCP server and the UI are built on it.
 *
 * A runtime keeps one context between runs: each run gets a child abort controller of the runtime's, and when it
 * completes, the context its tools' modifiers produced becomes the runtime's (the next run sees a `cd`, a mode change,
 * files read). App state (permission context, cwd) is shared by reference, so session rules added by a permission
 * answer hold for every later call — and for sub-agents made with `child()`.
 */
import path from 'node:path';
import { ToolResultBudget } from '../execution/budget.js';
import { emitToolEvent } from '../execution/errors.js';
import { createHookRunner } from '../hooks/hook-runner.js';
import { createCanUseTool } from '../permissions/can-use-tool.js';
import { updatePermissionContext } from '../permissions/permission-context.js';
import { resolveModel } from '../tool/models.js';
import { addSharedAbortListener } from '../tool/shared-abort-listener.js';
import { createTaskRegistry } from '../tools/shared/task-registry.js';
import { NotificationQueue } from '../tool/notification-queue.js';
import { createToolUseContext, type AppState, type ToolServices, type ToolUseUICallbacks } from '../tool/tool-use-context.js';
import { createPermissionHandler, type PermissionBridge } from './permission-handler.js';
import { wireAutoMode } from './auto-mode-settings.js';
import { loadRuntimeSettings, SettingsLoadError } from './runtime-settings.js';
import { createGrantWriter, createRulePersister } from '../settings/grants.js';
import { defaultSessionDir } from './session-dir.js';
import { startSessionHousekeeping } from './session-start.js';
import { commandCatalogFor } from './slash-commands.js';
import { startTelemetry, telemetryEnvironment } from './telemetry/start.js';
import { hardLinkWarnings } from '../permissions/hard-links.js';
import { ToolRun } from './tool-run.js';
import type { QueryEvent, ToolRuntime, ToolRuntimeOptions } from './types.js';
import { publish, Runtime, type Shared } from './runtime.js';
import type { ShellTaskService } from '../tools/shared/shell-tasks.js';
import { randomUUID } from '../tool/crypto.js';

export { RUNTIME_DISPOSED } from './runtime.js';

const loadShellTasks = () => import('../tools/bash/background-shell.js').then((m) => m.bashShellTasks);
/** The Bash tool's launch for other tools (Monitor), loaded on first use. */
const lazyShellTasks: ShellTaskService = {
  start: async (request, context) => (await loadShellTasks()).start(request, context),
  checkPermissions: async (command, context) => (await loadShellTasks()).checkPermissions(command, context),
};


/**
 * The one way to run tool calls: reads the settings (files, an object, extra rules), wires hooks, the permission engine
 * with your `onPermissionRequest`, the tool pool (built-ins, your `tools`, tool providers such as MCP servers), the
 * executor and the conversation budget. Throws `SettingsLoadError` when a settings file cannot be read (fail closed).
 */
export async function createToolRuntime(options: ToolRuntimeOptions = {}): Promise<ToolRuntime> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const settings = loadRuntimeSettings(options, cwd);
  // Fail closed: a rule or hook that could not be read might be the one that should have stopped a call.
  if (settings.errors.length > 0) throw new SettingsLoadError(settings.errors);
  const sessionId = options.sessionId ?? randomUUID();
  const sessionDir = path.resolve(options.sessionDir ?? defaultSessionDir(sessionId));
  startSessionHousekeeping(cwd, settings.permissionContext);

  const root = new AbortController();
  if (options.signal) {
    if (options.signal.aborted) root.abort(options.signal.reason);
    else addSharedAbortListener(options.signal, () => root.abort(options.signal?.reason));
  }
  // Grants go to the settings files this runtime reads; a runtime that reads none (`sources: []`) writes none either.
  const where = { projectDir: settings.permissionContext.projectDir, ...(options.settings?.homeDir !== undefined ? { homeDir: options.settings.homeDir } : {}) };
  const readsFiles = (options.settings?.sources ?? ['user', 'project', 'local', 'managed']).length > 0;
  const grantWriter = readsFiles ? createGrantWriter(where) : undefined;
  const persistRules = options.persistRules ?? (readsFiles ? createRulePersister(where) : undefined);
  // A file a Read deny rule names, with another name elsewhere: said once, at the start (docs/sandbox.md).
  const warnings = [...settings.warnings, ...hardLinkWarnings(settings.permissionContext)];
  // Skills and custom commands of the setting sources this runtime reads (a readdir or two; files are read later).
  const commands = options.services?.commands ?? commandCatalogFor(options, settings, sessionId, (w) => warnings.includes(w) || warnings.push(w));
  // An embedder's own sink (services.telemetry) wins; otherwise OpenTelemetry when switched on (loaded only then).
  const ignoredTelemetry: string[] = [];
  const telemetry = options.services?.telemetry
    ? undefined
    : await startTelemetry(options.telemetry, { env: telemetryEnvironment(settings.loaded, process.env, ignoredTelemetry), sessionId });
  for (const w of [...ignoredTelemetry, ...(telemetry?.warnings ?? [])]) warnings.push(`telemetry: ${w}`);
  const services: ToolServices = {
    notifications: new NotificationQueue(),
    commands,
    tasks: createTaskRegistry(),
    hooks: createHookRunner({
      config: settings.hooks,
      callbacks: [...(options.hooks ?? [])],
      sessionDir,
      env: { ...(options.env ?? process.env), ...settings.env },
      onHookRun: (hook) => publish(loopListeners, { type: 'hook', hook }),
    }),
    ...(options.client !== undefined ? { modelClient: options.client } : {}),
    // A PermissionRequest hook's updatedPermissions are written where they say (when this runtime reads settings files).
    ...(grantWriter !== undefined ? { permissionUpdates: grantWriter } : {}),
    ...(telemetry?.sink ? { telemetry: telemetry.sink } : {}),
    // Monitor starts its command the Bash tool's way; the Bash modules load on its first use.
    shellTasks: lazyShellTasks,
    // The caller's services win: a higher layer that brings its own registry or hook runner means it.
    ...options.services,
  };
  // Auto mode: the classifier (the caller's, or the built-in one over `client`), its limits, and early starts.
  const auto = wireAutoMode(options.classifier, options.client, settings.autoMode, settings.loaded.autoModeDisabled);
  const runsByToolUse = new Map<string, ToolRun>();
  const loopListeners = new Set<(event: QueryEvent) => void>();
  let appState: () => AppState = () => {
    throw new Error('the runtime is not initialised yet');
  };
  let setAppState: (update: (prev: AppState) => AppState) => void = () => {};
  const bridge: PermissionBridge = {
    getAppState: () => appState(),
    setAppState: (update) => setAppState(update),
    runOf: (id) => runsByToolUse.get(id)?.abortController,
    cwd,
  };
  const shared: Shared = {
    options,
    cwd,
    sessionId,
    sessionDir,
    env: settings.env,
    warnings,
    services,
    canUseTool: createCanUseTool(auto.options),
    ...(auto.speculation ? { speculation: auto.speculation } : {}),
    providers: options.toolProviders ?? [],
    providerTools: new Map(),
    runsByToolUse,
    bridge,
    persistRules,
    ...(telemetry ? { telemetry } : {}),
    shutdown: root.signal,
    builtIns: new Set(),
    loopListeners,
  };
  const ui: ToolUseUICallbacks | undefined =
    options.onPermissionRequest || options.onQuestion || options.onTodosChanged
      ? {
          ...(options.onPermissionRequest ? { requestPermission: createPermissionHandler(options.onPermissionRequest, persistRules, bridge) } : {}),
          ...(options.onQuestion ? { askQuestion: options.onQuestion } : {}),
          ...(options.onTodosChanged ? { onTodosChanged: options.onTodosChanged } : {}),
        }
      : undefined;
  const context = createToolUseContext({
    tools: [],
    permissionContext: auto.available ? updatePermissionContext(settings.permissionContext, { isAutoModeAvailable: true }) : settings.permissionContext,
    cwd,
    sessionDir,
    sessionId,
    mainLoopModel: resolveModel(options.model),
    isNonInteractiveSession: options.onPermissionRequest === undefined,
    settings: options.env ? { ...settings.toolSettings, baseEnv: options.env } : settings.toolSettings,
    abortController: root,
    contentReplacementState: new ToolResultBudget(settings.conversationBudgetChars !== undefined ? { budgetChars: settings.conversationBudgetChars } : {}),
    services,
    ...(ui !== undefined ? { ui } : {}),
  });
  appState = context.getAppState;
  setAppState = context.setAppState;
  const runtime = new Runtime(shared, context, undefined);
  try {
    await runtime.refreshTools();
  } catch (error) {
    await runtime.dispose();
    throw error;
  }
  emitToolEvent(services.telemetry, 'session.start', { 'session.start_type': options.sessionStart ?? 'fresh' });
  return runtime;
}
