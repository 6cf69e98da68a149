/**
 * The errors a program catches from `toolgate/agent-sdk`, as from the Agent SDK: `AbortError` when the session was
 * aborted through `options.abortController` (the stream ends by throwing it, with no result message).
 */
export class AbortError extends Error {
  override readonly name = 'AbortError';
}
