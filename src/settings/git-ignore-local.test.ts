/**
 * A grant written to a local settings file in a git repository is kept out of commits (real git, real files): the
 * path goes to the repository's .git/info/exclude, once; nothing is written when git already ignores the file, for
 * the committed project settings, or outside a repository.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { writeGrants } from './grants.js';

let tmp: string;
let repo: string;

// The machine's own git configuration (a global ignore file that already names settings.local.json) must not decide.
process.env.GIT_CONFIG_GLOBAL = '/dev/null';
process.env.GIT_CONFIG_NOSYSTEM = '1';

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-gitignore-')));
  repo = path.join(tmp, 'repo');
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  process.env.XDG_CONFIG_HOME = path.join(tmp, 'xdg');
  process.env.HOME = path.join(tmp, 'home');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
const untracked = () => git('status', '--porcelain', '--untracked-files=all').split('\n').filter((l) => l !== '');
const exclude = () => fs.readFileSync(path.join(repo, '.git', 'info', 'exclude'), 'utf8');
const grant = (destination: 'localSettings' | 'projectSettings', expiresAt?: string) =>
  writeGrants({ projectDir: repo, homeDir: path.join(tmp, 'home'), destination, rules: ['Bash(npm test)'], ...(expiresAt ? { expiresAt } : {}) });

it('a local grant in a repository is git-ignored through .git/info/exclude, once', () => {
  git('init', '-q');
  const first = grant('localSettings');
  expect(first.gitIgnoredIn).toBe(path.join(repo, '.git', 'info', 'exclude'));
  expect(exclude()).toContain('\n/.claude/settings.local.json\n');
  expect(untracked()).toEqual([]);
  expect(git('check-ignore', '.claude/settings.local.json').trim()).toBe('.claude/settings.local.json');
  // The next grant finds it ignored: nothing more is written.
  expect(grant('localSettings').gitIgnoredIn).toBeUndefined();
  expect(exclude().match(/settings\.local\.json/g)).toHaveLength(1);
  // An expiring grant goes to toolgate's twin local file: ignored too.
  expect(grant('localSettings', '2999-01-01T00:00:00Z').gitIgnoredIn).toBeDefined();
  expect(untracked()).toEqual([]);
});

it('the committed project settings stay visible to git; a file git already ignores is left alone', () => {
  git('init', '-q');
  fs.writeFileSync(path.join(repo, '.gitignore'), '.claude/settings.local.json\n');
  const before = fs.existsSync(path.join(repo, '.git', 'info', 'exclude')) ? exclude() : '';
  expect(grant('localSettings').gitIgnoredIn).toBeUndefined();
  expect(grant('projectSettings').gitIgnoredIn).toBeUndefined();
  expect(fs.existsSync(path.join(repo, '.git', 'info', 'exclude')) ? exclude() : '').toBe(before);
  expect(untracked()).toEqual(['?? .claude/settings.json', '?? .gitignore']);
});

it('a project in a subfolder of the repository: the exclude line names the file from the repository root', () => {
  git('init', '-q');
  const sub = path.join(repo, 'src');
  const r = writeGrants({ projectDir: sub, homeDir: path.join(tmp, 'home'), destination: 'localSettings', rules: ['Bash(make)'] });
  expect(r.gitIgnoredIn).toBeDefined();
  expect(exclude()).toContain('\n/src/.claude/settings.local.json\n');
  expect(untracked()).toEqual([]);
});

it('outside a repository the grant is written and nothing else', () => {
  const r = grant('localSettings');
  expect(r.gitIgnoredIn).toBeUndefined();
  expect(JSON.parse(fs.readFileSync(path.join(repo, '.claude', 'settings.local.json'), 'utf8'))).toEqual({ permissions: { allow: ['Bash(npm test)'] } });
  expect(fs.existsSync(path.join(repo, '.git'))).toBe(false);
});
