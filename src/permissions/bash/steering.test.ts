/**
 * Issue 21's "sed scripts outside a known-safe subset" and "find globs" classes: a sed or awk program that writes,
 * runs or reads other files is never approved by a prefix or wildcard allow rule (`Bash(sed *)`), and a `find` whose
 * globs the file names can turn into actions is a safety check that neither allow rules nor bypassPermissions pass.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { check } from './test-helpers/decision-harness.js';
import { fakeBash as Shell } from '../test-helpers/tools.js';

const SED = { allow: ['sed *', 'sed -n *', 'sed -i *'] };
const AWK = { allow: ['awk *'] };
const FIND = { allow: ['find *'] };

describe('sed and awk programs outside the safe subset: no prefix rule approves them', () => {
  it.each([
    "sed 'w out' a.txt",
    "sed -n 'W out' a.txt",
    "sed 's/x/y/w out' a.txt",
    "sed 's/x/y/e' a.txt",
    "sed '1e id' a.txt",
    "sed e a.txt",
    "sed 'r /etc/passwd' a.txt",
    "sed 'R /etc/passwd' a.txt",
    "sed -e p -e 'w x' a.txt",
    "sed --expression='w x' a.txt",
    "sed --e='w x' a.txt",
    'sed -f prog.sed a.txt',
    'sed --file=prog.sed a.txt',
    'sed "$S" a.txt',
    'sed -n p $F',
    "sed 's/x/y' a.txt",
    "sed -i.bak 's/x/y/w log' a.txt",
    'timeout 5 sed "1e id" a.txt',
  ])('%j', (command) => {
    const r = check(command, SED);
    expect(r.behavior).not.toBe('allow');
    expect(r.decisionReason?.reason).toMatch(/never approves/);
  });

  it.each([
    "awk 'BEGIN{system(\"id\")}'",
    "awk '{print > \"out\"}' a.txt",
    "awk '{print | \"sh\"}' a.txt",
    "awk '{\"id\" | getline x}' a.txt",
    'awk -f prog.awk a.txt',
    'gawk -e \'BEGIN{system("id")}\'',
  ])('%j', (command) => {
    expect(check(command, AWK).behavior).not.toBe('allow');
  });

  it.each([
    ["sed -n 1p a.txt", SED],
    ["sed 's/a/b/g' a.txt", SED],
    ["sed -n '/x/,/y/p' a.txt", SED],
    ["sed -E 's/(a)/\\1/' a.txt", SED],
    ["sed -i 's/a/b/' a.txt", SED],
    ["awk '{print $1}' a.txt", AWK],
    ["awk -F: -v n=1 '{print $n}' a.txt", AWK],
  ] as const)('%j stays allowed', (command, rules) => {
    expect(check(command, rules).behavior).toBe('allow');
  });
});

const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tg-steering-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The attack needs only a file: here `find *` would be `find -delete a.txt`.
writeFileSync(path.join(dir, '-delete'), '');
writeFileSync(path.join(dir, 'a.txt'), '');

async function decide(command: string, mode: 'default' | 'bypassPermissions', allow: string[] = [], deny: string[] = []) {
  const rules = [...parseRules(allow, 'allow', 'projectSettings'), ...parseRules(deny, 'deny', 'projectSettings')];
  const ctx = createPermissionContext({ cwd: dir, mode, rules });
  const d = await resolvePermission(Shell, { command }, ctx);
  return { behavior: d.behavior, layer: d.decisionReason?.layer };
}

describe('find with globs the file names turn into actions: a safety check, bypass included', () => {
  it.each(['find * -name x', 'find . -name *.txt', 'find -- * -name x', 'find ?x', 'find . -newer *', 'find . -name a -o -name *'])('%j', async (command) => {
    for (const mode of ['default', 'bypassPermissions'] as const) {
      expect(await decide(command, mode, ['Bash(find *)']), mode).toEqual({ behavior: 'ask', layer: 'safetyCheck' });
    }
  });

  it.each(['find src/* -name x', "find . -name '*.txt'", 'find . -name \\*.txt', 'find ./* -type f'])('%j is not steered by file names', async (command) => {
    expect(check(command, FIND).behavior).toBe('allow');
  });

  it('find actions ask as writes do: no prefix rule approves them, bypassPermissions does (it allows writes)', async () => {
    expect(check('find . -delete', FIND).behavior).not.toBe('allow');
    expect(check('find . -exec rm {} +', FIND).behavior).not.toBe('allow');
    expect(await decide('find . -delete', 'bypassPermissions')).toEqual({ behavior: 'allow', layer: 'mode' });
  });

  it('other safety checks no automatic approval may pass hold in bypassPermissions too (a critical-path rm)', async () => {
    expect(await decide('rm -rf /', 'bypassPermissions')).toEqual({ behavior: 'ask', layer: 'safetyCheck' });
    expect(await decide('rm -rf build', 'bypassPermissions')).toEqual({ behavior: 'allow', layer: 'mode' });
  });

  it('a command the engine cannot see into may write what an Edit deny rule protects: asked by that rule, bypass included', async () => {
    for (const command of ['eval "echo x > secret.txt"', 'bash -c "$X"', 'ls ;; pwd', '$CMD x']) {
      expect(await decide(command, 'bypassPermissions', [], ['Edit(./secret.txt)']), command).toEqual({ behavior: 'ask', layer: 'askRule' });
    }
    expect(await decide('echo hi', 'bypassPermissions', [], ['Edit(./secret.txt)'])).toEqual({ behavior: 'allow', layer: 'mode' });
  });
});
