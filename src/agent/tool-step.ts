/**
 * The tool step of one turn: the runtime's run that the model step feeds block by block, and the one user message
 * that answers every tool_use of the assistant message — the run's results and the model step's own (input that was
 * not JSON, calls cut off), in call order.
 */
import type { ToolUseOutcome } from '../execution/outcome.js';
import { attachmentMessages, toolResultsMessage } from '../execution/messages.js';
import { errorToolResult } from '../tool/tool-result.js';
import type { AssistantMessage, MessageParam, ToolResultBlockParam, ToolUseBlock } from '../tool/tool.js';
import type { ModelStepResult } from './model-step.js';
import type { QueryEvent, RunResult, ToolRunHandle, ToolRuntime } from './types.js';

export interface ToolStepResult {
  /** The user message with one tool_result per tool_use (absent when the response had none). */
  readonly message?: MessageParam & { readonly role: 'user' };
  /** What the tools' `newMessages` carry, as the messages that follow the tool_result message (attachments). */
  readonly attachments?: readonly MessageParam[];
  readonly outcomes: readonly ToolUseOutcome[];
  /** A hook said `continue: false` during a call. */
  readonly preventContinuation?: { readonly stopReason?: string };
  /** The user stopped the run (a prompt answered "deny and stop"): the turn ends here. */
  readonly interrupted?: boolean;
}

export interface ToolStep {
  /** Hands one block over (the model step's `onToolUse`). */
  add(block: ToolUseBlock, assistant: AssistantMessage): void;
  /** No more blocks: waits for the results and builds the user message. */
  settle(model: ModelStepResult): Promise<ToolStepResult>;
}

/** `history`: the conversation before this turn's assistant message (the tools' `context.messages`). */
export function startToolStep(runtime: ToolRuntime, emit: (event: QueryEvent) => void, signal?: AbortSignal, history: readonly MessageParam[] = []): ToolStep {
  let handle: ToolRunHandle | undefined;
  let pump: Promise<RunResult | undefined> | undefined;
  return {
    add(block, assistant) {
      if (!handle) {
        // The run begins with the first tool_use: a response with none costs nothing here.
        handle = runtime.begin(assistant, { ...(signal ? { signal } : {}), messages: [...history, assistant] });
        pump = drain(handle, emit);
      }
      handle.add(block);
    },
    async settle(model) {
      handle?.finish();
      let run: RunResult | undefined;
      let failure: string | undefined;
      try {
        run = await pump;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      return merge(model, run, failure, emit);
    },
  };
}

async function drain(handle: ToolRunHandle, emit: (event: QueryEvent) => void): Promise<RunResult | undefined> {
  for await (const event of handle.events()) {
    if (event.type === 'progress') emit({ type: 'tool_progress', progress: event.progress });
    else if (event.type === 'result') emit({ type: 'tool_result', outcome: event.outcome });
    else return event.result;
  }
  return undefined;
}

/** Every tool_use of the response answered exactly once, in call order; the run's extra messages after them. */
export function merge(model: ModelStepResult, run: RunResult | undefined, failure: string | undefined, emit?: (event: QueryEvent) => void): ToolStepResult {
  if (model.toolUses.length === 0) return { outcomes: [] };
  const byId = new Map<string, ToolResultBlockParam>();
  for (const result of run?.results ?? []) byId.set(result.tool_use_id, result);
  const outcomes: ToolUseOutcome[] = [...(run?.outcomes ?? [])];
  const results = model.toolUses.map((block) => {
    const found = byId.get(block.id) ?? model.rejected.get(block.id);
    if (found) {
      if (model.rejected.has(block.id)) {
        const outcome = syntheticOutcome(block, found);
        outcomes.push(outcome);
        emit?.({ type: 'tool_result', outcome });
      }
      return found;
    }
    // Should not happen (the run answers every block it was given); never leave a tool_use without its result.
    const result = errorToolResult(block.id, failure ? `The tool run failed: ${failure}` : 'This call produced no result.');
    const outcome = syntheticOutcome(block, result);
    outcomes.push(outcome);
    emit?.({ type: 'tool_result', outcome });
    return result;
  });
  const preventContinuation = run?.outcomes.find((o) => o.preventContinuation)?.preventContinuation;
  const message = toolResultsMessage(results) as NonNullable<ToolStepResult['message']>;
  const attachments = attachmentMessages(run?.newMessages ?? []);
  return {
    message,
    ...(attachments.length > 0 ? { attachments } : {}),
    outcomes,
    ...(preventContinuation ? { preventContinuation } : {}),
    ...(run?.interrupted ? { interrupted: true } : {}),
  };
}

function syntheticOutcome(block: ToolUseBlock, result: ToolResultBlockParam): ToolUseOutcome {
  return {
    toolUseId: block.id,
    toolName: block.name,
    result,
    isError: true,
    newMessages: [],
    userNotices: [],
    stage: 'validation',
    errorClass: 'InvalidToolInput',
    durationMs: 0,
  };
}
