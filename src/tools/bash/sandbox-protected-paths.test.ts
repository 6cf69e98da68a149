/** What the look for repositories finds, without a sandbox (sandbox-repositories.test.ts writes through a real one). */
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forgetScannedFolders, namedByConfig, PLACEHOLDER_CHILD, scanProtectedPaths } from './sandbox-protected-paths.js';

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
    const named = await namedByConfig(config, path.join(root, 'wt'), path.join(root, 'home'));
    expect(named.map((p) => path.relative(root, p)).sort()).toEqual(
      ['home/work.gitconfig', 'wt/shared.gitconfig', 'wt/.githooks', 'wt/scripts/clean.sh', 'wt/tools/fsmon.sh', 'wt/tools/fsmon.sh'].sort(),
    );
  });
});
