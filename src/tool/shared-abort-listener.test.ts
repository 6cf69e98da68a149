import { getEventListeners } from 'node:events';
import { expect, it } from 'vitest';
import { addSharedAbortListener, sharedAbortListenerCount } from './shared-abort-listener.js';

it('one real listener for any number of callbacks; removed with the last; each callback once', () => {
  const controller = new AbortController();
  const fired: number[] = [];
  const removers = Array.from({ length: 500 }, (_, i) => addSharedAbortListener(controller.signal, () => fired.push(i)));
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  expect(sharedAbortListenerCount(controller.signal)).toBe(500);
  for (const remove of removers.slice(0, 499)) remove();
  removers[0]!(); // idempotent
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  removers[499]!();
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  const again = addSharedAbortListener(controller.signal, () => fired.push(-1));
  const same = () => fired.push(-2);
  addSharedAbortListener(controller.signal, same);
  addSharedAbortListener(controller.signal, same);
  controller.abort();
  controller.abort();
  expect(fired).toEqual([-1, -2, -2]);
  again();
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  expect(addSharedAbortListener(controller.signal, () => fired.push(9))).toBeTypeOf('function');
  expect(fired).toEqual([-1, -2, -2]);
});

it('a callback that throws does not stop the others; its error is reported, not swallowed', async () => {
  const controller = new AbortController();
  const seen: unknown[] = [];
  const listeners = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  process.once('uncaughtException', (e) => seen.push(e));
  try {
    let ran = false;
    addSharedAbortListener(controller.signal, () => {
      throw new Error('listener failed');
    });
    addSharedAbortListener(controller.signal, () => (ran = true));
    controller.abort();
    expect(ran).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect((seen[0] as Error)?.message).toBe('listener failed');
  } finally {
    for (const l of listeners) process.on('uncaughtException', l);
  }
});
