/**
 * Messages that arrive between tool calls (a background task finished, a hook reported something) and must reach
 * the model on its next turn. Producers push; the executor drains into the `newMessages` of the results it yields.
 *
 * A tool that waits (ScheduleWakeup) or a face that idles between turns listens for arrivals: a message pushed here,
 * or a person's message the loop holds elsewhere (`poke('user-message')`), is a reason to stop waiting.
 */
import type { MessageParam } from './tool.js';

/** Why a waiter was woken: news queued here, or a person's message queued by the loop. */
export type ArrivalKind = 'notification' | 'user-message';
export type ArrivalListener = (kind: ArrivalKind) => void;

export class NotificationQueue {
  #pending: MessageParam[] = [];
  readonly #listeners = new Set<ArrivalListener>();

  push(message: MessageParam): void {
    this.#pending.push(message);
    this.#emit('notification');
  }

  /** Something for the model arrived that is not queued here (the loop holds a person's message for the turn). */
  poke(kind: ArrivalKind): void {
    this.#emit(kind);
  }

  /** Told of every arrival from now on; returns the function that stops it. */
  onArrival(listener: ArrivalListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Everything queued so far, oldest first; the queue is empty afterwards. */
  drain(): MessageParam[] {
    const out = this.#pending;
    this.#pending = [];
    return out;
  }

  get size(): number {
    return this.#pending.length;
  }

  #emit(kind: ArrivalKind): void {
    for (const listener of this.#listeners) {
      try {
        listener(kind);
      } catch {
        // A listener's failure must not lose the message or stop the others.
      }
    }
  }
}
