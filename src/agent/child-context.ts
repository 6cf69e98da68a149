/**
 * A sub-agent runtime's context, derived from its parent's (`ToolRuntime.child`, runtime.ts): its slice of the pool,
 * its own permission handler tagged with its agent id, its mode and prompt policy (a lens over the shared app state),
 * and its abort signal linked to the caller's.
 */
import { narrowMode } from '../permissions/mode-order.js';
import { updatePermissionContext } from '../permissions/permission-context.js';
import { addSharedAbortListener } from '../tool/shared-abort-listener.js';
import type { PermissionMode, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { createSubagentContext, type ToolUseContext, type ToolUseUICallbacks } from '../tool/tool-use-context.js';
import { createPermissionHandler, type PermissionBridge } from './permission-handler.js';
import type { ChildRuntimeOptions, ToolRuntimeOptions } from './types.js';
import { randomUUID } from '../tool/crypto.js';

/** What a child's context is made from, beside its parent's context (a runtime's shared state). */
export interface ChildSources {
  readonly options: Pick<ToolRuntimeOptions, 'onPermissionRequest'>;
  readonly persistRules: ToolRuntimeOptions['persistRules'];
  readonly bridge: PermissionBridge;
}

/** The child's context, and which of the parent's tools it keeps (`undefined`: all). */
export function childContext(
  parent: ToolUseContext,
  shared: ChildSources,
  options: ChildRuntimeOptions,
): { readonly context: ToolUseContext; readonly keep: ((tool: AnyTool) => boolean) | undefined } {
  const names = Array.isArray(options.tools) ? new Set(options.tools as readonly string[]) : undefined;
  const filter = typeof options.tools === 'function' ? options.tools : undefined;
  const keep = names ? (t: AnyTool) => names.has(t.name) : filter;
  const agentId = options.agentId ?? `agent-${randomUUID().slice(0, 8)}`;
  const base = createSubagentContext(parent, {
    agentId,
    agentType: options.agentType,
    isAsync: options.isAsync,
    renderedSystemPrompt: options.renderedSystemPrompt,
    ...(options.sessionState !== undefined ? { sessionState: options.sessionState } : {}),
    options: {
      tools: parent.options.tools.filter((t) => keep?.(t) ?? true),
      ...(options.model !== undefined ? { mainLoopModel: options.model } : {}),
    },
  });
  const { onPermissionRequest } = shared.options;
  const persistRules = shared.persistRules;
  // A child shows nothing itself, but its todo list reaches the UI (tagged with its agent id).
  const onTodosChanged = parent.ui?.onTodosChanged;
  const ui: ToolUseUICallbacks | undefined =
    onPermissionRequest || onTodosChanged
      ? {
          ...(onPermissionRequest ? { requestPermission: createPermissionHandler(onPermissionRequest, persistRules, shared.bridge, agentId) } : {}),
          ...(onTodosChanged ? { onTodosChanged } : {}),
        }
      : undefined;
  // A background child waits on nobody: what would ask is denied with the rule that would allow it.
  const avoidPrompts = options.avoidPermissionPrompts ?? options.isAsync === true;
  const lens = options.mode !== undefined || avoidPrompts ? withPermissions(base, { ...(options.mode !== undefined ? { mode: options.mode } : {}), ...(avoidPrompts ? { shouldAvoidPermissionPrompts: true } : {}) }) : {};
  // A teammate hears its own news (its inbox), not the session's.
  const services = options.notifications ? { ...base.services, notifications: options.notifications } : base.services;
  const context: ToolUseContext = { ...base, services, ui, ...lens };
  if (options.signal) {
    const controller = context.abortController;
    if (options.signal.aborted) controller.abort(options.signal.reason);
    else addSharedAbortListener(options.signal, () => controller.abort(options.signal?.reason));
  }
  return { context, keep };
}

/**
 * A child with its own mode or prompt policy: it reads the shared app state through a lens that sets them (memoised
 * per state), so the session's rules stay shared while the parent's mode and prompts stay the parent's. The child's
 * mode is the one asked for only while it is within the parent's (permissions/mode-order.ts), read live: a mode asked
 * for (an agent definition's `permissionMode`, a program's `child({ mode })`) narrows, never widens — and when the
 * session narrows later (Shift+Tab out of bypassPermissions), a child that runs on narrows with it.
 */
function withPermissions(
  context: ToolUseContext,
  changes: { readonly mode?: PermissionMode; readonly shouldAvoidPermissionPrompts?: boolean },
): Pick<ToolUseContext, 'getAppState'> {
  let lastIn: ToolPermissionContext | undefined;
  let lastOut: ToolPermissionContext | undefined;
  const read = context.getAppState;
  return {
    getAppState: () => {
      const state = read();
      if (state.toolPermissionContext !== lastIn) {
        lastIn = state.toolPermissionContext;
        const mode = changes.mode !== undefined ? { mode: narrowMode(changes.mode, lastIn.mode) } : {};
        lastOut = updatePermissionContext(lastIn, { ...changes, ...mode });
      }
      return { ...state, toolPermissionContext: lastOut! };
    },
  };
}
