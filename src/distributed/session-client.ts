/**
 * `toolgate run --backend restate=URL`: the prompt goes to the session's virtual object and runs on the workers (a
 * `toolgate worker --sessions` pool); this process only waits for the answer. If it dies, the session goes on; the
 * same command with `--resume ID` and the same prompt attaches to that run again (the idempotency key is the session
 * and the prompt), and a new prompt continues the conversation after it.
 */
import { createHash } from 'node:crypto';
import type { SessionRunRequest, SessionRunResult } from './durable-session.js';
import { randomUUID } from '../tool/crypto.js';

/** A durable session run: the Restate ingress, the prompt and its settings, and the session to resume. */
export interface DurableRunOptions extends SessionRunRequest {
  readonly ingressUrl: string;
  /** Continue (or re-attach to) this session; default: a new one. */
  readonly resume?: string;
  readonly signal?: AbortSignal;
  /** Told the session id and invocation as soon as the run is accepted. */
  readonly onAccepted?: (sessionId: string, invocationId: string) => void;
}

/** Runs the agent loop as a durable session on the workers (`toolgate worker --sessions`) and waits for its result. */
export async function runDurableSession(options: DurableRunOptions): Promise<SessionRunResult> {
  const { ingressUrl, resume, signal, onAccepted, ...request } = options;
  const ingress = ingressUrl.replace(/\/+$/, '');
  const sessionId = resume ?? randomUUID();
  const key = `${sessionId}/${createHash('sha256').update(typeof request.prompt === 'string' ? request.prompt : JSON.stringify(request.prompt)).digest('hex').slice(0, 24)}`;
  const sent = await fetch(`${ingress}/ToolgateSession/${encodeURIComponent(sessionId)}/run/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(request),
    signal,
  });
  const accepted = (await sent.json()) as { invocationId?: string; message?: string };
  if (!sent.ok || !accepted.invocationId) throw new Error(`Restate did not accept the run (${sent.status}): ${accepted.message ?? 'no invocation id'}`);
  onAccepted?.(sessionId, accepted.invocationId);
  let attached: Response;
  let text: string;
  try {
    attached = await fetch(`${ingress}/restate/invocation/${accepted.invocationId}/attach`, { signal });
    text = await attached.text();
  } catch (error) {
    if (signal?.aborted) throw error;
    // Restate went away (or the network between): the run is Restate's, not this process's, and goes on without it.
    const why = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new Error(
      `lost the connection to Restate at ${ingress} while waiting for session ${sessionId} (${why}). The session is kept by Restate and goes on ` +
        `when it is back: run the same command with --resume ${sessionId} and the same prompt to attach to it again.`,
    );
  }
  if (!attached.ok) throw new Error(`the session run failed (${attached.status}): ${text.slice(0, 500)}`);
  return JSON.parse(text) as SessionRunResult;
}
