/**
 * A session's user messages, in the order they were sent, read by one loop at a time. `send()` may hand in a message
 * still being prepared (a slash command being expanded): it is read in its place, once ready. The input ends when the
 * face says so (`end()`), fails when a message could not be made (`fail()`, or a message that rejects) — the loop ends
 * its session with an error result —, and `cut()` ends only the current loop's reading: what was sent after stays for
 * the next loop (a conversation that starts over: `/clear`, `/compact`, `/resume`).
 */
import type { MessageParam } from '../tool/tool.js';

export class SessionInput {
  readonly #queue: Promise<MessageParam>[] = [];
  #ended = false;
  #failure: { error: unknown } | undefined;
  /** The reading that a `cut()` ended (a later `stream()` starts a new one). */
  #reading = 0;
  #cutAt = -1;
  #wake: (() => void) | undefined;

  push(message: MessageParam | Promise<MessageParam>): void {
    if (this.#ended) return;
    const ready = Promise.resolve(message);
    ready.catch(() => undefined); // read in its turn; its failure is reported then
    this.#queue.push(ready);
    this.#poke();
  }

  /** Messages sent and not read yet. */
  get pending(): number {
    return this.#queue.length;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** No more messages: readers end once the queue is empty. */
  end(): void {
    this.#ended = true;
    this.#poke();
  }

  /** The input failed (a stream of the face's broke): the reader's next read throws. */
  fail(error: unknown): void {
    this.#failure ??= { error };
    this.#poke();
  }

  /** Ends the current loop's reading (it sees the end of its input); the queue is kept for the next one. */
  cut(): void {
    this.#cutAt = this.#reading;
    this.#poke();
  }

  /** The next message; undefined once the input has ended (or the current reading was cut). Throws when it failed. */
  async next(): Promise<MessageParam | undefined> {
    const reading = this.#reading;
    for (;;) {
      if (this.#cutAt === reading) return undefined;
      const head = this.#queue.shift();
      if (head !== undefined) return head;
      if (this.#failure) throw this.#failure.error;
      if (this.#ended) return undefined;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** The current reading as an iterable (a loop's streaming input). */
  stream(): AsyncIterable<MessageParam> {
    return {
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<MessageParam>> => {
          const value = await this.next();
          return value === undefined ? { done: true, value: undefined } : { done: false, value };
        },
      }),
    };
  }

  /** A new reading begins: before the first message of each loop is taken. */
  restart(): void {
    this.#reading++;
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
