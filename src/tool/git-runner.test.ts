/**
 * The hardened git runner with real git: which git it runs, the environment it starts from, and the programs a
 * repository's configuration names (hooks, fsmonitor, filters under any name, pager, editor) — each case also runs
 * plain git on the same repository first, to show the program really would run.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filterOverrides, GitError, gitResultSync, gitRunnerEnv, runGit, runGitSync } from './git-runner.js';

let dir: string;
let repo: string;
let markers: string;

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1' };
const plainGit = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function program(name: string): string {
  const file = path.join(dir, 'bin', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\ntouch '${path.join(markers, name)}'\ncat\n`);
  chmodSync(file, 0o755);
  return file;
}
const ran = () => readdirSync(markers).sort();
const clearMarkers = () => {
  for (const m of readdirSync(markers)) rmSync(path.join(markers, m));
};

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-runner-')));
  repo = path.join(dir, 'repo');
  markers = path.join(dir, 'markers');
  mkdirSync(markers);
  mkdirSync(repo);
  plainGit('init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  plainGit('add', '.');
  plainGit('commit', '-q', '-m', 'first');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the git runner', () => {
  it('runs git by absolute path: a `git` in a relative PATH entry (the repository itself) is never run', async () => {
    const fake = path.join(repo, 'bin', 'git');
    mkdirSync(path.dirname(fake));
    writeFileSync(fake, `#!/bin/sh\ntouch '${path.join(markers, 'fake-git')}'\n`);
    chmodSync(fake, 0o755);
    const env = { ...process.env, PATH: `bin:${process.env.PATH}` };
    expect(execFileSync('sh', ['-c', 'git --version; true'], { cwd: repo, env }).toString()).toBe('');
    expect(ran()).toEqual(['fake-git']);
    clearMarkers();
    expect(await runGit(['rev-parse', '--show-toplevel'], { cwd: repo, env })).toBe(`${repo}\n`);
    expect(ran()).toEqual([]);
    expect(() => runGitSync(['status'], { cwd: repo, env: { PATH: 'bin' } })).toThrow(GitError);
  });

  it('drops every inherited GIT_* variable and SSH_ASKPASS; carries its settings as environment entries', () => {
    const env = gitRunnerEnv({ PATH: '/usr/bin', HOME: '/h', GIT_DIR: '/x', GIT_EXEC_PATH: '/x', GIT_SSH_COMMAND: 'x', GIT_ASKPASS: 'x', GIT_CONFIG_PARAMETERS: "'a.b'='c'", GIT_TRACE: '/tmp/t', SSH_ASKPASS: 'x' });
    expect(Object.keys(env).filter((k) => k.startsWith('GIT_') && !k.startsWith('GIT_CONFIG_')).sort()).toEqual(
      ['GIT_EDITOR', 'GIT_OPTIONAL_LOCKS', 'GIT_PAGER', 'GIT_PROTOCOL_FROM_USER', 'GIT_TERMINAL_PROMPT'].sort(),
    );
    expect(env.GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(env.GIT_CONFIG_NOSYSTEM).toBe('1');
    expect(env.SSH_ASKPASS).toBeUndefined();
    expect(env.PATH).toBe('/usr/bin');
    const pairs = Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => `${env[`GIT_CONFIG_KEY_${i}`]}=${env[`GIT_CONFIG_VALUE_${i}`]}`);
    expect(pairs).toEqual(expect.arrayContaining(['core.fsmonitor=false', 'core.hooksPath=/dev/null', 'safe.bareRepository=explicit', 'credential.helper=', 'protocol.allow=never']));
  });

  it('takes a subcommand first: a caller cannot put global options (-c) after its own', async () => {
    await expect(runGit(['-c', 'core.hooksPath=hooks', 'status'], { cwd: repo })).rejects.toThrow(/subcommand first/);
  });

  it('runs no hook, no fsmonitor, no pager, no editor the configuration names', async () => {
    const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\ntouch '${path.join(markers, 'hook')}'\n`);
    chmodSync(hook, 0o755);
    plainGit('config', 'core.fsmonitor', program('fsmonitor'));
    plainGit('config', 'core.pager', program('pager'));
    plainGit('config', 'core.editor', program('editor'));
    plainGit('checkout', '-q', '-b', 'plain');
    plainGit('status');
    expect(ran()).toEqual(['fsmonitor', 'hook']);
    clearMarkers();

    await runGit(['checkout', '-q', '-b', 'hardened'], { cwd: repo });
    await runGit(['status'], { cwd: repo });
    expect((await runGit(['var', 'GIT_PAGER'], { cwd: repo })).trim()).toBe('cat');
    expect((await runGit(['var', 'GIT_EDITOR'], { cwd: repo })).trim()).toBe(':');
    expect(ran()).toEqual([]);
  });

  it("looks into no submodule (its configuration's programs never run), yet reports a submodule whose commit moved", async () => {
    // A submodule whose own configuration names a clean filter and fsmonitor, with a file git must hash again.
    const src = path.join(dir, 'subsrc');
    mkdirSync(src);
    const inSrc = (...args: string[]) => execFileSync('git', args, { cwd: src, env: GIT_ENV, stdio: 'ignore' });
    inSrc('init', '-q', '-b', 'main');
    writeFileSync(path.join(src, '.gitattributes'), '* filter=ev\n');
    writeFileSync(path.join(src, 'f'), 'x\n');
    inSrc('add', '.');
    inSrc('commit', '-q', '-m', 'one');
    plainGit('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', src, 'sub');
    plainGit('commit', '-q', '-m', 'sub');
    const sub = path.join(repo, 'sub');
    const inSub = (...args: string[]) => execFileSync('git', args, { cwd: sub, env: GIT_ENV, stdio: 'ignore' });
    inSub('config', 'filter.ev.clean', program('submodule-clean'));
    inSub('config', 'core.fsmonitor', program('submodule-fsmonitor'));
    inSub('commit', '-q', '--allow-empty', '-m', 'moved');
    utimesSync(path.join(sub, 'f'), 1, 1);
    plainGit('status', '--porcelain');
    expect(ran()).toEqual(['submodule-clean', 'submodule-fsmonitor']);
    clearMarkers();
    utimesSync(path.join(sub, 'f'), 2, 2);

    // The submodule's moved commit is a change (ExitWorktree counts it), found without running git inside it.
    expect(await runGit(['status', '--porcelain'], { cwd: repo })).toBe(' M sub\n');
    await runGit(['diff', '--stat'], { cwd: repo });
    expect(ran()).toEqual([]);
  });

  it('neutralises every filter the configuration defines, whatever its name, and a required one does not fail', async () => {
    const names = ['x', 'a=b', 'with.dots', 'UpperCase'];
    writeFileSync(path.join(repo, '.gitattributes'), names.map((n, i) => `f${i}.txt filter=${n}`).join('\n') + '\n');
    names.forEach((n, i) => writeFileSync(path.join(repo, `f${i}.txt`), `${i}\n`));
    names.forEach((n, i) => {
      plainGit('config', `filter.${n}.clean`, program(`clean-${i}`));
      plainGit('config', `filter.${n}.required`, 'true');
    });
    plainGit('add', '.');
    expect(ran()).toEqual(['clean-0', 'clean-1', 'clean-2', 'clean-3']);
    plainGit('commit', '-q', '-m', 'filtered');
    clearMarkers();
    names.forEach((_, i) => writeFileSync(path.join(repo, `f${i}.txt`), `${i} changed\n`));
    expect(await runGit(['status', '--porcelain'], { cwd: repo })).toMatch(/ M f0\.txt/);
    await runGit(['add', '.'], { cwd: repo });
    expect(ran()).toEqual([]);
    expect((await runGit(['diff', '--cached', '--name-only'], { cwd: repo })).trim().split('\n')).toEqual(['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt']);
  });

  it('refuses a bare repository it was not given by name (a folder merely laid out as one)', () => {
    const bare = path.join(dir, 'bare');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    expect(gitResultSync(['rev-parse', '--git-dir'], { cwd: bare }).status).not.toBe(0);
    expect(runGitSync(['rev-parse', '--git-dir'], { cwd: dir, gitDir: bare }).trim()).toBe(bare);
  });

  it('reads filter names from `config -z` records, keeping any character of the subsection', () => {
    const out = 'filter.x.smudge\nprog\0filter.a=b.clean\nprog\0filter.with.dots.process\np\0filter.x.required\ntrue\0';
    const names = new Set(filterOverrides(out).map(([k]) => k.replace(/^filter\.|\.[a-z]+$/g, '')));
    expect([...names]).toEqual(['x', 'a=b', 'with.dots']);
    expect(filterOverrides(out)).toContainEqual(['filter.a=b.required', 'false']);
    expect(filterOverrides('')).toEqual([]);
  });
});
