/**
 * `toolgate run -p` in text mode prints only the answer, at the end: while a failing request is retried (a closed
 * port, an overloaded API) each retry is told on stderr, so a script's log shows why nothing came yet instead of a
 * long silence. The JSON formats carry the retries as `api_retry` lines already.
 */
import type { QueryEvent } from '../../agent/types.js';

export async function* withRetryNotices(
  events: AsyncIterable<QueryEvent>,
  write: (text: string) => void = (text) => process.stderr.write(text),
): AsyncGenerator<QueryEvent> {
  for await (const event of events) {
    if (event.type === 'retry') {
      const seconds = event.delayMs < 1000 ? (event.delayMs / 1000).toFixed(1) : String(Math.round(event.delayMs / 1000));
      write(`toolgate: API request failed (${event.error}); retrying in ${seconds}s (retry ${event.attempt})\n`);
    }
    yield event;
  }
}
