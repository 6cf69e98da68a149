/**
 * Which `sed -i` commands the engine can simulate (a strict subset: substitutions with plain flags on one named file),
 * and acceptEdits counting such a one as an edit of a file inside the working directories — through the real
 * resolution chain and a real project. Everything outside the subset is not simulated and asks as before.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../tool/permission-types.js';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { fakeBash as Bash } from '../test-helpers/tools.js';
import { loadBashParser } from './parser.js';
import { sedScriptProblem, simulableSedEdit } from './sed-edit.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-sed-edit-')));
const proj = join(root, 'proj');
const outside = join(root, 'outside');
beforeAll(async () => {
  await loadBashParser();
  for (const d of [join(proj, 'src'), join(proj, '.git'), outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(proj, '.git', 'config'), '[core]\n');
  writeFileSync(join(proj, 'a.txt'), 'a\n');
  writeFileSync(join(proj, 'src', 'b.ts'), 'b\n');
  writeFileSync(join(outside, 'o.txt'), 'o\n');
  symlinkSync(join(outside, 'o.txt'), join(proj, 'o-link.txt'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const decide = async (command: string, mode: PermissionMode = 'acceptEdits', deny: string[] = []) =>
  resolvePermission(Bash, { command }, createPermissionContext({ cwd: proj, homeDir: join(root, 'home'), mode, rules: parseRules(deny, 'deny', 'projectSettings') }));

describe('the simulable subset of sed -i', () => {
  const simulable: [string, { file: string; scripts: string[]; extended: boolean }][] = [
    ["sed -i 's/a/b/' a.txt", { file: 'a.txt', scripts: ['s/a/b/'], extended: false }],
    ["sed -i 's/a/b/g' a.txt", { file: 'a.txt', scripts: ['s/a/b/g'], extended: false }],
    ["sed -i -E 's/(a+)/[\\1]/2g' src/b.ts", { file: 'src/b.ts', scripts: ['s/(a+)/[\\1]/2g'], extended: true }],
    ["sed -Ei 's#a/b#c#I' a.txt", { file: 'a.txt', scripts: ['s#a/b#c#I'], extended: true }],
    ["sed --in-place -e 's/a/b/' -e 's/c/d/g' a.txt", { file: 'a.txt', scripts: ['s/a/b/', 's/c/d/g'], extended: false }],
    ["sed -i 's/a\\/b/c/' -- a.txt", { file: 'a.txt', scripts: ['s/a\\/b/c/'], extended: false }],
  ];
  for (const [command, want] of simulable) {
    it(`simulates: ${command}`, () => expect(simulableSedEdit(command)).toEqual(want));
  }

  const refused = [
    "sed -i 's/a/b/e' a.txt", // e: runs the pattern space as a command
    "sed -i 's/a/b/w /tmp/x' a.txt", // w: writes another file
    "sed -i 's/a/b/p' a.txt",
    "sed -i 's/a/b/M' a.txt",
    "sed -i 'e touch /tmp/x' a.txt",
    "sed -i '1e id' a.txt",
    "sed -i 'w /tmp/x' a.txt",
    "sed -i 'r /etc/passwd' a.txt",
    "sed -i '1s/a/b/' a.txt", // an address
    "sed -i 's/a/b/' a.txt /etc/passwd", // two files
    "sed -i 's/a/b/' a.txt ../outside/o.txt",
    "sed -i.bak 's/a/b/' a.txt", // a backup suffix: another file written
    "sed -ie 's/a/b/' a.txt", // -i with the suffix "e"
    "sed -i -f script.sed a.txt",
    "sed -i -n 's/a/b/p' a.txt",
    "sed -i -s 's/a/b/' a.txt",
    "sed -i --follow-symlinks 's/a/b/' a.txt",
    "sed -i -z 's/a/b/' a.txt",
    "sed -i 's/a/b/' *.txt", // a glob
    'sed -i "s/a/$X/" a.txt', // an expansion
    "sed -i 's/a/b/' a.txt > out.txt", // a redirect
    "X=1 sed -i 's/a/b/' a.txt",
    "sed -i 's/a/b/' a.txt && rm a.txt", // not one command
    "sed -i 's|a|b|' a.txt", // `|` is alternation in a regex: not a delimiter of the subset
    "sed -i 's/a/b\n/' a.txt",
    "sed 's/a/b/' a.txt", // not in place: nothing to simulate
  ];
  for (const command of refused) {
    it(`does not simulate: ${command}`, () => expect(simulableSedEdit(command)).toBeUndefined());
  }

  it('reads scripts as GNU sed delimits them', () => {
    expect(sedScriptProblem('s/a/b/;s/c/d/g')).toBeUndefined();
    expect(sedScriptProblem('s/a\\/e/b/')).toBeUndefined();
    expect(sedScriptProblem('s/a/b/ w x')).toBeDefined();
    expect(sedScriptProblem('s/a/b/1e')).toBeDefined();
    expect(sedScriptProblem('s/a/b/;e id')).toBeDefined();
    expect(sedScriptProblem('s/a/b')).toBeDefined();
    expect(sedScriptProblem('')).toBeDefined();
  });
});

describe('acceptEdits: a simulable sed -i is an edit', () => {
  it('accepts one of a file inside the project', async () => {
    for (const command of ["sed -i 's/a/b/g' a.txt", "sed -i -E 's/(b)/\\1\\1/' src/b.ts"]) {
      const d = await decide(command);
      expect(d.behavior, d.decisionReason?.reason).toBe('allow');
      expect(d.decisionReason?.reason).toContain('sed -i edit');
    }
  });

  it('asks in default mode, as any write', async () => {
    expect((await decide("sed -i 's/a/b/' a.txt", 'default')).behavior).toBe('ask');
  });

  const asked: [string, string[]][] = [
    [`sed -i 's/o/x/' ${outside}/o.txt`, []],
    ["sed -i 's/o/x/' o-link.txt", []], // a link to a file outside
    ["sed -i 's/a/b/e' a.txt", []],
    ["sed -i 's/a/b/' a.txt ../outside/o.txt", []],
    ["sed -i 's/core/x/' .git/config", []], // a protected path
    ["sed -i 's/a/b/' a.txt", ['Edit(a.txt)']],
    ["sed -i 's/a/b/' missing.txt", []],
  ];
  for (const [command, deny] of asked) {
    it(`does not accept: ${command}${deny.length ? ` (deny ${deny.join(', ')})` : ''}`, async () => {
      expect((await decide(command, 'acceptEdits', deny)).behavior).not.toBe('allow');
    });
  }
});
