/**
 * `type: "http"` hooks (reference A5): the input JSON is POSTed; a 2xx with an empty body is success, a 2xx with JSON
 * is read like a command hook's stdout, anything else (other body, non-2xx, connection failure) is a non-blocking
 * error — an HTTP status alone cannot block.
 */
import type { RawHookRun } from './run-hook-process.js';
import type { HttpHookHandler } from './types.js';

export async function runHttpHook(
  handler: HttpHookHandler,
  opts: { body: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal: AbortSignal },
): Promise<RawHookRun> {
  if (opts.signal.aborted) return { kind: 'aborted' };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, timeout.signal]);
  try {
    const res = await fetch(handler.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...expandHeaders(handler, opts.env) },
      body: opts.body,
      signal,
      redirect: 'error',
    });
    const text = await res.text();
    if (!res.ok) return { kind: 'error', message: `HTTP ${res.status} from ${handler.url}` };
    const trimmed = text.trim();
    if (trimmed === '') return { kind: 'json', output: {} };
    try {
      return { kind: 'json', output: JSON.parse(trimmed) as unknown };
    } catch {
      return { kind: 'error', message: `HTTP ${res.status} from ${handler.url} with a body that is not JSON` };
    }
  } catch (err) {
    if (opts.signal.aborted) return { kind: 'aborted' };
    if (timeout.signal.aborted) return { kind: 'timeout', timeoutMs: opts.timeoutMs };
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { kind: 'error', message: `request to ${handler.url} failed: ${cause?.code ?? cause?.message ?? (err as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

/** `$VAR` / `${VAR}` in header values expand only for variables listed in `allowedEnvVars`; others become empty. */
function expandHeaders(handler: HttpHookHandler, env: NodeJS.ProcessEnv): Record<string, string> {
  const allowed = new Set(handler.allowedEnvVars ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(handler.headers ?? {})) {
    out[name] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a?: string, b?: string) => {
      const v = (a ?? b)!;
      return allowed.has(v) ? (env[v] ?? '') : '';
    });
  }
  return out;
}
