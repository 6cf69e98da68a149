/**
 * Which Messages API failures are worth another attempt, and how long to wait. The SDK's own retries are turned off
 * (`maxRetries: 0` per request) so that the loop decides: a failure in the middle of a stream may have handed tool
 * calls over already, and only the loop knows that.
 */
import Anthropic from '@anthropic-ai/sdk';

/** How `query()` retries a failed model request (429, 5xx, 529, a dropped connection). */
export interface RetryPolicy {
  /** Attempts after the first (default 8). */
  readonly maxRetries?: number;
  /** First backoff (default 500 ms), doubled each time with ±25 % jitter. */
  readonly baseDelayMs?: number;
  /** Ceiling of the computed backoff (default 32 s). */
  readonly maxDelayMs?: number;
  /** Ceiling of a server's `retry-after` (default 5 min): a longer wait ends the query with the error instead. */
  readonly maxRetryAfterMs?: number;
}

const RETRYABLE_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error']);

export interface ClassifiedError {
  readonly retryable: boolean;
  /** One line: `529 overloaded_error: Overloaded`, `connection dropped: terminated`. */
  readonly description: string;
  /** What the server asked for, in ms. */
  readonly retryAfterMs?: number;
  /** The HTTP status, the API's error type and its message, when there was a response. */
  readonly status?: number;
  readonly type?: string;
  readonly message?: string;
}

/** Attempts after the first when `RetryPolicy.maxRetries` is not given. */
export const DEFAULT_MAX_RETRIES = 8;

export function classifyApiError(error: unknown): ClassifiedError {
  if (error instanceof Anthropic.APIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    const type = body?.error?.type;
    const message = body?.error?.message ?? error.message;
    const status = error.status;
    const retryAfterMs = retryAfterOf(error.headers);
    if (error instanceof Anthropic.APIConnectionError) {
      return { retryable: true, description: `connection failed: ${causeOf(error)}` };
    }
    if (status === undefined) {
      // An `event: error` inside the stream (the API sends overloaded_error this way).
      return { retryable: type === undefined || RETRYABLE_TYPES.has(type), description: `stream error${type ? ` ${type}` : ''}: ${message}`, message, ...(type !== undefined ? { type } : {}) };
    }
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    return { retryable, description: `${status}${type ? ` ${type}` : ''}: ${message}`, retryAfterMs, status, message, ...(type !== undefined ? { type } : {}) };
  }
  // Anything else thrown while reading the body is the connection going away (undici's "terminated", ECONNRESET).
  return { retryable: true, description: `connection dropped: ${error instanceof Error ? error.message : String(error)}` };
}

/** The wait before attempt `attempt + 1` (0-based `attempt` just failed); `undefined`: do not retry. */
export function retryDelayMs(classified: ClassifiedError, attempt: number, policy: RetryPolicy = {}, random = Math.random): number | undefined {
  const maxRetries = policy.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!classified.retryable || attempt >= maxRetries) return undefined;
  if (classified.retryAfterMs !== undefined) {
    return classified.retryAfterMs <= (policy.maxRetryAfterMs ?? 300_000) ? classified.retryAfterMs : undefined;
  }
  const base = Math.min((policy.baseDelayMs ?? 500) * 2 ** attempt, policy.maxDelayMs ?? 32_000);
  return Math.round(base * (0.75 + random() * 0.25));
}

function retryAfterOf(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after');
  if (raw == null) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function causeOf(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : error.message;
}

/** Resolves after `ms`, or early (rejecting) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
