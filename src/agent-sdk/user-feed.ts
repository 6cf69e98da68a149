/**
 * The user messages of a streaming-input session: the prompt stream a program passed, and any it adds later with
 * `streamInput()`, read as they come into one queue. The input ends when every stream has ended; a stream that fails
 * (or a message that is not a user message) fails the input, and the loop ends the session with an error result.
 */
import type { MessageParam } from '../tool/tool.js';
import type { SDKUserMessage } from './messages.js';

type Convert = (message: SDKUserMessage) => Promise<MessageParam>;

export class UserFeed implements AsyncIterable<MessageParam> {
  readonly #queue: MessageParam[] = [];
  readonly #waiting: AsyncIterable<SDKUserMessage>[] = [];
  readonly #iterators = new Set<AsyncIterator<SDKUserMessage>>();
  readonly #done = new Map<AsyncIterable<SDKUserMessage>, () => void>();
  #convert: Convert | undefined;
  #active = 0;
  #closed = false;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  constructor(first: AsyncIterable<SDKUserMessage>) {
    this.#waiting.push(first);
  }

  /** Starts reading (the session is set up: slash commands can be expanded now). */
  start(convert: Convert): void {
    this.#convert = convert;
    for (const source of this.#waiting.splice(0)) this.#pump(source);
  }

  /** One more stream of messages (`streamInput`); resolves when it has been read to its end. */
  add(source: AsyncIterable<SDKUserMessage>): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#done.set(source, resolve));
    if (this.#convert) this.#pump(source);
    else this.#waiting.push(source);
    return done;
  }

  #pump(source: AsyncIterable<SDKUserMessage>): void {
    this.#active++;
    const iterator = source[Symbol.asyncIterator]();
    this.#iterators.add(iterator);
    void (async () => {
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done || this.#closed) break;
          this.#queue.push(await this.#convert!(next.value));
          this.#poke();
        }
      } catch (error) {
        this.#failure ??= { error };
      } finally {
        this.#iterators.delete(iterator);
        this.#active--;
        this.#done.get(source)?.();
        this.#poke();
      }
    })();
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The next message; undefined when the input has ended. Throws when a stream failed. */
  async next(): Promise<MessageParam | undefined> {
    for (;;) {
      if (this.#queue.length > 0) return this.#queue.shift();
      if (this.#failure) throw this.#failure.error;
      if (this.#closed || (this.#convert && this.#active === 0 && this.#waiting.length === 0)) return undefined;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<MessageParam> {
    return {
      next: async () => {
        const value = await this.next();
        return value === undefined ? { done: true, value: undefined } : { done: false, value };
      },
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }

  /** No more input: the streams' iterators are returned (a generator's `finally` runs). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const it of this.#iterators) void Promise.resolve(it.return?.()).catch(() => {});
    for (const resolve of this.#done.values()) resolve();
    this.#poke();
  }
}
