/**
 * The bounded caches a hook's or check's decision may never ask are made at their first use, not as their modules load
 * (docs/architecture.md, Start-up): each LRU cache of 4,096 slots costs a start ~0.7 ms to make. Counted with
 * lru-cache's class replaced by one that counts its instances; the caches themselves answer as before (the
 * permission and check tests hold that).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';

const made = vi.hoisted(() => ({ sizes: [] as number[] }));
vi.mock('lru-cache', async (importOriginal) => {
  const real = await importOriginal<typeof import('lru-cache')>();
  class CountingLRUCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>> extends real.LRUCache<K, V> {
    constructor(options: ConstructorParameters<typeof real.LRUCache<K, V>>[0]) {
      super(options);
      made.sizes.push(this.max);
    }
  }
  return { ...real, LRUCache: CountingLRUCache };
});

const { createPermissionContext, parseRules } = await import('../src/permissions/permission-context.js');
const { checkPathPermission } = await import('../src/permissions/paths.js');
const { RequestRules } = await import('../src/cli/commands/check-request-rules.js');

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-lazy-caches-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('makes no 4,096-slot cache as the modules load, and each one at its first use', () => {
  expect(made.sizes.filter((max) => max === 4096)).toEqual([]);

  const rules = new RequestRules();
  expect(made.sizes.filter((max) => max === 4096)).toEqual([]);
  const parsed = rules.parse([{ source: 'session', behavior: 'allow', rule: 'Bash(git status)' }]);
  expect(parsed.map((r) => r.ruleValue.toolName)).toEqual(['Bash']);
  expect(made.sizes.filter((max) => max === 4096)).toHaveLength(1);
  rules.parse([{ source: 'session', behavior: 'allow', rule: 'Bash(git log)' }]);
  expect(made.sizes.filter((max) => max === 4096)).toHaveLength(1);

  // A path rule compiled: its variants and its matcher are kept, each in a cache made now.
  const ctx = createPermissionContext({ cwd: tmp, homeDir: tmp, rules: parseRules(['Read(./secret/**)'], 'deny', 'projectSettings', { sourceFile: path.join(tmp, '.claude', 'settings.json') }) });
  expect(checkPathPermission(path.join(tmp, 'secret', 'key.txt'), 'read', ctx).behavior).toBe('deny');
  expect(made.sizes.filter((max) => max === 4096)).toHaveLength(3);
  expect(checkPathPermission(path.join(tmp, 'notes.txt'), 'read', ctx).behavior).not.toBe('deny');
  expect(made.sizes.filter((max) => max === 4096)).toHaveLength(3);
});
