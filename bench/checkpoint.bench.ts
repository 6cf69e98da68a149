/**
 * File checkpoint benchmarks (issue 35; src/session/checkpoints.ts).
 * - checkpoint.turn_ms: median time of one checkpoint on a 10,000-file project (100 folders of 100 files) where 10
 *   files changed since the last one — the per-turn cost; baseline: a checkpoint where nothing changed (one listing).
 * - checkpoint.first_ms: the first checkpoint of that project (every file hashed once).
 * - checkpoint.small_turn_ms: a checkpoint on a small repository (50 files, 2 changed); baseline: a Bash-like
 *   `bash -c 'ls >/dev/null'` spawned directly (what the cheapest shell call costs).
 * - checkpoint.heap_growth_mb: heap used after 1,000 turns (1 file changed each) minus after the first 100, with a GC
 *   before each reading when `--expose-gc` is on: flat memory is a figure near zero.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CheckpointStore } from '../src/session/checkpoints.js';
import { median, type Benchmark } from './lib.js';

function project(files: number, perFolder: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ckpt-bench-'));
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `d${Math.floor(i / perFolder)}`);
    if (i % perFolder === 0) fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n// ${'x'.repeat(200)}\n`);
  }
  return root;
}

function touch(root: string, count: number, turn: number, perFolder: number, files: number): void {
  for (let k = 0; k < count; k++) {
    const i = (turn * count + k) % files;
    fs.writeFileSync(path.join(root, `d${Math.floor(i / perFolder)}`, `f${i}.ts`), `export const v${i} = ${turn};\n`);
  }
}

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

export const benchmarks: Benchmark[] = [
  {
    group: 'checkpoint',
    names: ['checkpoint.turn_ms', 'checkpoint.first_ms', 'checkpoint.small_turn_ms', 'checkpoint.heap_growth_mb'],
    async run() {
      const big = project(10_000, 100);
      const small = project(50, 10);
      const stores = [fs.mkdtempSync(path.join(os.tmpdir(), 'ckpt-bench-store-')), fs.mkdtempSync(path.join(os.tmpdir(), 'ckpt-bench-store-'))];
      try {
        const store = await CheckpointStore.open(stores[0]!, [big]);
        let t = performance.now();
        await store.checkpoint('first', 0, 'first');
        const first = performance.now() - t;
        const changed: number[] = [];
        const unchanged: number[] = [];
        for (let turn = 1; turn <= 10; turn++) {
          touch(big, 10, turn, 100, 10_000);
          t = performance.now();
          await store.checkpoint(`c${turn}`, turn, 'turn');
          changed.push(performance.now() - t);
          t = performance.now();
          await store.checkpoint(`u${turn}`, turn, 'turn');
          unchanged.push(performance.now() - t);
        }

        const smallStore = await CheckpointStore.open(stores[1]!, [small]);
        await smallStore.checkpoint('first', 0, 'first');
        const smallTurns: number[] = [];
        const shell: number[] = [];
        for (let turn = 1; turn <= 10; turn++) {
          touch(small, 2, turn, 10, 50);
          t = performance.now();
          await smallStore.checkpoint(`s${turn}`, turn, 'turn');
          smallTurns.push(performance.now() - t);
          t = performance.now();
          spawnSync('bash', ['-c', 'ls >/dev/null'], { cwd: small });
          shell.push(performance.now() - t);
        }

        let at100 = 0;
        for (let turn = 1; turn <= 1000; turn++) {
          touch(small, 1, turn, 10, 50);
          await smallStore.checkpoint(`m${turn}`, turn, 'turn');
          if (turn === 100) at100 = heapMb();
        }
        const growth = heapMb() - at100;
        return [
          { name: 'checkpoint.turn_ms', value: median(changed), unit: 'ms', baseline: median(unchanged) },
          { name: 'checkpoint.first_ms', value: first, unit: 'ms' },
          { name: 'checkpoint.small_turn_ms', value: median(smallTurns), unit: 'ms', baseline: median(shell) },
          { name: 'checkpoint.heap_growth_mb', value: growth, unit: 'MB' },
        ];
      } finally {
        for (const d of [big, small, ...stores]) fs.rmSync(d, { recursive: true, force: true });
      }
    },
  },
];
