/**
 * Reading a repository's configuration for programs git would run (issue 21): every spelling git accepts for a diff
 * driver, textconv, filter, external diff, gpg program or include is found — checked against what real git reads from
 * the same file — including one hidden after a value continued across lines; a file the reader cannot follow counts as
 * naming a program (fail closed); ordinary configuration (remotes, branches, husky's hooksPath, fsmonitor, which the
 * Bash tool switches off itself) does not.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { programInConfig } from './git-repo.js';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-git-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The program-naming keys real git reads from this text (lower-cased, as `git config --list` prints them). */
function gitReads(text: string): string[] {
  const file = join(dir, 'config');
  writeFileSync(file, text);
  const out = execFileSync('git', ['config', '--file', file, '--no-includes', '--list', '--name-only'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1' } });
  return out.split('\n').filter((k) => /^(diff\.external|diff\..+\.(command|textconv)|filter\..+\.(clean|smudge|process)|gpg\.(.+\.)?program|include\.path|includeif\..+\.path)$/.test(k));
}

describe('program-naming keys, as git spells them (14 members)', () => {
  it.each([
    '[diff "x"]\n\ttextconv = cat',
    '[diff "x"]\n\tcommand = ./evil',
    '[diff]\n\texternal = ./evil',
    '[filter "lfs"]\n\tclean = git-lfs clean -- %f',
    '[filter "a"] smudge = ./evil',
    '[Filter "a"]\n\tPROCESS = ./evil',
    '[diff.x]\n\ttextconv = ./evil',
    '\uFEFF[diff "x"]\n\ttextconv = ./evil',
    '[include]\n\tpath = other.cfg',
    '[includeIf "gitdir:/x/"]\n\tpath = other.cfg',
    '[gpg]\n\tprogram = ./evil',
    '[gpg "ssh"]\n\tprogram = ./evil',
    // A value continued across lines (inside quotes, then a comment): the key after it is still read.
    '[core]\n\tx = "abc \\\n def" # \\\n[filter "z"]\n\tclean = ./evil',
    '[core]\n\tx = a ; comment \\\n[diff "y"]\n\ttextconv = ./evil',
  ])('%j', (text) => {
    expect(gitReads(text), 'git reads a program key').not.toEqual([]);
    expect(programInConfig(text)).toBeDefined();
  });
});

describe('text the reader cannot follow counts as naming one', () => {
  it.each(['[core\n\tx = 1', 'x = 1', '[core]\n\t= 1', '[core]\n\tx = 1\n\u0001[diff "y"]\n\ttextconv = z'])('%j', (text) => {
    expect(programInConfig(text)).toBeDefined();
  });
});

describe('ordinary configuration names none', () => {
  it.each([
    '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true',
    '[core]\n\tfsmonitor = .git/hooks/fsmonitor-watchman\n\thooksPath = .husky/_\n\tpager = less',
    '[remote "origin"]\n\turl = git@example.com:x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main',
    '[lfs]\n\trepositoryformatversion = 0\n[user]\n\tname = x ; comment',
    '[alias]\n\tx = "!git config filter.x.clean evil"\n# [diff "y"] textconv = z',
    '[core]\n\tx = "a \\\n b"\n\ty = 2',
  ])('%j', (text) => {
    expect(gitReads(text)).toEqual([]);
    expect(programInConfig(text)).toBeUndefined();
  });
});
