/**
 * A queue that several producers push into and one async generator drains: the model stream and the tool run both
 * produce events while a turn is in flight, and the caller sees them in the order they happened.
 */
export class EventChannel<T> {
  readonly #items: T[] = [];
  #wake: (() => void) | undefined;

  push(item: T): void {
    this.#items.push(item);
    this.#wake?.();
    this.#wake = undefined;
  }

  /** Yields what is queued, then waits for more until `done` settles; then yields the rest and returns. */
  async *drainUntil<R>(done: Promise<R>): AsyncGenerator<T, R> {
    let settled = false;
    let value: R | undefined;
    let failure: { error: unknown } | undefined;
    done.then(
      (v) => {
        settled = true;
        value = v;
        this.#wake?.();
      },
      (error: unknown) => {
        settled = true;
        failure = { error };
        this.#wake?.();
      },
    );
    for (;;) {
      while (this.#items.length > 0) yield this.#items.shift()!;
      if (settled) break;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
    while (this.#items.length > 0) yield this.#items.shift()!;
    if (failure) throw failure.error;
    return value as R;
  }
}
