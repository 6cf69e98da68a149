/** Submodule folders by git's own knowledge: the gitlinks of every index format git writes, read without git. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forgetIndexes, gitlinksOfIndex, submoduleFolders } from './sandbox-submodules.js';

let root: string;
const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tg-submodules-')));
  forgetIndexes();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Past the 12 bits of an index entry's name length (git then stores 0xfff and ends the name with a NUL only). */
const LONG = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(220, 'y')).join('/');

/** A repository whose index holds files and gitlinks (one with a name too long for its length field), by git itself. */
function repository(name: string, ...init: string[]): string {
  const repo = path.join(root, name);
  mkdirSync(repo);
  git(repo, 'init', '-q', ...init);
  for (const f of ['README.md', 'src/index.ts']) {
    mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
    writeFileSync(path.join(repo, f), f);
    git(repo, 'add', f);
  }
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo, env: GIT_ENV, input: 'x', encoding: 'utf8' }).trim();
  git(repo, 'update-index', '--add', '--cacheinfo', `100644,${blob},deep/${LONG}/file`);
  for (const link of LINKS) git(repo, 'update-index', '--add', '--cacheinfo', `160000,${blob},${link}`);
  return repo;
}
const LINKS = ['b', 'libs/a', `libs/${LONG}`].sort();

describe('gitlinksOfIndex', () => {
  for (const version of ['2', '3', '4']) {
    it(`reads the gitlinks of an index in format ${version}`, () => {
      const repo = repository(`v${version}`);
      git(repo, 'update-index', '--index-version', version);
      // Format 3 only differs with extended flags: an intent-to-add entry has them.
      if (version === '3') {
        writeFileSync(path.join(repo, 'later.txt'), '');
        git(repo, 'add', '-N', 'later.txt');
      }
      const parsed = gitlinksOfIndex(readFileSync(path.join(repo, '.git', 'index')));
      expect(parsed?.links.sort()).toEqual(LINKS);
      expect(readFileSync(path.join(repo, '.git', 'index')).readUInt32BE(4)).toBe(Number(version));
    });
  }

  it('reads a SHA-256 repository’s index', () => {
    const repo = repository('sha256', '--object-format=sha256');
    expect(gitlinksOfIndex(readFileSync(path.join(repo, '.git', 'index')))?.links.sort()).toEqual(LINKS);
  });

  it('reads a split index together with its shared part', async () => {
    const repo = repository('split');
    git(repo, 'update-index', '--split-index');
    writeFileSync(path.join(repo, 'more.txt'), 'more');
    git(repo, 'add', 'more.txt');
    const parsed = gitlinksOfIndex(readFileSync(path.join(repo, '.git', 'index')));
    expect(parsed?.sharedIndex).toMatch(/^sharedindex\.[0-9a-f]{40}$/);
    const { folders } = submoduleFolders(path.join(repo, '.git'), repo);
    expect(folders.map((f) => path.relative(repo, f)).sort()).toEqual(LINKS);
  });

  it('refuses what is not an index', () => {
    expect(gitlinksOfIndex(Buffer.from('DIRC\0\0\0\x02\0\0\0\x05garbage'))).toBeUndefined();
    expect(gitlinksOfIndex(Buffer.from('not an index at all'))).toBeUndefined();
  });
});

describe('submoduleFolders', () => {
  it('takes the gitlinks inside the worktree only; without a readable index, the paths .gitmodules lists, and says so', async () => {
    const repo = path.join(root, 'r');
    mkdirSync(path.join(repo, '.git'), { recursive: true });
    writeFileSync(path.join(repo, '.gitmodules'), '[submodule "a"]\n\tpath = vendor/a\n[submodule "up"]\n\tpath = ../outside\n[core]\n\tpath = not-a-submodule\n');
    expect(submoduleFolders(path.join(repo, '.git'), repo)).toEqual({ folders: [] });
    writeFileSync(path.join(repo, '.git', 'index'), 'DIRC broken');
    const fallback = submoduleFolders(path.join(repo, '.git'), repo);
    expect(fallback.folders).toEqual([path.join(repo, 'vendor', 'a')]);
    expect(fallback.unknown).toMatch(/could not be read/);
  });
});
