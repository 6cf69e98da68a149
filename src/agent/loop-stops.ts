/**
 * When a user turn ends (query.ts asks these after each turn, in this order): predicates over the turn just run, each
 * naming the stop reason of the `result` it ends with — or nothing, and the loop goes on.
 */
import type { ModelStepResult } from './model-step.js';
import type { ModelTally } from './loop-session.js';
import type { ToolStepResult } from './tool-step.js';
import type { QueryResult } from './types.js';
import type { QueryOptions } from './query-options.js';

/** How a user turn ends: the result's stop reason, its error, and what else the result carries. */
export interface Ending {
  readonly stopReason: QueryResult['stopReason'];
  readonly error?: string;
  readonly extra?: Partial<QueryResult>;
  /** The answer of a structured-output session (`QueryResult.structuredOutput`). */
  readonly structuredOutput?: { readonly value: unknown };
}

/**
 * Endings decided by the turn itself, before asking whether the model goes on: an interrupt (a person refused a call
 * and asked to stop: the refusal stays in the conversation, and the model is not asked again until the next message),
 * a failed request, a hook's `continue: false` during a call, the structured answer given, and a spent budget.
 */
export function turnEnding(options: QueryOptions, step: ModelStepResult, tools: ToolStepResult, tally: ModelTally, signal: AbortSignal | undefined): Ending | undefined {
  if (step.aborted || signal?.aborted || tools.interrupted) return { stopReason: 'aborted' };
  if (step.error) return { stopReason: 'error', error: step.error, extra: step.failure ? { apiFailure: step.failure } : {} };
  if (tools.preventContinuation) return { stopReason: 'blocked', extra: { hookStopped: tools.preventContinuation.stopReason ?? 'A hook stopped the loop.' } };
  const answer = structuredAnswer(options, tools);
  if (answer) return { stopReason: 'end_turn', structuredOutput: answer };
  // Checked after each model step.
  if (options.maxBudgetUsd !== undefined && tally.totalCostUsd >= options.maxBudgetUsd) return { stopReason: 'max_budget', error: `Reached maximum budget ($${options.maxBudgetUsd})` };
  return undefined;
}

/** The structured answer (`QueryOptions.structuredOutput`), when this turn's tools gave it. */
function structuredAnswer(options: QueryOptions, tools: ToolStepResult): { value: unknown } | undefined {
  if (!options.structuredOutput) return undefined;
  const answered = tools.outcomes.find((o) => o.toolName === options.structuredOutput!.toolName && !o.isError);
  return answered ? { value: answered.output ?? answered.input } : undefined;
}

/** The model asked for tools (or was cut off mid-answer, or paused its turn): it is asked again. */
export function modelGoesOn(step: ModelStepResult): boolean {
  return step.toolUses.length > 0 || step.interrupted !== undefined || step.stopReason === 'pause_turn';
}

/** An interrupted step that produced nothing at all does not count as a turn. */
export function emptyInterruption(step: ModelStepResult): boolean {
  return Boolean(step.interrupted) && step.toolUses.length === 0 && step.assistant.content.length === 0;
}

export function atMaxTurns(options: QueryOptions, turns: number): boolean {
  return options.maxTurns !== undefined && turns >= options.maxTurns;
}

/** The model stopped without finishing its answer: out of tokens or context, or it refused. */
export function cutShort(step: ModelStepResult): Ending | undefined {
  if (step.stopReason === 'max_tokens' || step.stopReason === 'model_context_window_exceeded') return { stopReason: 'max_tokens' };
  if (step.stopReason === 'refusal') return { stopReason: 'refusal' };
  return undefined;
}

/** The model is done and no hook objects: the turn ends as the model ended it. */
export function doneEnding(step: ModelStepResult): Ending {
  return { stopReason: step.stopReason === 'stop_sequence' ? 'stop_sequence' : 'end_turn' };
}
