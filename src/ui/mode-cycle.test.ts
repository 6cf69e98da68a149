/** Shift+Tab's cycle: auto mode is offered last, and only when a classifier is configured and no setting forbids it. */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Session, type SessionOptions } from '../session/index.js';
import { TerminalSession, modeCycle } from './session.js';
import { SessionStore } from './session-store.js';
import { fakeLoop } from './test-helpers/fake-loop.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function cycle(options: SessionOptions): Promise<string[]> {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-cycle-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const core = new Session({ cwd: dir, env: { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: 'sk-test' }, settingSources: [], classifier: false, ...options, loop: fakeLoop([]) });
  await core.start();
  cleanups.push(() => core.close());
  const store = new SessionStore('default', 'test-model');
  const session = new TerminalSession({ session: core, store });
  return Array.from({ length: 5 }, () => session.cycleMode());
}

it('walks default, acceptEdits, plan, then bypass and auto when available (Claude Code order)', () => {
  expect(modeCycle(false)).toEqual(['default', 'acceptEdits', 'plan']);
  expect(modeCycle(true, true)).toEqual(['default', 'acceptEdits', 'plan', 'bypassPermissions', 'auto']);
});

it('offers auto when the runtime has a classifier, not when a setting disables auto mode or there is none', async () => {
  const classifier = async () => 'ask' as const;
  const withAuto = await cycle({ classifier });
  expect(withAuto).toContain('auto');
  expect(withAuto[withAuto.indexOf('auto') + 1]).toBe('default');
  expect(await cycle({ classifier, settings: { permissions: { disableAutoMode: 'disable' } } })).not.toContain('auto');
  expect(await cycle({})).not.toContain('auto');
});
