import { describe, expect, it } from 'vitest';
import { admits, ConcurrencyGate } from './concurrency.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('ConcurrencyGate: the executor rule across requests', () => {
  it('safe calls share; an exclusive call waits for them and holds back later ones (first come, first served)', async () => {
    const gate = new ConcurrencyGate();
    const log: string[] = [];
    const r1 = await gate.enter(false);
    const r2 = await gate.enter(false);
    const w = gate.enter(true).then((r) => (log.push('write'), r));
    const r3p = gate.enter(false).then((r) => (log.push('read3'), r));
    await tick();
    expect(log).toEqual([]);
    r1!();
    await tick();
    expect(log).toEqual([]);
    r2!();
    await tick();
    expect(log).toEqual(['write']);
    (await w)!();
    await tick();
    expect(log).toEqual(['write', 'read3']);
    (await r3p)!();
  });
  it('an abort while waiting gives up the place; a release twice is harmless', async () => {
    const gate = new ConcurrencyGate();
    const held = await gate.enter(true);
    const abort = new AbortController();
    const waiting = gate.enter(false, abort.signal);
    abort.abort();
    expect(await waiting).toBeUndefined();
    held!();
    held!();
    const a = await gate.enter(true);
    expect(a).toBeTypeOf('function');
    a!();
  });
  it('keeps the executor ceiling: at most N safe calls at once, the next one waits for a release', async () => {
    const gate = new ConcurrencyGate(2);
    const a = await gate.enter(false);
    const b = await gate.enter(false);
    let third = false;
    const c = gate.enter(false).then((r) => ((third = true), r));
    await tick();
    expect(third).toBe(false);
    a!();
    await tick();
    expect(third).toBe(true);
    b!();
    (await c)!();
  });
});

describe('admits: the one rule', () => {
  it('admits anything when nothing runs, only safe calls beside safe calls, under the ceiling', () => {
    expect(admits(false, 0, 0, 10)).toBe(true);
    expect(admits(true, 3, 0, 10)).toBe(true);
    expect(admits(false, 1, 0, 10)).toBe(false);
    expect(admits(true, 1, 1, 10)).toBe(false);
    expect(admits(true, 10, 0, 10)).toBe(false);
  });
});
