import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckpointStore } from './checkpoints.js';
import { useTempDirs, plainGitEnv } from './test-helpers/checkpoint-fixtures.js';
import { passStats, PARALLEL_MIN, ROW, statFolder, statFolders, STAT_CHUNK } from './checkpoint-stat-pool.js';

const temp = useTempDirs();
afterEach(() => {
  vi.restoreAllMocks();
});
const env = plainGitEnv();

/** `files` files in folders of `perFolder`. */
function project(files: number, perFolder: number): string {
  const root = temp('ckpt-pool-');
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `d${Math.floor(i / perFolder)}`);
    if (i % perFolder === 0) fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  return root;
}

/**
 * Counts the calls of `fs[method]` made between two turns of the event loop (a setImmediate ticker): the most is how
 * much work the session's loop waited behind at once — counted, not timed, so a loaded machine cannot break it.
 */
function blockedWork(method: 'readFileSync' | 'lstatSync'): { stop: () => number } {
  let since = 0;
  let most = 0;
  let running = true;
  const real = fs[method].bind(fs) as (...a: unknown[]) => unknown;
  vi.spyOn(fs, method).mockImplementation(((...args: unknown[]) => {
    since++;
    return real(...args);
  }) as never);
  const tick = () => {
    most = Math.max(most, since);
    since = 0;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      running = false;
      return Math.max(most, since);
    },
  };
}

describe('the stat pass of a big project', () => {
  it('shares the folders with the worker thread, which lists and stats exactly what this thread would', async () => {
    const root = project(PARALLEL_MIN + 1000, 100);
    const folders = fs.readdirSync(root).map((name) => {
      const abs = path.join(root, name);
      return { abs, ino: fs.lstatSync(abs).ino, size: 100 };
    });
    folders.push({ abs: path.join(root, 'gone'), ino: 1, size: 100 });
    const listings = await statFolders(folders);
    expect(passStats.byWorker).toBeGreaterThan(0);
    expect(passStats.byWorker).toBeLessThan(folders.length);
    folders.forEach((f, i) => {
      const here = statFolder(fs, f.abs, f.ino);
      expect(listings[i]?.names).toEqual(here?.names);
      // The change time moves with nothing done to the files: the rows are compared without it.
      const strip = (rows: Float64Array | undefined) => rows && [...rows].filter((_, k) => k % ROW !== 5);
      expect(strip(listings[i]?.rows)).toEqual(strip(here?.rows));
    });
    expect(listings.at(-1)).toBeUndefined();
  });

  it('a folder swapped for another (same path, another inode) is not listed', () => {
    const root = project(3, 10);
    const abs = path.join(root, 'd0');
    const ino = fs.lstatSync(abs).ino;
    fs.renameSync(abs, path.join(root, 'old'));
    fs.mkdirSync(abs);
    expect(statFolder(fs, abs, ino)).toBeUndefined();
    expect(statFolder(fs, path.join(root, 'old'), ino)?.names).toEqual(['f0.ts', 'f1.ts', 'f2.ts']);
  });
});

describe('a big project does not stall the session', () => {
  it('the first checkpoint reads its files in chunks, the event loop turning between them', async () => {
    const root = project(1500, 100);
    const store = await CheckpointStore.open(temp('ckpt-pool-store-'), [root], {}, env);
    const reads = blockedWork('readFileSync');
    await store.checkpoint('first', 0, 'first');
    const most = reads.stop();
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(256);
  });

  it('a later checkpoint stats the known files in chunks too, and finds the changed ones', async () => {
    const root = project(PARALLEL_MIN + 1000, 100);
    const store = await CheckpointStore.open(temp('ckpt-pool-store-'), [root], {}, env);
    await store.checkpoint('first', 0, 'first');
    fs.writeFileSync(path.join(root, 'd3', 'f300.ts'), 'changed\n');
    fs.rmSync(path.join(root, 'd7', 'f700.ts'));
    const stats = blockedWork('lstatSync');
    await store.checkpoint('second', 1, 'second');
    const most = stats.stop();
    // A folder is stat'ed whole: a chunk ends at the first folder past STAT_CHUNK files.
    expect(most).toBeLessThanOrEqual(STAT_CHUNK + 100 + 10);
    const rewound = await store.rewind('first', { dryRun: true });
    expect(rewound.changed).toEqual([path.join(root, 'd3', 'f300.ts')]);
    expect(rewound.deleted).toEqual([path.join(root, 'd7', 'f700.ts')]);
  });
});
