import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from './checkpoints.js';
import { useTempDirs, plainGitEnv } from './test-helpers/checkpoint-fixtures.js';

const temp = useTempDirs();
const sh = (cwd: string, script: string) => execFileSync('/bin/bash', ['-c', script], { cwd, encoding: 'utf8' });
const env = plainGitEnv();

/** The tree git itself writes for `root` (its own index, `add -A`): what the in-process snapshot must equal. */
function gitTree(root: string): string {
  const ref = temp('ckpt-scan-ref-');
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', ref, '--work-tree', root, '-c', 'core.autocrlf=false', ...args], { cwd: root, encoding: 'utf8', env }).trim();
  git('init', '-q');
  git('add', '-A');
  return git('write-tree');
}

function project(): string {
  const root = temp('ckpt-scan-proj-');
  sh(
    root,
    [
      'mkdir -p a a.b a-b a0 src/deep/er empty node_modules/pkg build',
      'echo x > a/f; echo y > a.b/f; echo z > a-b/f; echo w > a0/f; echo v > a.txt',
      'printf "#!/bin/sh\\n" > src/run.sh; chmod +x src/run.sh',
      'echo deep > src/deep/er/file.ts; ln -s ../a.txt src/link',
      'echo module > node_modules/pkg/index.js; echo out > build/out.js; echo log > src/x.log',
      'printf "node_modules/\\nbuild\\n" > .gitignore; echo "*.log" > src/.gitignore',
    ].join(' && '),
  );
  return root;
}

async function storeFor(root: string): Promise<CheckpointStore> {
  return CheckpointStore.open(temp('ckpt-scan-store-'), [root], {}, env);
}

describe('the in-process snapshot writes the tree git would', () => {
  it('first, then after changes of every kind (content, mode, kind, gone, new folders, the ignore rules)', async () => {
    const root = project();
    const store = await storeFor(root);
    const tree = async (id: string) => Object.values((await store.checkpoint(id, 0, id)).roots)[0]!.tree;
    expect(await tree('c0')).toBe(gitTree(root));
    // Same size, mtime set back: the change time still tells.
    sh(root, 'echo X > a/f && touch -d "2001-01-01" a/f && chmod +x a.txt && rm -r a-b && mkdir -p new/one/two && echo n > new/one/two/n.ts && echo i > new/one/skip.log');
    expect(await tree('c1')).toBe(gitTree(root));
    sh(root, 'rm src/link && mkdir src/link && echo d > src/link/in && rm a.b/f && ln -s a a0/f2');
    expect(await tree('c2')).toBe(gitTree(root));
    // The rules change: what they left out comes in.
    sh(root, 'printf "node_modules/\\n" > .gitignore');
    expect(await tree('c3')).toBe(gitTree(root));
    expect(await tree('c4')).toBe(gitTree(root));
  });

  it('leaves out, and names, a nested repository, a file over the limit and a FIFO; once gone, they are no longer named', async () => {
    const root = project();
    sh(root, 'mkdir nested && git -C nested init -q && echo n > nested/n && mkfifo pipe && head -c 2000 /dev/zero > big.bin');
    const dir = temp('ckpt-scan-store-');
    const store = await CheckpointStore.open(dir, [root], { maxFileBytes: 1000 }, env);
    for (const id of ['c0', 'c1']) {
      const state = Object.values((await store.checkpoint(id, 0, id)).roots)[0]!;
      expect(state.skipped.some((s) => s.startsWith('nested/') && s.includes('nested repository'))).toBe(true);
      expect(state.skipped.some((s) => s.startsWith('pipe') && s.includes('not a regular file'))).toBe(true);
      expect(state.skipped.some((s) => s.startsWith('big.bin') && s.includes('over the'))).toBe(true);
      await store.seal();
      const gitDir = fs.readdirSync(dir).map((d) => path.join(dir, d)).find((d) => fs.existsSync(path.join(d, 'HEAD')))!;
      const names = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', state.tree], { encoding: 'utf8', env }).split('\n');
      expect(names).toContain('src/deep/er/file.ts');
      expect(names.filter((n) => n.startsWith('nested') || n === 'pipe' || n === 'big.bin')).toEqual([]);
    }
    sh(root, 'rm -r nested pipe big.bin');
    const state = Object.values((await store.checkpoint('c2', 0, 'c2')).roots)[0]!;
    expect(state.skipped).toEqual([]);
  });

  it('changed files of a turn are hashed in this process: no git needed (git gone from PATH)', async () => {
    const root = project();
    const own = { ...env };
    const store = await CheckpointStore.open(temp('ckpt-scan-store-'), [root], {}, own);
    await store.checkpoint('c0', 0, 'c0');
    own.PATH = temp('ckpt-scan-nopath-');
    sh(root, 'echo changed > a/f && echo changed > src/deep/er/file.ts && rm a0/f');
    const tree = Object.values((await store.checkpoint('c1', 1, 'c1')).roots)[0]!.tree;
    expect(tree).toBe(gitTree(root));
    // A new path needs git (the ignore rules): without it the checkpoint fails, it is not taken wrong.
    sh(root, 'echo new > a/new');
    await expect(store.checkpoint('c2', 2, 'c2')).rejects.toThrow(/git/);
  });
});
