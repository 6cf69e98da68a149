/**
 * Durable tool calls on Restate: the worker's service (`toolCallService`) and the coordinator's client
 * (`createRestateToolEngine`), both speaking `RemoteToolCall` / `RemoteToolResult`.
 *
 * One tool call is one Restate invocation of `<service>/call`, submitted through the ingress with the idempotency key
 * `sessionId/tool_use_id`: Restate runs it once and keeps its result (for `idempotencyRetention`), so a coordinator
 * that submits the same tool_use again — after a network error, or replaying a durable session after a crash — gets
 * the stored result and nothing runs twice.
 *
 * A worker that dies mid-call: Restate retries the invocation on a live worker (the deployment URL is served by every
 * worker of the pool, see tool-worker.ts). What the retry does depends on the tool's trait (`isRetrySafe`): a
 * retry-safe call runs again; any other call journals a `begin` marker before it starts, and a retry that finds the
 * marker of an earlier attempt answers with `interrupted` instead of running it a second time. Retry-safe calls skip
 * the marker: they cost one durable step fewer.
 */
import './node20-compat.js';
import { randomUUID } from 'node:crypto';
import * as restate from '@restatedev/restate-sdk';
import type { Tools } from '../tool/tool.js';
import { createProgressSender } from './progress-channel.js';
import {
  executeRemoteToolCall,
  findWorkerTool,
  isRetrySafe,
  type DurableToolEngine,
  type RemoteToolCall,
  type RemoteToolResult,
} from './remote-tool-call.js';

export const DEFAULT_TOOL_SERVICE = 'ToolgateTools';

/** The service name of a worker pool: one name per set of workers that see the same workspaces. */
export function toolServiceName(pool?: string): string {
  if (pool === undefined || pool === '' || pool === 'default') return DEFAULT_TOOL_SERVICE;
  if (!/^[A-Za-z0-9_]{1,64}$/.test(pool)) throw new Error(`invalid worker pool name "${pool}" (letters, digits and _ only)`);
  return `${DEFAULT_TOOL_SERVICE}_${pool}`;
}

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
        const tool = findWorkerTool(options.tools, call.tool);
        if (tool && !isRetrySafe(tool, call.input)) {
          // Non-deterministic on purpose: the value tells this attempt from an earlier one that got this far.
          const attempt = randomUUID();
          const begun = await ctx.run('begin', () => attempt);
          if (begun !== attempt) return { ok: false, interrupted: true, error: { message: interruptedMessage(tool.name) }, worker: options.workerName };
        }
        const signal = cancellationSignal(ctx);
        return limit(async () => {
          options.onCall?.('start', call);
          const progress = createProgressSender(call.progressUrl);
          try {
            const result = await executeRemoteToolCall(call, {
              tools: options.tools,
              workspaces: options.workspaces,
              signal,
              onProgress: progress.send,
              stateDir: options.stateDir,
              workerName: options.workerName,
            });
            await progress.flush();
            return result;
          } finally {
            options.onCall?.('end', call);
          }
        });
      },
    },
    options: {
      // A dead worker's calls come back quickly on a live one; after many failed attempts the call ends with an error.
      retryPolicy: { initialInterval: 200, maxInterval: 5_000, exponentiationFactor: 2, maxAttempts: 30, onMaxAttempts: 'kill' },
      idempotencyRetention: { days: 1 },
    },
  });
}

/**
 * An AbortSignal that fires when this invocation is cancelled (the coordinator's turn was aborted) or its attempt ends.
 * The tool runs outside Restate's promises, so it would not notice a cancellation on its own: an awakeable that
 * nobody ever resolves is a Restate promise that rejects exactly then.
 */
function cancellationSignal(ctx: restate.Context): AbortSignal {
  const controller = new AbortController();
  const attempt = ctx.request().attemptCompletedSignal;
  if (attempt.aborted) controller.abort('attempt ended');
  else attempt.addEventListener('abort', () => controller.abort('attempt ended'), { once: true });
  ctx.awakeable<never>().promise.then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof restate.CancelledError) controller.abort('cancelled');
    },
  );
  return controller.signal;
}

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

export interface RestateToolEngineOptions {
  /** The Restate ingress, e.g. `http://restate:8080`. */
  readonly ingressUrl: string;
  /** The admin API, for cancellation (default: the ingress host on port 9070). */
  readonly adminUrl?: string;
  readonly pool?: string;
  /** Attempts to reach the ingress before a call fails (default 5; safe, the idempotency key dedups). */
  readonly attempts?: number;
}

export function defaultAdminUrl(ingressUrl: string): string {
  const url = new URL(ingressUrl);
  url.port = '9070';
  return url.origin;
}

export function createRestateToolEngine(options: RestateToolEngineOptions): DurableToolEngine {
  const ingress = options.ingressUrl.replace(/\/+$/, '');
  const admin = (options.adminUrl ?? defaultAdminUrl(ingress)).replace(/\/+$/, '');
  const service = toolServiceName(options.pool);
  const attempts = Math.max(1, options.attempts ?? 5);
  const callUrl = `${ingress}/${service}/call`;

  async function cancel(key: string, body: string): Promise<void> {
    // The same key again returns the invocation id of the call already running ("PreviouslyAccepted").
    const sent = await fetch(`${callUrl}/send`, { method: 'POST', headers: headers(key), body, signal: AbortSignal.timeout(10_000) });
    const { invocationId } = (await sent.json()) as { invocationId?: string };
    if (!invocationId) return;
    const r = await fetch(`${admin}/invocations/${encodeURIComponent(invocationId)}/cancel`, { method: 'PATCH', signal: AbortSignal.timeout(10_000) });
    await r.body?.cancel();
  }

  return {
    name: `restate:${ingress}`,
    async submit(call, { idempotencyKey, signal }) {
      const body = JSON.stringify(call);
      const onAbort = () => {
        cancel(idempotencyKey, body).catch(() => undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        let lastError: unknown;
        for (let attempt = 0; attempt < attempts; attempt++) {
          if (signal.aborted) break;
          try {
            const response = await fetch(callUrl, { method: 'POST', headers: headers(idempotencyKey), body, signal });
            const text = await response.text();
            if (response.ok) return JSON.parse(text) as RemoteToolResult;
            const message = restateErrorMessage(text);
            // 5xx from the ingress itself (not from our handler, which always answers 200) may pass; 4xx will not.
            if (response.status >= 500 && response.status !== 500) {
              lastError = new Error(`Restate answered ${response.status}: ${message}`);
            } else {
              return { ok: false, error: { message: `Restate could not run this call (${response.status}): ${message}`, name: 'RestateError' } };
            }
          } catch (error) {
            if (signal.aborted) break;
            lastError = error;
          }
          await new Promise((r) => setTimeout(r, Math.min(2_000, 200 * 2 ** attempt)));
        }
        if (signal.aborted) throw abortError(signal);
        const why = lastError instanceof Error ? lastError.message : String(lastError);
        throw new Error(`The Restate ingress at ${ingress} could not be reached (${why}). The call may or may not have started; submitting the same tool_use again returns its result if it did.`);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

function headers(idempotencyKey: string): Record<string, string> {
  return { 'content-type': 'application/json', 'idempotency-key': idempotencyKey };
}

function restateErrorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 500) || '(no message)';
}

function abortError(signal: AbortSignal): Error {
  const error = new Error(`The call was cancelled${typeof signal.reason === 'string' ? ` (${signal.reason})` : ''}; the worker was told to stop.`);
  error.name = 'AbortError';
  return error;
}
