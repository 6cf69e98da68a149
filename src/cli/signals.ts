/**
 * Ctrl+C, `kill`, `timeout` and a closed terminal end a run the same way: the first SIGINT, SIGTERM or SIGHUP aborts
 * the runtime (every tool_use still gets its one result, running process groups are ended), the command finishes
 * its output and disposes the runtime (background tasks ended), then exits with 128 + the signal's number. A second
 * signal while that cleanup runs exits at once — a person pressing Ctrl+C twice means it.
 */

export const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type TerminationSignal = (typeof TERMINATION_SIGNALS)[number];

/** The shell's convention: 128 + the signal number. */
export const SIGNAL_EXIT_CODES: Readonly<Record<TerminationSignal, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

export interface SignalGuard {
  /** The first signal received, if any. */
  readonly received: TerminationSignal | undefined;
  /** The exit code the signal asks for (`undefined` when none came). */
  readonly exitCode: number | undefined;
  /** Stops listening (the default behaviour of the signals comes back). */
  dispose(): void;
}

export interface SignalGuardOptions {
  /** Told on a second signal, before the process exits (default: nothing). */
  readonly onForcedExit?: (signal: TerminationSignal) => void;
  /** For tests: where to listen (default: `process`). */
  readonly target?: Pick<NodeJS.Process, 'on' | 'removeListener'>;
  /** For tests: how to leave on a second signal (default: `process.exit`). */
  readonly exit?: (code: number) => void;
}

/** Aborts `controller` with the signal's name on the first termination signal. */
export function guardSignals(controller: AbortController, options: SignalGuardOptions = {}): SignalGuard {
  const target = options.target ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let received: TerminationSignal | undefined;
  const handlers = new Map<TerminationSignal, () => void>();
  for (const signal of TERMINATION_SIGNALS) {
    const handler = () => {
      if (received !== undefined) {
        options.onForcedExit?.(signal);
        exit(SIGNAL_EXIT_CODES[signal]);
        return;
      }
      received = signal;
      controller.abort(signal);
    };
    handlers.set(signal, handler);
    target.on(signal, handler);
  }
  return {
    get received() {
      return received;
    },
    get exitCode() {
      return received === undefined ? undefined : SIGNAL_EXIT_CODES[received];
    },
    dispose() {
      for (const [signal, handler] of handlers) target.removeListener(signal, handler);
      handlers.clear();
    },
  };
}
