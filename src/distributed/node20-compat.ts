/**
 * The Restate SDK (1.17) calls `Promise.withResolvers`, which Node has only from 22; toolgate supports Node 20.19.
 * Importing this module installs a standard-conforming fallback when the runtime lacks it (and changes nothing
 * otherwise). The SDK calls it only while handling invocations, so import order does not matter.
 */
interface WithResolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const P = Promise as unknown as { withResolvers?: <T>() => WithResolvers<T> };
if (typeof P.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor): WithResolvers<T> {
      let resolve!: WithResolvers<T>['resolve'];
      let reject!: WithResolvers<T>['reject'];
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
