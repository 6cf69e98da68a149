/**
 * The executor's cancellation policy, apart from its bookkeeping (streaming-tool-executor.ts): which failed call
 * cancels the calls issued with it, why a call must not run or must be answered for, and how long a cancelled call
 * may take to stop. Pure, but for `raceAbort`'s grace timer.
 */
import type { AnyTool } from '../tool/tool.js';
import { isShellTool } from '../permissions/tool-traits.js';
import { USER_INTERRUPT, type AbortKind } from './abort-reasons.js';
import type { ToolUseOutcome } from './outcome.js';

/** The default sibling-abort rule: a failing shell call (a tool declaring `kind: 'shell'`) that may have changed something; reads fail independently. */
export function defaultCancelsSiblingsOnError(tool: AnyTool, input: Record<string, unknown>, outcome: ToolUseOutcome): boolean {
  if (!isShellTool(tool) || outcome.stage === 'validation' || outcome.stage === 'abort') return false;
  try {
    return !tool.isReadOnly(input);
  } catch {
    return true;
  }
}

/** What the executor knows when it asks why a call must not run. */
export interface CancellationState {
  /** The response was abandoned (`discard()`): nothing of it runs. */
  readonly discarded: boolean;
  /** The call whose failure cancelled its siblings, if one did. */
  readonly erroredIndex: number | undefined;
  /** The turn's signal: a user interrupt, or shutdown. */
  readonly turn: AbortSignal;
}

/** Why this call must not run (or its result must be replaced), if it must not. */
export function abortKindFor(
  state: CancellationState,
  call: { readonly index: number; readonly status: string; readonly interruptBehavior: 'cancel' | 'block' },
): AbortKind | undefined {
  if (state.discarded) return 'streaming_fallback';
  const { turn } = state;
  // A running tool that blocks interrupts finishes; one that has not started does not start.
  const runsOn = call.status === 'executing' && call.interruptBehavior === 'block' && turn.reason === USER_INTERRUPT;
  // The user stopped the turn (Esc, or "deny and stop" at a prompt, whose refusal also counts as a failed call):
  // the others were stopped by the user, not by a sibling's failure.
  const userStopped = turn.aborted && turn.reason === USER_INTERRUPT && !runsOn;
  if (state.erroredIndex !== undefined && state.erroredIndex !== call.index && !userStopped) return 'sibling_error';
  if (turn.aborted) return runsOn ? undefined : 'user_interrupted';
  return undefined;
}

/**
 * The call's own outcome, or — once `signal` aborts — whatever it answers within `graceMs` (`outcome` undefined when
 * it ignored the signal: its late answer is no longer wanted). `aborted` says whether the signal fired first or the
 * call ended with it aborted.
 */
export async function raceAbort(run: Promise<ToolUseOutcome>, signal: AbortSignal, graceMs: number): Promise<{ outcome: ToolUseOutcome | undefined; aborted: boolean }> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const first = await Promise.race([run, aborted]);
  if (onAbort) signal.removeEventListener('abort', onAbort);
  if (first !== 'aborted') {
    // A call that completed cleanly keeps its result even when the signal fired meanwhile.
    if (!signal.aborted || (first.stage === 'completed' && !first.isError)) return { outcome: first, aborted: false };
    return { outcome: first, aborted: true };
  }
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), graceMs);
  });
  const late = await Promise.race([run, grace]);
  clearTimeout(timer);
  if (late === undefined) run.catch(() => undefined); // it ignored the signal; its answer is no longer wanted
  return { outcome: late, aborted: true };
}

/** The tool's answer for this input (`cancel` when it has none, throws, or the input did not parse). */
export function interruptBehaviorOf(tool: AnyTool | undefined, input: Record<string, unknown> | undefined): 'cancel' | 'block' {
  if (tool?.interruptBehavior === undefined) return 'cancel';
  return safe(() => tool.interruptBehavior!(input as never), 'cancel') === 'block' ? 'block' : 'cancel';
}

/** A tool's own answer, or `fallback` when it throws (a tool's bug never stops the executor). */
export function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
