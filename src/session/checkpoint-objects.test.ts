import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from './checkpoints.js';
import { useTempDirs, plainGitEnv } from './test-helpers/checkpoint-fixtures.js';
import { SEAL_AFTER } from './checkpoint-objects.js';

const temp = useTempDirs();
const env = plainGitEnv();

describe('a snapshot of many new files seals its journal into a pack', () => {
  it('git reads the pack (verify-pack, fsck), a rewind is byte-equal, and a resumed store finds the packed blobs', async () => {
    const root = temp('ckpt-pack-');
    const files = SEAL_AFTER + 50;
    const bytes = (i: number) => Buffer.from(`file ${i}\n${'y'.repeat((i % 300) * 37)}\n\x00\xff binary ${i}`, 'latin1');
    for (let i = 0; i < files; i++) {
      fs.mkdirSync(path.join(root, `d${i % 7}`), { recursive: true });
      fs.writeFileSync(path.join(root, `d${i % 7}`, `f${i}`), bytes(i));
    }
    const dir = temp('ckpt-pack-store-');
    const store = await CheckpointStore.open(dir, [root], {}, env);
    const first = await store.checkpoint('first', 0, 'first');
    const gitDir = path.join(dir, fs.readdirSync(dir).find((n) => /^[0-9a-f]{16}$/.test(n))!);
    const packs = fs.readdirSync(path.join(gitDir, 'objects', 'pack'));
    expect(packs.filter((n) => n.endsWith('.pack'))).toHaveLength(1);
    expect(packs.filter((n) => n.startsWith('tmp_'))).toEqual([]);
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', env });
    const idx = path.join(gitDir, 'objects', 'pack', packs.find((n) => n.endsWith('.idx'))!);
    expect(git('verify-pack', '-v', idx)).toMatch(/: ok\n?$/);
    git('fsck', '--strict', '--no-dangling', Object.values(first.roots)[0]!.tree);
    // Every file changed and some removed: the rewind reads every blob back (from the pack).
    for (let i = 0; i < files; i++) {
      if (i % 5 === 0) fs.rmSync(path.join(root, `d${i % 7}`, `f${i}`));
      else fs.writeFileSync(path.join(root, `d${i % 7}`, `f${i}`), 'changed\n');
    }
    const result = await store.rewind('first');
    expect(result.error).toBeUndefined();
    for (let i = 0; i < files; i++) expect(fs.readFileSync(path.join(root, `d${i % 7}`, `f${i}`)).equals(bytes(i))).toBe(true);
    // A resumed store (another process's view): the stat log's facts name packed blobs, which it finds in the index.
    // Aged past the racily-clean margin, so the next checkpoint logs their stat data.
    const hourAgo = new Date(Date.now() - 3600_000);
    for (let i = 0; i < files; i++) fs.utimesSync(path.join(root, `d${i % 7}`, `f${i}`), hourAgo, hourAgo);
    await store.checkpoint('again', 1, 'again');
    const before = fs.readdirSync(path.join(gitDir, 'objects', 'pack')).length;
    const resumed = await CheckpointStore.open(dir, [root], {}, env);
    const again = await resumed.checkpoint('resumed', 2, 'resumed');
    expect(Object.values(again.roots)[0]!.tree).toBe(Object.values(first.roots)[0]!.tree);
    expect(fs.readdirSync(path.join(gitDir, 'objects', 'pack')).length).toBe(before);
  });
});
