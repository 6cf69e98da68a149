/**
 * The user messages of a streaming-input session: the prompt stream a program passed, and any it adds later with
 * `streamInput()`, each message sent to the session as it comes. The session's input ends when every stream has
 * ended; a stream that fails (or a message that is not a user message) fails it, and the session ends with an error
 * result.
 */
import type { Session, UserContent } from '../session/session.js';
import type { SDKUserMessage } from './messages.js';

type Convert = (message: SDKUserMessage) => UserContent;

export class UserFeed {
  readonly #waiting: AsyncIterable<SDKUserMessage>[] = [];
  readonly #iterators = new Set<AsyncIterator<SDKUserMessage>>();
  readonly #done = new Map<AsyncIterable<SDKUserMessage>, () => void>();
  #target: { session: Session; convert: Convert } | undefined;
  #active = 0;
  #closed = false;

  constructor(first: AsyncIterable<SDKUserMessage>) {
    this.#waiting.push(first);
  }

  /** Starts reading into `session` (it is set up: slash commands can be expanded now). */
  start(session: Session, convert: Convert): void {
    this.#target = { session, convert };
    for (const source of this.#waiting.splice(0)) this.#pump(source);
  }

  /** One more stream of messages (`streamInput`); resolves when it has been read to its end. */
  add(source: AsyncIterable<SDKUserMessage>): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#done.set(source, resolve));
    if (this.#target) this.#pump(source);
    else this.#waiting.push(source);
    return done;
  }

  #pump(source: AsyncIterable<SDKUserMessage>): void {
    const { session, convert } = this.#target!;
    this.#active++;
    const iterator = source[Symbol.asyncIterator]();
    this.#iterators.add(iterator);
    void (async () => {
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done || this.#closed) break;
          // The message's uuid names its file checkpoint (`rewindFiles`).
          session.send(convert(next.value), typeof next.value.uuid === 'string' ? { id: next.value.uuid } : {});
        }
      } catch (error) {
        session.fail(error);
      } finally {
        this.#iterators.delete(iterator);
        this.#active--;
        this.#done.get(source)?.();
        if (this.#active === 0 && this.#waiting.length === 0) session.end();
      }
    })();
  }

  /** No more input: the streams' iterators are returned (a generator's `finally` runs). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const it of this.#iterators) void Promise.resolve(it.return?.()).catch(() => {});
    for (const resolve of this.#done.values()) resolve();
  }
}
