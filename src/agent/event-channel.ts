/**
 * A queue that several producers push into and one consumer drains: the model stream and the tool run both produce
 * events while a turn is in flight, and the caller sees them in the order they happened.
 *
 * The consumer drains it inline rather than through a generator of the channel's own (query.ts):
 *
 *   channel.until(work);
 *   for (let item = channel.take(); ; item = channel.take()) {
 *     if (item !== undefined) yield item;
 *     else if (channel.settled) break;
 *     else await channel.wait();
 *   }
 *   return channel.result();
 *
 * Each event of a turn then crosses one async generator less on its way out (a `yield*` layer costs a few promises
 * per event, and a turn streams one event per block, delta and result).
 */
export class EventChannel<T, R> {
  readonly #items: T[] = [];
  #wake: (() => void) | undefined;
  #settled = false;
  #value: R | undefined;
  #failure: { error: unknown } | undefined;

  /** `done`: the work whose end ends the channel (its value is `result()`, its failure thrown by it). */
  until(done: Promise<R>): void {
    done.then(
      (v) => {
        this.#settled = true;
        this.#value = v;
        this.#poke();
      },
      (error: unknown) => {
        this.#settled = true;
        this.#failure = { error };
        this.#poke();
      },
    );
  }

  push(item: T): void {
    this.#items.push(item);
    this.#poke();
  }

  /** The oldest item not yet taken; undefined when none waits. */
  take(): T | undefined {
    return this.#items.shift();
  }

  /** The work has ended: once `take()` comes back empty, nothing more will come. */
  get settled(): boolean {
    return this.#settled;
  }

  /** Resolves at the next push or at the end of the work. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => (this.#wake = resolve));
  }

  /** The work's value, or its failure thrown (after `settled`). */
  result(): R {
    if (this.#failure) throw this.#failure.error;
    return this.#value as R;
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
