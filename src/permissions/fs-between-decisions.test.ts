/**
 * One permission context decides many calls (a session, `mcp serve`, a batch), and the filesystem changes between
 * them — often through programs the engine never saw. What the rules say may be cached for the context's lifetime;
 * what the filesystem says may not: each decision below follows a change made after the context's first decisions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../tool/permission-types.js';
import { createPermissionContext, parseRules } from './permission-context.js';
import { resolvePermission } from './resolve.js';
import { fakeBash as Bash, fakeRead as Read } from './test-helpers/tools.js';

let root: string;
let proj: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-fs-between-')));
  proj = path.join(root, 'proj');
  fs.mkdirSync(path.join(proj, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(proj, 'README'), 'readme');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function context(mode: PermissionMode, cwd = proj) {
  return createPermissionContext({
    cwd,
    homeDir: root,
    mode,
    rules: parseRules(['Read(./.env)'], 'deny', 'projectSettings', { sourceFile: path.join(proj, '.claude/settings.json') }),
  });
}

describe('decisions of one context follow the filesystem', () => {
  it('a denied file created and hard-linked after the first decisions: its other name is denied to Read and to cat', async () => {
    const ctx = context('bypassPermissions');
    // The first decisions of the context, before the secret exists.
    expect((await resolvePermission(Bash, { command: 'cat README' }, ctx)).behavior).toBe('allow');
    expect((await resolvePermission(Read, { file_path: path.join(proj, 'README') }, ctx)).behavior).toBe('allow');
    fs.writeFileSync(path.join(proj, '.env'), 'SECRET=1');
    fs.linkSync(path.join(proj, '.env'), path.join(proj, 'sub', 'x'));
    const read = await resolvePermission(Read, { file_path: path.join(proj, 'sub', 'x') }, ctx);
    expect(read.behavior).toBe('deny');
    expect(read.decisionReason?.reason).toMatch(/hard link to .*\.env/);
    expect((await resolvePermission(Bash, { command: 'cat sub/x' }, ctx)).behavior).toBe('deny');
  });

  it('a denied file replaced by a new one (a new inode) and then hard-linked: still denied under the other name', async () => {
    fs.writeFileSync(path.join(proj, '.env'), 'OLD=1');
    const ctx = context('bypassPermissions');
    expect((await resolvePermission(Read, { file_path: path.join(proj, 'README') }, ctx)).behavior).toBe('allow');
    // An editor's save: a new file renamed over the old one.
    fs.writeFileSync(path.join(proj, '.env.tmp'), 'NEW=1');
    fs.renameSync(path.join(proj, '.env.tmp'), path.join(proj, '.env'));
    fs.linkSync(path.join(proj, '.env'), path.join(proj, 'sub', 'y'));
    expect((await resolvePermission(Read, { file_path: path.join(proj, 'sub', 'y') }, ctx)).behavior).toBe('deny');
    expect((await resolvePermission(Bash, { command: 'cat sub/y' }, ctx)).behavior).toBe('deny');
  });

  it('the working directory is a symlink retargeted between decisions: its old target is no longer inside', async () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    fs.mkdirSync(a);
    fs.mkdirSync(b);
    fs.writeFileSync(path.join(a, 'f.txt'), 'a');
    const link = path.join(root, 'work');
    fs.symlinkSync(a, link);
    const ctx = context('default', link);
    expect((await resolvePermission(Read, { file_path: path.join(a, 'f.txt') }, ctx)).behavior).toBe('allow');
    fs.unlinkSync(link);
    fs.symlinkSync(b, link);
    const after = await resolvePermission(Read, { file_path: path.join(a, 'f.txt') }, ctx);
    expect(after.behavior).toBe('ask');
    expect(after.decisionReason?.reason).toMatch(/outside the working directories/);
  });
});
