/**
 * The seam of the agent loop: how each step of a turn runs. `query()` is the one loop — in this process, on a durable
 * engine, for the Agent SDK face and the CLI alike — and a `LoopSteps` decides two things only:
 *
 * - whether the model step hands tool_use blocks to the tool step while it streams (`overlap`: in this process a tool
 *   starts at its block's `content_block_stop`; a journaled model step is one unit, so its tools start after it);
 * - where a step's result is kept (`step()`: nowhere in this process; in a durable engine's journal, so that a replay
 *   after a crash takes the same path without calling the model, running a hook or a tool again).
 *
 * Everything that may come out differently when run twice goes through `step()`: the system prompt (it holds the
 * date), every hook the loop fires, each model step and each tool step. What the loop computes from their results is
 * deterministic, so a replay yields the same events and sends byte-identical requests.
 */
import type { PermissionDecision } from '../tool/permission-types.js';
import type { AnyTool, ToolResultBlockParam } from '../tool/tool.js';
import type { ToolUseOutcome } from '../execution/outcome.js';
import type { ModelStepResult } from './model-step.js';
import type { QueryEvent } from './query-types.js';
import type { ToolStepResult } from './tool-step.js';

export interface LoopSteps {
  /** Tools may start while the model is still streaming. A journaled runner sets `false`. */
  readonly overlap: boolean;
  /**
   * Runs one step of the loop. `name` is unique within a session run (`model 3`, `tools 3`, `hook Stop 3`); when
   * `overlap` is false the result must be plain JSON (a durable engine stores it and returns it on replay).
   */
  step<T>(name: string, run: () => Promise<T>): Promise<T>;
  /**
   * Errors that must leave the loop as they are (a durable engine's own control flow: a journal mismatch, a
   * cancelled invocation) instead of ending the session with an `error` result.
   */
  readonly passThrough?: (error: unknown) => boolean;
}

/** The default: steps run here and now, tools start while the model streams. */
export const inProcessSteps: LoopSteps = Object.freeze({ overlap: true, step: <T>(_name: string, run: () => Promise<T>) => run() });

/**
 * A model step as plain JSON: the `rejected` map as entries; `handedOver` and `aborted` are not kept (a journaled
 * step ran to its end, and what it handed over follows from the rest). Every other field is already plain and goes
 * as it is, so a field the model step gains is journaled without a change here.
 */
export type JournaledModelStep = Omit<ModelStepResult, 'rejected' | 'handedOver' | 'aborted'> & {
  readonly rejected: readonly (readonly [string, ToolResultBlockParam])[];
};

export function journalModelStep(step: ModelStepResult): JournaledModelStep {
  const { rejected, handedOver: _handedOver, aborted: _aborted, ...plain } = step;
  return { ...plain, rejected: [...rejected.entries()] };
}

export function replayModelStep(step: JournaledModelStep): ModelStepResult {
  // A journaled step ran to its end: an abort during it is the loop's business, not the step's.
  return { ...step, rejected: new Map(step.rejected), handedOver: step.toolUses.length - step.rejected.length, aborted: false };
}

/** A tool step as plain JSON: the user message and, per call, what the loop and the faces read of its outcome. */
export function journalToolStep(step: ToolStepResult): ToolStepResult {
  return {
    ...(step.message ? { message: step.message } : {}),
    ...(step.attachments ? { attachments: step.attachments } : {}),
    outcomes: step.outcomes.map(plainOutcome),
    ...(step.preventContinuation ? { preventContinuation: step.preventContinuation } : {}),
    ...(step.interrupted ? { interrupted: true } : {}),
  };
}

/**
 * An event of a journaled step as plain JSON, for a replay to emit again — only those a face shows (the blocks of
 * the answer, retries, the calls' results, raw stream events when asked for); deltas and progress are for the moment.
 * A call's outcome keeps its typed output and, for an MCP tool, a stand-in of the tool saying so.
 */
export function journaledEvent(event: QueryEvent): QueryEvent | undefined {
  switch (event.type) {
    case 'assistant_block':
    case 'retry':
    case 'stream_event':
    case 'requesting':
      return event;
    case 'tool_result': {
      const { outcome } = event;
      const tool = outcome.tool?.isMcp === true ? ({ name: outcome.tool.name, isMcp: true } as unknown as AnyTool) : undefined;
      return { type: 'tool_result', outcome: { ...plainOutcome(outcome), ...(outcome.output !== undefined ? { output: outcome.output } : {}), ...(tool ? { tool } : {}) } };
    }
    default:
      return undefined;
  }
}

/** An outcome without what cannot be stored (the tool object, a context modifier, the typed output). */
function plainOutcome(o: ToolUseOutcome): ToolUseOutcome {
  const decision: PermissionDecision | undefined = o.decision
    ? ({
        behavior: o.decision.behavior,
        ...('message' in o.decision && typeof o.decision.message === 'string' ? { message: o.decision.message } : {}),
        ...(o.decision.decisionReason ? { decisionReason: JSON.parse(JSON.stringify(o.decision.decisionReason)) } : {}),
      } as PermissionDecision)
    : undefined;
  return {
    toolUseId: o.toolUseId,
    toolName: o.toolName,
    result: o.result,
    isError: o.isError,
    newMessages: o.newMessages,
    userNotices: o.userNotices,
    stage: o.stage,
    durationMs: o.durationMs,
    ...(o.errorClass !== undefined ? { errorClass: o.errorClass } : {}),
    ...(decision ? { decision } : {}),
    ...(o.preventContinuation ? { preventContinuation: o.preventContinuation } : {}),
    ...(o.deferred ? { deferred: true } : {}),
    ...(o.input ? { input: o.input } : {}),
    ...(o.persistedPath ? { persistedPath: o.persistedPath } : {}),
    ...(o.mcpMeta ? { mcpMeta: o.mcpMeta } : {}),
  };
}
