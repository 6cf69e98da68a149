import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { guardSignals } from './signals.js';

function fakeProcess() {
  const emitter = new EventEmitter();
  return { target: emitter as unknown as Pick<NodeJS.Process, 'on' | 'removeListener'>, emit: (s: string) => emitter.emit(s), emitter };
}

describe('guardSignals', () => {
  it('the first signal aborts with its name and sets 128 + n; a second one exits at once', () => {
    const p = fakeProcess();
    const exits: number[] = [];
    const controller = new AbortController();
    const guard = guardSignals(controller, { target: p.target, exit: (code) => exits.push(code) });
    expect(guard.exitCode).toBeUndefined();
    p.emit('SIGHUP');
    expect(controller.signal.reason).toBe('SIGHUP');
    expect(guard.exitCode).toBe(129);
    expect(exits).toEqual([]);
    p.emit('SIGINT');
    expect(exits).toEqual([130]);
    guard.dispose();
    expect(p.emitter.listenerCount('SIGTERM')).toBe(0);
  });
});
