/**
 * Recursively read-only view of a value. Permission contexts are typed with it so that no code path can change
 * rules in place: a change must build a new context (through a tool's `contextModifier`).
 */
export type DeepImmutable<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<DeepImmutable<K>, DeepImmutable<V>>
    : T extends ReadonlySet<infer V>
      ? ReadonlySet<DeepImmutable<V>>
      : T extends readonly (infer E)[]
        ? readonly DeepImmutable<E>[]
        : T extends object
          ? { readonly [K in keyof T]: DeepImmutable<T[K]> }
          : T;

/**
 * Freezes a value and everything reachable from it (plain objects, arrays; Maps and Sets are frozen as objects and
 * their mutators replaced so that `set`/`add`/`delete`/`clear` throw). Returns the same value, typed immutable.
 */
export function deepFreeze<T>(value: T): DeepImmutable<T> {
  freezeInto(value, new WeakSet());
  return value as DeepImmutable<T>;
}

function freezeInto(value: unknown, seen: WeakSet<object>): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (value instanceof Map) {
    for (const [k, v] of value) {
      freezeInto(k, seen);
      freezeInto(v, seen);
    }
    lockCollection(value, ['set', 'delete', 'clear']);
  } else if (value instanceof Set) {
    for (const v of value) freezeInto(v, seen);
    lockCollection(value, ['add', 'delete', 'clear']);
  } else {
    for (const key of Reflect.ownKeys(value)) freezeInto((value as Record<PropertyKey, unknown>)[key], seen);
  }
  Object.freeze(value);
}

function lockCollection(collection: object, mutators: readonly string[]): void {
  // Already frozen (a collection shared by an earlier frozen value, e.g. a context spread into a new one): locked.
  if (Object.isFrozen(collection)) return;
  for (const name of mutators) {
    Object.defineProperty(collection, name, {
      value: () => {
        throw new TypeError(`Cannot ${name} on a frozen ${collection.constructor.name}`);
      },
    });
  }
}
