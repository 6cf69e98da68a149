/**
 * docs/security.md §12: a program's mid-session settings calls cannot widen what a session may do past its files and
 * the managed policy, nor write a key that would widen later sessions.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPermissionContext } from '../../src/permissions/permission-context.js';
import { checkFlagSettings, readManagedPolicy, updateSettingsFile } from '../../src/session/live-settings.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const open = { managedRulesOnly: false, bypassDisabled: false, autoDisabled: false };

describe('settings changed while a session runs (security.md §12)', () => {
  it('updateSettings cannot write permissions or hooks into a settings file', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'live-attack-'));
    const where = { projectDir: dir, homeDir: dir, sources: ['user', 'local', 'managed'] as const };
    expect(() => updateSettingsFile('localSettings', { permissions: { allow: ['Bash'] } }, where)).toThrow(/takes only "outputStyle"/);
    expect(() => updateSettingsFile('userSettings', { hooks: { PreToolUse: [] } }, where)).toThrow(/takes only "effortLevel"/);
    expect(() => updateSettingsFile('localSettings', { outputStyle: 'x', permissions: { allow: ['Bash'] } }, where)).toThrow(/not "permissions"/);
    expect(existsSync(path.join(dir, '.claude', 'settings.local.json'))).toBe(false);
    expect(existsSync(path.join(dir, '.claude', 'settings.json'))).toBe(false);
  });

  it('applyFlagSettings: hooks, sandbox or env are refused whole; the managed switches and a missing bypass opt-in hold', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'live-attack-'));
    const ctx = createPermissionContext({ cwd: dir, mode: 'default' });
    for (const key of ['hooks', 'sandbox', 'env', 'allowManagedPermissionRulesOnly']) {
      expect(() => checkFlagSettings({ permissions: { allow: ['Bash'] }, [key]: {} }, ctx, open)).toThrow(/Nothing was applied/);
    }
    expect(() => checkFlagSettings({ permissions: { defaultMode: 'bypassPermissions' } }, ctx, open)).toThrow(/not available/);
    expect(() => checkFlagSettings({ permissions: { defaultMode: 'auto' } }, ctx, open)).toThrow(/not available/);
    const managed = path.join(dir, 'managed.json');
    writeFileSync(managed, JSON.stringify({ permissions: { disableBypassPermissionsMode: 'disable' }, allowManagedPermissionRulesOnly: true }));
    const bypassable = createPermissionContext({ cwd: dir, mode: 'default', isBypassPermissionsModeAvailable: true });
    expect(() => checkFlagSettings({ permissions: { defaultMode: 'bypassPermissions' } }, bypassable, readManagedPolicy(managed))).toThrow(/disabled by managed settings/);
    expect(() => checkFlagSettings({ permissions: { allow: ['Bash(*)'] } }, bypassable, readManagedPolicy(managed))).toThrow(/allowManagedPermissionRulesOnly/);
  });
});
