import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckpointStore } from './checkpoints.js';
import { useTempDirs, plainGitEnv } from './test-helpers/checkpoint-fixtures.js';

const temp = useTempDirs();
afterEach(() => {
  vi.restoreAllMocks();
});
const env = plainGitEnv();

/** The files of `root` opened (read) while `work` runs. */
async function opensUnder(root: string, work: () => Promise<unknown>): Promise<string[]> {
  const opened: string[] = [];
  const real = fs.openSync;
  vi.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, ...rest: unknown[]) => {
    if (String(file).startsWith(`${root}/`)) opened.push(path.relative(root, String(file)));
    return (real as (...a: unknown[]) => number)(file, ...rest);
  }) as typeof fs.openSync);
  await work();
  vi.restoreAllMocks();
  return opened.sort();
}

describe('the stat data kept with the store', () => {
  it('a resumed session reads only the files changed since (and those changed just before they were read)', async () => {
    const root = temp('ckpt-log-proj-');
    execFileSync('/bin/bash', ['-c', 'mkdir -p a b && for i in 1 2 3 4 5; do echo $i > a/f$i; echo $i > b/g$i; done && touch -d "2001-01-01" a/* b/* && echo new > fresh.txt && touch -d "+1 hour" fresh.txt'], { cwd: root });
    const storeDir = temp('ckpt-log-store-');
    const first = await CheckpointStore.open(storeDir, [root], {}, env);
    // The first run reads every file; fresh.txt's modification time is not before its reading (racy): not logged.
    expect(await opensUnder(root, () => first.checkpoint('m0', 0, 'm0'))).toHaveLength(11);
    fs.writeFileSync(path.join(root, 'a', 'f3'), 'changed\n');
    const resumed = await CheckpointStore.open(storeDir, [root], {}, env);
    const read = await opensUnder(root, () => resumed.checkpoint('m1', 1, 'm1'));
    expect(read).toEqual(['a/f3', 'fresh.txt']);
    const stored = Object.values(resumed.get('m1')!.roots)[0]!.tree;
    const ref = temp('ckpt-log-ref-');
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', ref, '--work-tree', root, ...args], { cwd: root, encoding: 'utf8', env }).trim();
    git('init', '-q');
    git('add', '-A');
    expect(stored).toBe(git('write-tree'));
    const log = fs.readdirSync(storeDir).map((d) => path.join(storeDir, d, 'toolgate-stat.jsonl')).find((f) => fs.existsSync(f))!;
    expect(fs.statSync(log).mode & 0o777).toBe(0o600);
  });
});
