/**
 * One real `abort` listener per AbortSignal, however many parties wait on it. A runtime's signal is shared by every
 * run, a turn's by every tool, a caller's signal may be handed to hundreds of concurrent runs; one listener each
 * would trip Node's MaxListenersExceededWarning at 11 (the warning exists to catch leaks, so raising the limit would
 * also hide a real one). Here the signal carries a single listener that calls a set of callbacks; each registration
 * returns its own remover, and the real listener goes away with the last registration — so a long-lived signal does
 * not grow with the work it has seen.
 *
 * As with `addEventListener`, nothing fires for a signal that is already aborted: callers check `signal.aborted` first.
 */

interface Fanout {
  readonly callbacks: Set<() => void>;
  readonly fire: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/** Calls `callback` once when `signal` aborts; returns a function that unregisters it (idempotent). */
export function addSharedAbortListener(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) return () => {};
  let fanout = fanouts.get(signal);
  if (fanout === undefined) {
    const callbacks = new Set<() => void>();
    const fire = () => {
      fanouts.delete(signal);
      for (const cb of [...callbacks]) {
        try {
          cb();
        } catch (error) {
          // As an EventTarget does with a throwing listener: the others still run, the error is reported, not lost.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
      callbacks.clear();
    };
    fanout = { callbacks, fire };
    fanouts.set(signal, fanout);
    signal.addEventListener('abort', fire, { once: true });
  }
  // A wrapper of its own, so the same function registered twice is two registrations, each removed by its remover.
  const entry = () => callback();
  const { callbacks, fire } = fanout;
  callbacks.add(entry);
  return () => {
    if (!callbacks.delete(entry) || callbacks.size > 0) return;
    if (fanouts.get(signal)?.callbacks === callbacks) fanouts.delete(signal);
    signal.removeEventListener('abort', fire);
  };
}

/** How many callbacks wait on `signal` through this module (for tests and leak checks). */
export function sharedAbortListenerCount(signal: AbortSignal): number {
  return fanouts.get(signal)?.callbacks.size ?? 0;
}
