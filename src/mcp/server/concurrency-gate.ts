/**
 * The executor's concurrency rule across separate MCP requests: concurrency-safe calls run side by side; any other
 * call runs alone (it waits for the running ones, and calls that come after it wait for it). First come, first served,
 * so a stream of reads cannot starve a write.
 */
interface Waiter {
  readonly exclusive: boolean;
  readonly start: () => void;
}

export class ConcurrencyGate {
  private shared = 0;
  private exclusiveRunning = false;
  private readonly queue: Waiter[] = [];

  /** Resolves with a release function once the call may start, or `undefined` if `signal` aborts first. */
  enter(exclusive: boolean, signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        exclusive,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          if (exclusive) this.exclusiveRunning = true;
          else this.shared++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            if (exclusive) this.exclusiveRunning = false;
            else this.shared--;
            this.drain();
          });
        },
      };
      const onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i !== -1) this.queue.splice(i, 1);
        resolve(undefined);
        this.drain();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.drain();
    });
  }

  private drain(): void {
    while (this.queue.length > 0 && !this.exclusiveRunning) {
      const next = this.queue[0]!;
      if (next.exclusive ? this.shared > 0 : false) return;
      this.queue.shift();
      next.start();
      if (next.exclusive) return;
    }
  }
}
