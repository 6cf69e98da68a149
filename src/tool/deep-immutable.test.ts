import { describe, expect, it } from 'vitest';
import { deepFreeze } from './deep-immutable.js';
import { getEmptyToolPermissionContext } from './permission-types.js';

describe('deepFreeze', () => {
  it('freezes nested objects, arrays, maps and sets', () => {
    const ctx = deepFreeze({
      ...getEmptyToolPermissionContext('/w'),
      alwaysDenyRules: [{ source: 'userSettings' as const, ruleBehavior: 'deny' as const, ruleValue: { toolName: 'Bash' } }],
      additionalWorkingDirectories: new Map([['/x', { path: '/x', source: 'session' as const }]]),
    });
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(() => {
      (ctx as { mode: string }).mode = 'bypassPermissions';
    }).toThrow(TypeError);
    expect(() => (ctx.alwaysDenyRules as unknown as unknown[]).push({})).toThrow(TypeError);
    expect(() => {
      (ctx.alwaysDenyRules[0]!.ruleValue as { toolName: string }).toolName = 'Read';
    }).toThrow(TypeError);
    expect(() => (ctx.additionalWorkingDirectories as Map<string, unknown>).set('/y', {})).toThrow(/frozen Map/);
    expect(() => (deepFreeze(new Set([1])) as Set<number>).add(2)).toThrow(/frozen Set/);
  });
  it('copes with cycles', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(Object.isFrozen(deepFreeze(a))).toBe(true);
  });
});
