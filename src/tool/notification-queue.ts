/**
 * Messages that arrive between tool calls (a background task finished, a hook reported something) and must reach
 * the model on its next turn. Producers push; the executor drains into the `newMessages` of the results it yields.
 */
import type { MessageParam } from './tool.js';

export class NotificationQueue {
  #pending: MessageParam[] = [];

  push(message: MessageParam): void {
    this.#pending.push(message);
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
}
