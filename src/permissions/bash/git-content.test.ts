/**
 * Issue 21, "git prints files that the rules deny": the class is every git invocation that can print (or search) a
 * file's contents — verbose status, patches and content searches in log, show (a blob too), diff, grep in a revision
 * or the index, blame, archive and export, cat-file, stash, interactive hunk selection, aliases. With
 * `Read(./secret.txt)` denied, each asks (askRule: bypassPermissions does not pass it) or is denied, with no rule at
 * all, unless its pathspecs keep the denied file out. Each member is also run for real against a repository whose
 * history, index, stash and work tree hold the secret, to prove it does print it (and the benign ones do not).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { fakeBash as Bash } from '../test-helpers/tools.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-git-content-')));
const repo = join(root, 'repo');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_PAGER: 'cat' };
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
let blob = '';

beforeAll(() => {
  mkdirSync(join(repo, 'src'), { recursive: true });
  git('init', '-q');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  git('config', 'alias.lg', 'log -p');
  writeFileSync(join(repo, 'secret.txt'), 'SECRET-one\n');
  writeFileSync(join(repo, 'src', 'x.ts'), 'x\n');
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  writeFileSync(join(repo, 'secret.txt'), 'SECRET-stashed\n');
  git('stash', '-q');
  writeFileSync(join(repo, 'secret.txt'), 'SECRET-two\n');
  writeFileSync(join(repo, 'src', 'x.ts'), 'y\n');
  git('commit', '-q', '-am', 'two');
  blob = git('rev-parse', 'HEAD:secret.txt').trim();
  writeFileSync(join(repo, 'secret.txt'), 'SECRET-staged\n');
  git('add', 'secret.txt');
  writeFileSync(join(repo, 'secret.txt'), 'SECRET-unstaged\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Want = 'allow' | 'deny' | 'askRule' | 'ask';
async function outcome(command: string, mode: 'default' | 'bypassPermissions' = 'default'): Promise<Want> {
  const ctx = createPermissionContext({ cwd: repo, homeDir: root, mode, rules: parseRules(['Read(./secret.txt)'], 'deny', 'projectSettings') });
  const d = await resolvePermission(Bash, { command }, ctx);
  if (d.behavior !== 'ask') return d.behavior;
  return d.decisionReason?.layer === 'askRule' ? 'askRule' : 'ask';
}

/** What the command prints when run for real (stdin empty, as a headless tool call has). */
function printed(command: string): string {
  try {
    return execFileSync('bash', ['-c', command], { cwd: repo, env, encoding: 'utf8', input: '', stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? '');
  }
}

/** [command, decision, does it print the secret when run? (undefined: not run here)] */
type Case = readonly [command: string, want: Want, prints?: boolean];

function table(name: string, cases: readonly Case[]): void {
  describe(name, () => {
    it.each(cases.map((c) => [c[0], c] as const))('%s', async (_label, [command, want, prints]) => {
      const c = command.replace('BLOB', blob);
      if (prints !== undefined) expect(printed(c).includes('SECRET-'), `${c} prints the secret`).toBe(prints);
      expect(await outcome(c)).toBe(want);
      if (want === 'askRule' || want === 'deny') expect(await outcome(c, 'bypassPermissions')).toBe(want);
    });
  });
}

table('status, verbose (8 members)', [
  ['git status -v', 'askRule', true],
  ['git status -vv', 'askRule', true],
  ['git status --verbose', 'askRule', true],
  ['git status --verb', 'askRule', true],
  ['git status -bv', 'askRule', true],
  ['git -C . status -v', 'askRule', true],
  ['git --no-pager status -vv --untracked-files=no', 'askRule', true],
  // Pathspecs do not limit the staged diff status -v prints.
  ['git status -v -- src', 'askRule', true],
]);

table('log and reflog with patches or content searches (11 members)', [
  ['git log -p', 'askRule', true],
  ['git log --patch -1', 'askRule', true],
  ['git log -p --stat', 'askRule', true],
  ['git log -U1', 'askRule', true],
  ['git log --patch-with-stat', 'askRule', true],
  ['git log --cc -1 -p', 'askRule', true],
  ['git log -S SECRET-one --oneline', 'askRule'],
  ['git log -G SECRET --oneline', 'askRule'],
  ['git log -L1,1:secret.txt', 'askRule', true],
  ['git whatchanged -p', 'askRule', true],
  ['git reflog -p', 'askRule', true],
]);

table('show, a blob included (6 members)', [
  ['git show', 'askRule', true],
  ['git show HEAD~1', 'askRule', true],
  ['git show BLOB', 'askRule', true],
  ['git show --stat BLOB', 'askRule', true],
  ['git show --format=%H HEAD', 'askRule', true],
  ['git show HEAD:secret.txt', 'deny', true],
]);

table('diff (7 members)', [
  ['git diff', 'askRule', true],
  ['git diff --cached', 'askRule', true],
  ['git diff HEAD~1', 'askRule', true],
  ['git diff --textconv HEAD', 'askRule', true],
  ['git diff-index -p HEAD', 'askRule', true],
  ['git diff-files -p', 'askRule', true],
  ['git diff HEAD -- secret.txt', 'deny', true],
]);

table('grep in a revision, the index or the work tree (7 members)', [
  ['git grep SECRET HEAD', 'askRule', true],
  ['git grep -e SECRET HEAD', 'askRule', true],
  ['git grep -n -e SECRET HEAD~1', 'askRule', true],
  ['git grep -l -e SECRET HEAD', 'askRule'],
  ['git -C . grep -e SECRET HEAD', 'askRule', true],
  ['git grep --cached SECRET', 'askRule', true],
  ['git grep SECRET', 'askRule', true],
]);

table('blame, archives, exports and objects (8 members)', [
  ['git blame secret.txt', 'deny', true],
  ['git annotate -- secret.txt', 'deny', true],
  ['git archive HEAD', 'askRule', true],
  ['git format-patch --stdout -1', 'askRule', true],
  ['git fast-export HEAD', 'askRule', true],
  ['git cat-file -p BLOB', 'askRule', true],
  ['git cat-file blob BLOB', 'askRule', true],
  ['git cat-file --batch-all-objects --batch', 'askRule', true],
]);

table('stash, interactive hunks, aliases (8 members)', [
  ['git stash show -p', 'askRule', true],
  ['git stash show', 'askRule'],
  ['git stash list -p', 'askRule', true],
  ['git add -p', 'askRule', true],
  ['git reset -p', 'askRule', true],
  ['git commit --dry-run -v', 'askRule', true],
  ['git lg -1', 'askRule', true],
  ['git merge-tree HEAD~1 HEAD HEAD', 'askRule'],
]);

table('git behind wrappers and paths (5 members)', [
  ['env git log -p', 'askRule', true],
  ['timeout 5 git show', 'askRule', true],
  ['sudo git show', 'askRule'],
  ['bash -c "git status -v"', 'askRule', true],
  ['/usr/bin/git show HEAD~1', 'askRule', true],
]);

// A bare `./secret.txt` deny reaches `secret.txt` in any folder (the wider of its two documented readings), so a
// folder that may hold one is not "a path no deny covers".
table('a folder that may hold a denied file, under the wider reading of a bare deny', [
  ['git log -p -- src', 'askRule', false],
  ['git grep -e y HEAD -- src', 'askRule', false],
]);

table('benign: limited to paths no deny covers, or printing no contents', [
  ['git status', 'allow', false],
  ['git log --oneline', 'allow', false],
  ['git log -p -- src/x.ts', 'allow', false],
  ['git show --stat HEAD', 'allow', false],
  ['git diff --stat', 'allow', false],
  ['git grep -e y HEAD -- src/x.ts', 'allow', false],
  ['git blame src/x.ts', 'allow', false],
  ['git cat-file -t HEAD', 'allow', false],
  ['git branch -a', 'allow', false],
]);
