/**
 * What the loop keeps across the user turns of one session: the messages a program streams in (`QueryOptions.input`)
 * and the per-model tally of usage and cost. Both belong to one `query()` call; nothing here is shared between
 * sessions.
 */
import { systemReminderText } from '../tool/message-origin.js';
import type { MessageParam } from '../tool/tool.js';
import { addUsage, costOf } from './pricing.js';
import type { ModelUsageTotals, Usage } from './types.js';

/**
 * The user messages a program streams in, read ahead: a message that arrives while a turn runs waits here, and the
 * loop either hands it to the model with the next tool results (`takeQueued`) or starts the next user turn with it.
 */
export class PromptInbox {
  readonly #queue: MessageParam[] = [];
  readonly #iterator: AsyncIterator<MessageParam>;
  #ended = false;
  #failure: unknown;
  #wake: (() => void) | undefined;
  #closed = false;
  readonly #onArrival: (() => void) | undefined;

  /** `onArrival` is told of each message as it arrives (whether or not a turn is running). */
  constructor(source: AsyncIterable<MessageParam>, onArrival?: () => void) {
    this.#iterator = source[Symbol.asyncIterator]();
    this.#onArrival = onArrival;
    void this.#pump();
  }

  async #pump(): Promise<void> {
    try {
      for (;;) {
        const next = await this.#iterator.next();
        if (next.done || this.#closed) break;
        this.#queue.push(next.value);
        this.#poke();
        this.#onArrival?.();
      }
    } catch (error) {
      this.#failure = error;
    }
    this.#ended = true;
    this.#poke();
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Messages that arrived and wait (taken: the caller hands them to the model now). */
  takeQueued(): MessageParam[] {
    return this.#queue.splice(0);
  }

  /** The next message; undefined when the source has ended (or failed: `failure` says why). */
  async next(signal?: AbortSignal): Promise<MessageParam | undefined> {
    for (;;) {
      if (this.#queue.length > 0) return this.#queue.shift();
      if (this.#ended || signal?.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        this.#wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  get failure(): unknown {
    return this.#failure;
  }

  /** Stops reading: the source's iterator is returned (a generator's `finally` runs). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#poke();
    void Promise.resolve(this.#iterator.return?.()).catch(() => {});
  }
}

/** The text a queued message reaches the model with, appended to the tool results of the running turn. */
export function queuedMessageNote(message: MessageParam): { type: 'text'; text: string } {
  const text = typeof message.content === 'string' ? message.content : message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  return {
    type: 'text',
    text: systemReminderText(`While you were working, the user sent this message:\n${text}\n\nTake it into account as you go on with this turn.`),
  };
}

/** Usage and cost per model over a whole session, its sub-agents' requests included. */
export class ModelTally {
  readonly #byModel = new Map<string, { usage: Usage; costUsd: number; requests: number }>();
  #total = 0;

  add(model: string, usage: Usage, costUsd = costOf(model, usage)): number {
    const entry = this.#byModel.get(model);
    if (entry) {
      entry.usage = addUsage(entry.usage, usage);
      entry.costUsd += costUsd;
      entry.requests++;
    } else this.#byModel.set(model, { usage, costUsd, requests: 1 });
    this.#total += costUsd;
    return costUsd;
  }

  /** A finished sub-agent's totals (its requests are the session's too). */
  merge(totals: Readonly<Record<string, ModelUsageTotals>> | undefined): void {
    for (const [model, t] of Object.entries(totals ?? {})) {
      const entry = this.#byModel.get(model);
      if (entry) {
        entry.usage = addUsage(entry.usage, t.usage);
        entry.costUsd += t.costUsd;
        entry.requests += t.requests;
      } else this.#byModel.set(model, { usage: t.usage, costUsd: t.costUsd, requests: t.requests });
      this.#total += t.costUsd;
    }
  }

  get totalCostUsd(): number {
    return this.#total;
  }

  snapshot(): Record<string, ModelUsageTotals> {
    const out: Record<string, ModelUsageTotals> = {};
    for (const [model, t] of this.#byModel) out[model] = { usage: { ...t.usage }, costUsd: t.costUsd, requests: t.requests };
    return out;
  }
}

/** `a,b` → the models to fall back to, in order (blank entries and the primary itself left out). */
export function fallbackModels(spec: string | undefined, primary: string): string[] {
  return (spec ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '' && m !== primary);
}

/** A failure a fallback model can help with: overloaded or unavailable (not a bad request, not a refused key). */
export function warrantsFallback(failure: { readonly status?: number; readonly type?: string } | undefined): boolean {
  if (!failure) return false;
  if (failure.type === 'overloaded_error' || failure.type === 'not_found_error' || failure.type === 'api_error') return true;
  return failure.status === 529 || failure.status === 404 || (failure.status !== undefined && failure.status >= 500);
}
