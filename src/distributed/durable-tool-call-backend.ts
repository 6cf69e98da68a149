/**
 * A `ToolCallBackend` that hands `call()` to a durable engine (`DurableToolEngine`: Restate, or any other that keeps
 * the same promise). The pipeline has validated, run the hooks and decided the permission before it gets here, and
 * takes the result back for budgeting and PostToolUse hooks: only `call()` itself travels.
 *
 * - one call per `sessionId/tool_use_id` (the idempotency key): a retry of the same tool_use never runs it again;
 * - progress comes back over the coordinator's progress receiver, when a listener wants it;
 * - the turn's abort signal cancels the call in the engine, and the pipeline gets an abort error at once;
 * - what the worker learned (the read record of the touched file, a `cd`) is applied to this session's context;
 * - a call the worker could not finish because it died mid-call, and that is not safe to run twice, comes back as an
 *   error that says so (`RemoteCallInterruptedError`), never as a silent re-run.
 */
import type { ToolCallBackend, ToolCallRequest } from '../execution/backend.js';
import { localToolCallBackend } from '../execution/backend.js';
import { permissionTraitsOf } from '../permissions/tool-traits.js';
import type { AnyTool, ToolResult } from '../tool/tool.js';
import type { ProgressReceiver } from './progress-channel.js';
import { applyRemoteEffects, idempotencyKeyOf, toRemoteToolCall, type DurableToolEngine, type RemoteToolResult } from './remote-tool-call.js';

/** The engine that runs the calls, where their progress comes back, and which calls stay in this process. */
export interface DurableToolCallBackendOptions {
  readonly engine: DurableToolEngine;
  /** Where workers post progress; without one, remote calls report no progress. */
  readonly progress?: ProgressReceiver;
  /**
   * Calls that stay in this process. Default: everything but workspace tools — those whose permission traits say they
   * run commands, read, write or search files (and are not MCP tools, whose connections live here). Tools that work on
   * the session itself (plan mode, to-do lists, questions, sub-agents) change this process's state and stay.
   */
  readonly runsLocally?: (tool: AnyTool, input: Record<string, unknown>) => boolean;
}

/** The worker reported an error from the tool: same name and code as on the worker, for error classification. */
export class RemoteToolError extends Error {
  readonly code?: string;
  constructor(message: string, name?: string, code?: string) {
    super(message);
    this.name = name && /^[A-Za-z][A-Za-z0-9_]*$/.test(name) ? name : 'RemoteToolError';
    if (code) this.code = code;
  }
}

/** A worker died mid-call and the call is not safe to run again: it may or may not have happened. */
export class RemoteCallInterruptedError extends Error {
  override readonly name = 'RemoteCallInterruptedError';
}

export class RemoteCallAbortedError extends Error {
  override readonly name = 'AbortError';
}

const WORKSPACE_KINDS = new Set(['shell', 'read', 'write', 'search']);

export function isWorkspaceTool(tool: AnyTool): boolean {
  if (tool.isMcp === true || tool.mcpInfo !== undefined) return false;
  return WORKSPACE_KINDS.has(permissionTraitsOf(tool).kind);
}

const defaultRunsLocally = (tool: AnyTool) => !isWorkspaceTool(tool);

/** A `ToolCallBackend` (`ToolRuntimeOptions.backend`) that runs workspace tools' `call()` on workers through a durable engine. */
export function createDurableToolCallBackend(options: DurableToolCallBackendOptions): ToolCallBackend {
  const runsLocally = options.runsLocally ?? defaultRunsLocally;
  return {
    name: `durable:${options.engine.name}`,
    async call(request: ToolCallRequest): Promise<ToolResult<unknown>> {
      const { tool, input, context, toolUseId, onProgress } = request;
      if (runsLocally(tool, input)) return localToolCallBackend.call(request);
      const signal = context.abortController.signal;
      if (signal.aborted) throw new RemoteCallAbortedError('The call was cancelled before it was sent to a worker.');
      const channel = onProgress && options.progress ? options.progress.open((data) => onProgress({ toolUseID: toolUseId, data })) : undefined;
      let result: RemoteToolResult;
      try {
        const call = toRemoteToolCall(tool, input, toolUseId, context, channel?.url);
        result = await options.engine.submit(call, { idempotencyKey: idempotencyKeyOf(call.sessionId, toolUseId), signal });
      } finally {
        channel?.release();
      }
      if (!result.ok) {
        if (result.interrupted) throw new RemoteCallInterruptedError(result.error.message);
        throw new RemoteToolError(result.error.message, result.error.name, result.error.code);
      }
      applyRemoteEffects(result, context);
      // An interrupted command's output so far stays the answer, as it does locally (the executor keeps it).
      return { data: result.data, newMessages: result.newMessages, ...(result.userInterrupted === true ? { interrupted: true } : {}) };
    },
  };
}
