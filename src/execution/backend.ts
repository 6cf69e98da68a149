/**
 * Where `call()` runs. The pipeline never calls `tool.call` itself: it hands a request to a `ToolCallBackend`. The
 * local backend runs the tool in this process; a remote backend (a durable workflow engine, a worker pool on other
 * machines) can implement the same interface later without touching the pipeline — everything before `call()`
 * (validation, hooks, permissions) and after it (budgeting, PostToolUse hooks) stays here.
 */
import type { AnyTool, AssistantMessage, CanUseToolFn, ToolCallProgress, ToolResult } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';

export interface ToolCallRequest {
  readonly tool: AnyTool;
  /** The validated input, after hook and permission updates. */
  readonly input: Record<string, unknown>;
  readonly context: ToolUseContext;
  readonly canUseTool: CanUseToolFn;
  readonly assistantMessage: AssistantMessage;
  readonly toolUseId: string;
  readonly onProgress?: ToolCallProgress;
}

/** Where a decided call's `call()` runs (`ToolRuntimeOptions.backend`): this process by default, or a durable backend. */
export interface ToolCallBackend {
  /** For logs and telemetry (`local`, `remote:…`). */
  readonly name: string;
  call(request: ToolCallRequest): Promise<ToolResult<unknown>>;
}

/** Runs the tool in this process; its context names the tool_use (`toolUseId`: what a person can act on by id). */
export const localToolCallBackend: ToolCallBackend = {
  name: 'local',
  call: ({ tool, input, context, canUseTool, assistantMessage, toolUseId, onProgress }) =>
    tool.call(input, context.toolUseId === toolUseId ? context : { ...context, toolUseId }, canUseTool, assistantMessage, onProgress),
};
