/**
 * A promise resolver that delivers at most once, for the race between a person's answer and an abort. `claim()` takes
 * the right to decide before doing anything with side effects (persisting a rule, aborting); whoever claims first
 * wins, the other sees `false` and backs off.
 */
export interface ResolveOnce<T> {
  resolve(value: T): void;
  /** True once anyone has claimed or resolved. */
  isResolved(): boolean;
  /** Takes the exclusive right to resolve; false when someone already has it. */
  claim(): boolean;
}

export function createResolveOnce<T>(resolve: (value: T) => void): ResolveOnce<T> {
  let claimed = false;
  let delivered = false;
  return {
    resolve(value: T) {
      if (delivered) return;
      delivered = true;
      claimed = true;
      resolve(value);
    },
    isResolved() {
      return claimed;
    },
    claim() {
      if (claimed) return false;
      claimed = true;
      return true;
    },
  };
}
