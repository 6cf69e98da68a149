/**
 * Durable tool calls on Restate, the worker's side: the `<service>/call` handler that runs a decided call.
 *
 * A worker that dies mid-call: Restate retries the invocation on a live worker (the deployment URL is served by every
 * worker of the pool, see tool-worker.ts). What the retry does depends on the tool's trait (`isRetrySafe`), judged by
 * the coordinator and carried by the call (`retrySafe`): a retry-safe call runs again; any other call journals a
 * `begin` marker before it starts, and a retry that finds the marker of an earlier attempt answers with `interrupted`
 * instead of running it a second time. Retry-safe calls skip the marker: they cost one durable step fewer.
 */
import './node20-compat.js';
import * as restate from '@restatedev/restate-sdk';
import type { Tools } from '../tool/tool.js';
import { createProgressSender } from './progress-channel.js';
import { executeRemoteToolCall, internSettings, type RemoteToolCall, type RemoteToolResult } from './remote-tool-call.js';
import { toolServiceName } from './restate-tool-engine.js';
import { randomUUID } from '../tool/crypto.js';

export interface ToolCallServiceOptions {
  readonly tools: Tools;
  readonly workspaces: readonly string[];
  readonly pool?: string;
  /** Most calls running at once in this process; more wait their turn (default 64). */
  readonly concurrency?: number;
  readonly workerName?: string;
  readonly stateDir?: string;
  /** Called when a call starts and ends on this worker (tests count executions with it). */
  readonly onCall?: (event: 'start' | 'end', call: RemoteToolCall) => void;
}

export function interruptedMessage(tool: string, worker?: string): string {
  const where = worker ? ` (last seen on ${worker})` : '';
  return (
    `The worker running this ${tool} call stopped before it reported back${where}. ${tool} is not safe to run twice, so it ` +
    'was not run again: it may or may not have taken effect. Check the state it would have changed before running it again.'
  );
}

export function toolCallService(options: ToolCallServiceOptions) {
  const limit = createLimiter(options.concurrency ?? 64);
  return restate.service({
    name: toolServiceName(options.pool),
    handlers: {
      call: async (ctx: restate.Context, call: RemoteToolCall): Promise<RemoteToolResult> => {
        // Every branch before a journaled step depends on the call alone (stored with the invocation), never on this
        // process: a retry on another process, warm or freshly started, must take the same path, or Restate finds a
        // journal that does not match and retries the call until it gives up. Whether the call may run twice was
        // judged by the coordinator (`retrySafe`); absent means no.
        if (call.retrySafe !== true) {
          // Non-deterministic on purpose: the value tells this attempt from an earlier one that got this far.
          const attempt = randomUUID();
          const begun = await ctx.run('begin', () => attempt);
          if (begun !== attempt) return { ok: false, interrupted: true, error: { message: interruptedMessage(call.tool) }, worker: options.workerName };
        }
        const { controller, dispose } = cancellationSignal(ctx);
        return limit(async () => {
          options.onCall?.('start', call);
          const progress = createProgressSender(call.progressUrl);
          try {
            // Restate hands the call over as parsed JSON: interning its settings lets what is cached per settings object hit.
            const result = await executeRemoteToolCall({ ...call, settings: internSettings(call.settings) }, {
              tools: options.tools,
              workspaces: options.workspaces,
              signal: controller.signal,
              abortController: controller,
              onProgress: progress.send,
              stateDir: options.stateDir,
              workerName: options.workerName,
            });
            await progress.flush();
            return result;
          } finally {
            options.onCall?.('end', call);
            dispose();
          }
        });
      },
    },
    options: {
      // Cancellation reaches the tool through `cancellationSignal`; the handler answers (with the tool's abort error).
      explicitCancellation: true,
      // A dead worker's calls come back quickly on a live one; after many failed attempts the call ends with an error.
      retryPolicy: { initialInterval: 200, maxInterval: 5_000, exponentiationFactor: 2, maxAttempts: 30, onMaxAttempts: 'kill' },
      idempotencyRetention: { days: 1 },
    },
  });
}

/**
 * The tool's AbortController (its context uses it as is), aborted when this invocation is cancelled (the coordinator's
 * turn was aborted) or its attempt ends. The tool runs outside Restate's promises, so it would not notice a
 * cancellation on its own: the service takes cancellation explicitly (`explicitCancellation`), and Restate's cancel
 * signal resolves `cancellation()`. That signal is not a journal entry (an awakeable, used before, cost each call one
 * more journal write), and it is the same on every attempt: a replay of a cancelled call sees it at once.
 *
 * The watch starts only once a call has run for `CANCELLATION_WATCH_AFTER_MS`: each watch cost a call ~0.1 ms of the
 * worker's CPU (the SDK polls the signal, and rejects it with an error carrying a stack when the invocation ends),
 * and most calls answer sooner than a cancellation could reach them. A signal that came before the watch is seen
 * when it starts (the signal is kept by the invocation, not by the promise).
 */
function cancellationSignal(ctx: restate.Context): { controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  const attempt = ctx.request().attemptCompletedSignal;
  const onAttemptEnd = () => controller.abort('attempt ended');
  if (attempt.aborted) onAttemptEnd();
  else attempt.addEventListener('abort', onAttemptEnd, { once: true });
  const watch = setTimeout(() => {
    (ctx as restate.Context & restate.internal.ContextInternal).cancellation().then(
      () => controller.abort('cancelled'),
      () => undefined,
    );
  }, CANCELLATION_WATCH_AFTER_MS);
  // Once the call has answered, the end of its attempt has nothing left to stop.
  return {
    controller,
    dispose: () => {
      clearTimeout(watch);
      attempt.removeEventListener('abort', onAttemptEnd);
    },
  };
}

const CANCELLATION_WATCH_AFTER_MS = 20;

function createLimiter(max: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

