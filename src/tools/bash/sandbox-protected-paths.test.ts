/** What the look for repositories finds, without a sandbox (sandbox-repositories.test.ts writes through a real one). */
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { namedByConfig } from './sandbox-git-config.js';
import { forgetScannedFolders, PLACEHOLDER_CHILD, scanProtectedPaths } from './sandbox-protected-paths.js';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tg-protected-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text = ''): string {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('scanProtectedPaths', () => {
  it('finds .git entries and bare repositories at any depth, follows gitdir and commondir, skips node_modules', async () => {
    mkdirSync(path.join(root, 'p', '.git'), { recursive: true });
    write('p/a/b/c/d/e/.git/HEAD');
    write('p/bare/HEAD');
    mkdirSync(path.join(root, 'p', 'bare', 'objects'));
    mkdirSync(path.join(root, 'p', 'bare', 'refs'));
    write('p/linked/HEAD');
    write('p/linked/commondir', '../common\n');
    write('p/sub/.git', `gitdir: ../store/sub\n`);
    write('p/store/sub/commondir', '../main\n');
    write('p/node_modules/x/.git/HEAD');
    const scan = await scanProtectedPaths({ workingDirs: [path.join(root, 'p')], writableRoots: [path.join(root, 'p')], home: path.join(root, 'home') });
    const rel = scan.paths.map((p) => path.relative(path.join(root, 'p'), p));
    for (const want of ['.git', 'a/b/c/d/e/.git', 'bare', 'linked', 'common', 'sub/.git', 'store/sub', 'store/main', '.bashrc', '.claude']) expect(rel, want).toContain(want);
    expect(rel).not.toContain('node_modules/x/.git');
    expect(scan.incomplete).toBeUndefined();
  });

  it('says what it could not look through', async () => {
    for (let i = 0; i < 20; i++) mkdirSync(path.join(root, 'w', `d${i}`), { recursive: true });
    const scan = await scanProtectedPaths({ workingDirs: [path.join(root, 'w')], writableRoots: [path.join(root, 'w')], home: root, maxDirs: 5 });
    expect(scan.incomplete).toMatch(/looked through 5 folders/);
  });

  it('a working directory without .git gets a placeholder below .git; one inside a repository has its enclosing config read', async () => {
    write('repo/.git/config', '[core]\n\thooksPath = pkg/hooks\n');
    mkdirSync(path.join(root, 'repo', 'pkg'));
    const pkg = path.join(root, 'repo', 'pkg');
    const scan = await scanProtectedPaths({ workingDirs: [pkg], writableRoots: [pkg], home: path.join(root, 'home') });
    expect(scan.paths).toContain(path.join(pkg, '.git', 'config'));
    expect(scan.paths).toContain(path.join(pkg, 'hooks'));
    // The enclosing repository's own metadata is outside the writable roots: read-only anyway, not listed.
    expect(scan.paths).not.toContain(path.join(root, 'repo', '.git'));
  });

  it('asks for a path below each protected name of a working directory, so an absent one gets a folder placeholder', async () => {
    const p = path.join(root, 'p');
    mkdirSync(p);
    const scan = await scanProtectedPaths({ workingDirs: [p], writableRoots: [p], home: root });
    for (const name of ['.mcp.json', '.bashrc', '.claude']) {
      expect(scan.paths).toContain(path.join(p, name));
      expect(scan.paths).toContain(path.join(p, name, PLACEHOLDER_CHILD));
    }
  });

  it('reads a folder again only when it changed: a repository made or moved into a folder read before is found', async () => {
    const p = path.join(root, 'p');
    mkdirSync(path.join(p, 'a', 'b'), { recursive: true });
    mkdirSync(path.join(root, 'elsewhere', 'c', '.git'), { recursive: true });
    const options = { workingDirs: [p], writableRoots: [p], home: root };
    forgetScannedFolders();
    // Quiet for longer than a timestamp could hide a change: the look trusts what it read and keeps it.
    await new Promise((r) => setTimeout(r, 2_200));
    expect((await scanProtectedPaths(options)).paths).not.toContain(path.join(p, 'a', 'b', '.git'));
    mkdirSync(path.join(p, 'a', 'b', '.git'));
    renameSync(path.join(root, 'elsewhere', 'c'), path.join(p, 'a', 'c'));
    const again = (await scanProtectedPaths(options)).paths;
    expect(again).toContain(path.join(p, 'a', 'b', '.git'));
    expect(again).toContain(path.join(p, 'a', 'c', '.git'));
  });

  it('never protects a writable root or a folder holding one, whatever the configuration says', async () => {
    write('p/.git/config', '[core]\n\thooksPath = .\n[include]\n\tpath = ..\n');
    const p = path.join(root, 'p');
    const scan = await scanProtectedPaths({ workingDirs: [p], writableRoots: [p], home: root });
    expect(scan.paths).not.toContain(p);
    expect(scan.paths).not.toContain(root);
  });
});

describe('scanProtectedPaths: where a repository could appear, what earlier looks found, second names', () => {
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'pipe' }).toString();

  it('a working directory without .git cannot become a bare repository: HEAD gets a placeholder; beside an existing HEAD, objects, refs and commondir too', async () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    mkdirSync(a);
    write('b/HEAD', 'a file of the project\n');
    const scan = await scanProtectedPaths({ workingDirs: [a, b], writableRoots: [a, b], home: root });
    expect(scan.paths).toContain(path.join(a, 'HEAD', PLACEHOLDER_CHILD));
    expect(scan.paths).not.toContain(path.join(a, 'objects', PLACEHOLDER_CHILD));
    for (const name of ['HEAD', 'objects', 'refs', 'commondir']) expect(scan.paths).toContain(path.join(b, name));
    // A working directory with its own .git: git finds that first, nothing more is needed.
    mkdirSync(path.join(root, 'c', '.git'), { recursive: true });
    const c = path.join(root, 'c');
    expect((await scanProtectedPaths({ workingDirs: [c], writableRoots: [c], home: root })).paths).not.toContain(path.join(c, 'HEAD', PLACEHOLDER_CHILD));
  });

  it("protects every gitlink's .git, initialised or not, as the index says — not past a symbolic link, not outside the worktree", async () => {
    const p = path.join(root, 'p');
    mkdirSync(p);
    git(p, 'init', '-q');
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: p, input: 'x' }).toString().trim();
    for (const link of ['empty', 'absent/deep', 'ready', 'linked/x']) git(p, 'update-index', '--add', '--cacheinfo', `160000,${blob},${link}`);
    mkdirSync(path.join(p, 'empty'));
    write('p/ready/.git', 'gitdir: ../.git/modules/ready\n');
    write('p/.git/modules/ready/config', '[core]\n\thooksPath = ../hooks-of-ready\n');
    mkdirSync(path.join(root, 'elsewhere'));
    symlinkSync(path.join(root, 'elsewhere'), path.join(p, 'linked'));
    forgetScannedFolders();
    const scan = await scanProtectedPaths({ workingDirs: [p], writableRoots: [p], home: root, maxDirs: 1 });
    // Known from the index even though the walk stopped at the first folder.
    expect(scan.incomplete).toMatch(/looked through 1 folders/);
    for (const want of ['empty/.git/config', 'absent/deep/.git/config', 'ready/.git', '.git/modules/ready', 'hooks-of-ready']) expect(scan.paths).toContain(path.join(p, want));
    expect(scan.paths.some((x) => x.startsWith(path.join(p, 'linked')) || x.startsWith(path.join(root, 'elsewhere')))).toBe(false);
  });

  it('follows includes to any depth, and what the global configuration includes or names inside the writable folders', async () => {
    const p = path.join(root, 'p');
    write('p/.git/config', '[include]\n\tpath = ../shared/one.cfg\n');
    write('p/shared/one.cfg', '[includeIf "onbranch:main"]\n\tpath = two.cfg\n');
    write('p/shared/two.cfg', '[include]\n\tpath = ../tools/three.cfg\n[core]\n\tfsmonitor = tools/fsmon\n');
    write('p/tools/three.cfg', '[core]\n\thooksPath = hooks\n');
    write('p/tools/fsmon');
    write('home/.gitconfig', `[include]\n\tpath = ${path.join(p, 'dotfiles', 'git.cfg')}\n`);
    const scan = await scanProtectedPaths({ workingDirs: [p], writableRoots: [p], home: path.join(root, 'home') });
    for (const want of ['shared/one.cfg', 'shared/two.cfg', 'tools/three.cfg', 'tools/fsmon', 'hooks', 'dotfiles/git.cfg']) expect(scan.paths).toContain(path.join(p, want));
  });

  it('keeps protecting what an earlier look found where a later one stops short, and forgets it once it is gone', async () => {
    const p = path.join(root, 'p');
    mkdirSync(path.join(p, 'z', 'lib', '.git'), { recursive: true });
    forgetScannedFolders();
    const options = { workingDirs: [p], writableRoots: [p], home: root, maxDirs: 20 };
    expect((await scanProtectedPaths(options)).paths).toContain(path.join(p, 'z', 'lib', '.git'));
    for (let i = 0; i < 30; i++) mkdirSync(path.join(p, `f${i}`));
    const flooded = await scanProtectedPaths(options);
    expect(flooded.incomplete).toMatch(/looked through 20 folders/);
    expect(flooded.paths).toContain(path.join(p, 'z', 'lib', '.git'));
    rmSync(path.join(p, 'z'), { recursive: true });
    expect((await scanProtectedPaths(options)).paths).not.toContain(path.join(p, 'z', 'lib', '.git'));
  });

  it('reports a protected file that has a second name (a hard link made before)', async () => {
    const p = path.join(root, 'p');
    write('p/.git/config', '[core]\n');
    write('p/.git/hooks/pre-commit.sample');
    write('p/docs/x');
    linkSync(path.join(p, '.git', 'config'), path.join(p, 'docs', 'notes.ini'));
    linkSync(path.join(p, '.git', 'hooks', 'pre-commit.sample'), path.join(p, 'docs', 'sample'));
    const scan = await scanProtectedPaths({ workingDirs: [p], writableRoots: [p], home: root });
    expect(scan.linked).toEqual([path.join(p, '.git', 'config')]);
  });
});

describe('namedByConfig', () => {
  it('names hooks folders and includes even when absent, program files only when present, and no folder as a program', async () => {
    write('wt/tools/fsmon.sh');
    write('wt/scripts/clean.sh');
    const config = write(
      'wt/.git/config',
      [
        '[core]',
        '\thooksPath = .githooks',
        '\tfsmonitor = ./tools/fsmon.sh',
        '\tpager = less -R',
        '[include]',
        '\tpath = ../shared.gitconfig',
        '[includeIf "gitdir:~/work/"]',
        '\tpath = ~/work.gitconfig',
        '[filter "x"]',
        '\tclean = scripts/clean.sh %f',
        '[alias]',
        '\tup = !git add . && git commit',
        '\tmissing = !./not-there.sh',
        '[core] sshCommand = ./tools/fsmon.sh -v',
      ].join('\n'),
    );
    const named = namedByConfig(config, path.join(root, 'wt'), path.join(root, 'home'));
    expect(named.map((p) => path.relative(root, p)).sort()).toEqual(
      ['home/work.gitconfig', 'wt/shared.gitconfig', 'wt/.githooks', 'wt/scripts/clean.sh', 'wt/tools/fsmon.sh', 'wt/tools/fsmon.sh'].sort(),
    );
  });
});
