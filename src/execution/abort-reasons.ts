/**
 * Why a tool call was cut short, and the abort plumbing that keeps those reasons apart:
 * - a user interrupt (`context.abortController.abort(USER_INTERRUPT)`) cancels tools whose `interruptBehavior` is
 *   `cancel` and lets `block` tools finish; any other abort of the turn cancels everything;
 * - a sibling error aborts a child controller of the turn's, so the turn itself goes on;
 * - a streaming fallback (`discard()`) drops everything of the abandoned response.
 */
import { addSharedAbortListener } from '../tool/shared-abort-listener.js';
import { OutcomeBuilder, type ToolUseOutcome } from './outcome.js';
import { TOOL_ERROR_CLASSES as C, type ToolEventSink } from './errors.js';
import { STREAMING_FALLBACK_MESSAGE, siblingCancelledMessage, USER_INTERRUPT_MESSAGE } from './messages.js';

/** The abort reason that means "the user typed a new message": tools that `block` interrupts keep running. */
export const USER_INTERRUPT = 'interrupt';

/** Reasons the executor itself aborts with (objects, so a parent's reason can never be mistaken for them). */
export const SIBLING_ERROR: unique symbol = Symbol('sibling_error');
export const STREAMING_FALLBACK: unique symbol = Symbol('streaming_fallback');

export type AbortKind = 'sibling_error' | 'user_interrupted' | 'streaming_fallback';

export function abortKindOf(reason: unknown): AbortKind {
  if (reason === SIBLING_ERROR) return 'sibling_error';
  if (reason === STREAMING_FALLBACK) return 'streaming_fallback';
  return 'user_interrupted';
}

/**
 * A controller for one tool: aborted when `source` aborts, except for a user interrupt when the tool `block`s
 * interrupts — then only `shutdown` (the runtime disposed, a signal) still ends it: the interrupt has already spent
 * `source`, so a later shutdown could not come through it. An abort that starts at the tool itself (a tool, or a
 * permission prompt the user rejected, aborting `context.abortController`) ends the turn, as it would without an
 * executor in between. Returns a disposer that detaches it from `source` once the tool is done.
 */
export function linkToolAbortController(
  source: AbortSignal,
  interruptBehavior: 'cancel' | 'block',
  turn: AbortController,
  shutdown?: AbortSignal,
): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  let fromSource = false;
  let detachShutdown: (() => void) | undefined;
  const onShutdown = () => {
    fromSource = true;
    controller.abort(shutdown!.reason);
  };
  const onAbort = () => {
    if (source.reason === USER_INTERRUPT && interruptBehavior === 'block') {
      if (shutdown?.aborted) onShutdown();
      else if (shutdown !== undefined && detachShutdown === undefined) detachShutdown = addSharedAbortListener(shutdown, onShutdown);
      return;
    }
    fromSource = true;
    controller.abort(source.reason);
  };
  controller.signal.addEventListener(
    'abort',
    () => {
      if (!fromSource && !turn.signal.aborted) turn.abort(controller.signal.reason);
    },
    { once: true },
  );
  if (source.aborted) {
    onAbort();
    return { controller, dispose: () => detachShutdown?.() };
  }
  // One listener on the sibling signal whatever the number of tools running (shared-abort-listener.ts).
  const detachSource = addSharedAbortListener(source, onAbort);
  return {
    controller,
    dispose: () => {
      detachSource();
      detachShutdown?.();
    },
  };
}

/** The synthetic answer for a call that was cancelled (or never started) for `kind`. */
export function syntheticOutcome(
  kind: AbortKind,
  toolUseId: string,
  toolName: string,
  erroredCall: string | undefined,
  sink: ToolEventSink | undefined,
): ToolUseOutcome {
  const acc = new OutcomeBuilder(toolUseId, toolName, performance.now(), sink);
  switch (kind) {
    case 'sibling_error':
      return acc.fail('executor', siblingCancelledMessage(erroredCall ?? 'issued with it failed'), C.siblingCancelled);
    case 'streaming_fallback':
      return acc.fail('executor', STREAMING_FALLBACK_MESSAGE, C.discarded);
    case 'user_interrupted':
      return acc.fail('executor', USER_INTERRUPT_MESSAGE, C.interrupted);
  }
}
