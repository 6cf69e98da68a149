/**
 * `toolgate -p` in text mode prints only the answer, at the end: while a failing request is retried (a closed port,
 * an overloaded API) each retry is told on stderr, so a script's log shows why nothing came yet instead of a long
 * silence. The JSON formats carry the retries as `api_retry` lines already.
 */
import type { QueryEvent } from '../../agent/types.js';

/** The stderr line of one retry (the loop's event: its error text says more than `api_retry`'s category). */
export function retryNotice(event: Extract<QueryEvent, { type: 'retry' }>): string {
  const seconds = event.delayMs < 1000 ? (event.delayMs / 1000).toFixed(1) : String(Math.round(event.delayMs / 1000));
  return `toolgate: API request failed (${event.error}); retrying in ${seconds}s (retry ${event.attempt})\n`;
}
