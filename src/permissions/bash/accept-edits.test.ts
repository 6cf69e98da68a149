/**
 * The class: in acceptEdits mode the common filesystem commands (mkdir, touch, mv, cp) are accepted on paths inside
 * the working directories, as Claude Code documents; nothing outside them (as written, through a symlink, through a
 * flag that moves the target: `-t`, `--target-directory=`, an abbreviation of it), nothing on a protected path, no
 * option that makes the command write or read somewhere else. Through the real resolution chain and a real project.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../tool/permission-types.js';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { fakeBash as Bash } from '../test-helpers/tools.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-accept-edits-')));
const proj = join(root, 'proj');
const extra = join(root, 'extra');
const outside = join(root, 'outside');
for (const d of [join(proj, 'src'), join(proj, 'tree', 'deep'), join(proj, 'repo', '.git'), join(proj, 'existing', 'tree'), extra, outside]) mkdirSync(d, { recursive: true });
writeFileSync(join(proj, 'a.txt'), 'a');
writeFileSync(join(proj, 'tree', 'deep', 'f.txt'), 'f');
writeFileSync(join(proj, '.env'), 'SECRET=1');
writeFileSync(join(outside, 'o.txt'), 'o');
symlinkSync(outside, join(proj, 'out-link'));
symlinkSync(join(outside, 'o.txt'), join(proj, 'o-link.txt'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const decide = async (command: string, mode: PermissionMode = 'acceptEdits', deny: string[] = []) =>
  resolvePermission(
    Bash,
    { command },
    createPermissionContext({ cwd: proj, homeDir: join(root, 'home'), mode, additionalDirectories: [extra], rules: parseRules(deny, 'deny', 'projectSettings') }),
  );

describe('acceptEdits: filesystem commands inside the working directories', () => {
  const accepted = [
    'touch made.txt',
    'touch -c a.txt src/b.txt',
    "touch -d '2024-01-01 00:00' a.txt",
    'touch -t 202401010000 a.txt',
    'mkdir build',
    'mkdir -p build/x/y src/z',
    'mkdir -m 755 -v build2',
    'mkdir --mode=700 --parents build3/a',
    `mkdir ${extra}/new`,
    'mv a.txt b.txt',
    'mv -f a.txt src/',
    'mv -t src a.txt',
    'mv --target-directory=src a.txt',
    'mv --target=src a.txt',
    'mv -- a.txt c.txt',
    'cp a.txt b.txt',
    'cp -p a.txt src/',
    'cp -r tree tree-copy',
    'cp -a tree tree2',
    `cp a.txt ${extra}/`,
    'mkdir -p out && cp a.txt out/ && touch out/.keep',
  ];
  for (const command of accepted) {
    it(`accepts: ${command}`, async () => {
      const d = await decide(command);
      expect(d.behavior, d.decisionReason?.reason).toBe('allow');
      expect(d.decisionReason?.layer).toBe('mode');
      expect(d.decisionReason?.reason).toContain('acceptEdits mode accepts');
    });
  }

  it('only in acceptEdits mode: the same commands ask in default mode', async () => {
    for (const command of ['touch made.txt', 'mkdir build', 'mv a.txt b.txt', 'cp a.txt b.txt']) {
      expect((await decide(command, 'default')).behavior, command).toBe('ask');
    }
    expect((await decide('touch made.txt', 'plan')).behavior).toBe('deny');
  });

  const refused: [string, string][] = [
    // outside the working directories, however it is reached
    ['touch ../escape.txt', 'outside'],
    [`touch ${outside}/x`, 'outside'],
    ['touch ~/x', 'outside'],
    ['touch out-link/x', 'outside'],
    ['touch o-link.txt', 'outside'],
    ['mkdir -p out-link/sub', 'outside'],
    [`mv a.txt ${outside}/`, 'outside'],
    [`mv -t ${outside} a.txt`, 'outside'],
    [`mv --target-directory=${outside} a.txt`, 'outside'],
    [`mv --target-dir ${outside} a.txt`, 'outside'],
    [`mv --targ=${outside} a.txt`, 'outside'],
    [`cp -t ${outside} a.txt`, 'outside'],
    [`cp a.txt ${outside}/copy.txt`, 'outside'],
    [`cp ${outside}/o.txt mine.txt`, 'reads'],
    ['cp o-link.txt mine.txt', 'reads'],
    [`mv ${outside}/o.txt mine.txt`, 'outside'],
    // protected paths, written directly or brought in inside a tree
    ['touch .bashrc', 'protected'],
    ['mkdir .claude', 'protected'],
    ['mkdir -p .git/hooks', 'protected'],
    ['touch .git/config', 'protected'],
    ['cp a.txt .mcp.json', 'protected'],
    ['mv a.txt .gitmodules', 'protected'],
    ['mv .git gone', 'protected'],
    ['cp -r repo repo-copy', 'protected'],
    ['mv repo moved-repo', 'protected'],
    // options that write elsewhere, link, make up names or follow links
    ['cp -l a.txt hard.txt', 'not accepted'],
    ['cp --link a.txt hard.txt', 'not accepted'],
    ['cp -s a.txt soft.txt', 'not accepted'],
    ['cp --parents tree/deep/f.txt src', 'not accepted'],
    ['cp -rL tree t3', 'not accepted'],
    ['mv -b a.txt b.txt', 'not accepted'],
    ['mv --backup=numbered a.txt b.txt', 'not accepted'],
    ['mv -S .bak a.txt b.txt', 'not accepted'],
    ['mv --suff=x a.txt b.txt', 'not accepted'],
    ['touch -r /etc/passwd a.txt', 'not accepted'],
    ['mkdir -Z d', 'not accepted'],
    ['mv --no a.txt b.txt', 'unambiguously'],
    ['mv --bogus a.txt b.txt', 'unambiguously'],
    ['cp -t src -T a.txt b', '-t and -T'],
    ['cp -r tree existing', 'already exists as a folder'],
    // words that are not fixed paths
    ['touch *.txt', 'literal'],
    ['touch "$X"', 'literal'],
    ['touch {a,b}.txt', 'literal'],
    ['X=1 touch a.txt', 'variables'],
    ['mv a.txt', 'source and a destination'],
    ['touch', 'no operand'],
  ];
  for (const [command, why] of refused) {
    it(`asks: ${command} (${why})`, async () => {
      const d = await decide(command);
      expect(d.behavior, d.decisionReason?.reason).toBe('ask');
    });
  }

  it('says why it did not accept', async () => {
    expect((await decide(`mv --targ=${outside} a.txt`)).decisionReason?.reason).toContain(`it writes ${outside}/a.txt, outside the working directories`);
    expect((await decide('cp -l a.txt h')).decisionReason?.reason).toContain('-l is not accepted');
    expect((await decide('touch .bashrc')).decisionReason?.reason).toContain('protected path');
  });

  it('deny rules still win: cp of a Read-denied file is denied, whatever the mode', async () => {
    const d = await decide('cp .env copy.env', 'acceptEdits', ['Read(./.env)']);
    expect(d.behavior).toBe('deny');
    const w = await decide('touch made.txt', 'acceptEdits', ['Bash(touch:*)']);
    expect(w.behavior).toBe('deny');
  });
});
