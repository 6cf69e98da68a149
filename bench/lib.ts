/**
 * The benchmark harness: each `bench/*.bench.ts` exports `benchmarks`, a list of named async functions that
 * return one or more figures. Baselines are measured in the same run, so ratios compare like with like.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface BenchFigure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: number;
}

export interface Benchmark {
  /** Figures this benchmark reports; `--filter` matches against these and against `group`. */
  readonly names: readonly string[];
  readonly group: string;
  run(): Promise<BenchFigure[]>;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `fn` `warmup` times, then `samples` batches of `batch` calls; returns the median per-call time in µs. */
export async function timePerCallUs(
  fn: () => unknown,
  { warmup = 50, samples = 30, batch = 20 }: { warmup?: number; samples?: number; batch?: number } = {},
): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const per: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await fn();
    per.push(Number(process.hrtime.bigint() - start) / 1000 / batch);
  }
  return median(per);
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

const repoRoot = path.resolve(import.meta.dirname, '..');
let built = false;

/**
 * Makes sure `dist/` (tsc's output, what a program importing `toolgate` runs) and the CLI bundles (what the
 * `toolgate` command runs) are there and newer than every source file, and builds them (`npm run build`'s two steps)
 * when they are not: a figure must be of the code as it ships, never of a stale build. `npm ci` builds both.
 */
export function ensureBuilt(): void {
  if (built) return;
  const outputs = ['dist/index.js', 'dist/cli-bundle/toolgate.mjs', 'dist/cli-bundle/toolgate.cjs'].map((f) => mtimeOf(path.join(repoRoot, f)));
  const oldestOutput = Math.min(...outputs);
  const inputs = [newestSource(path.join(repoRoot, 'src')), mtimeOf(path.join(repoRoot, 'scripts/bundle-cli.mjs')), mtimeOf(path.join(repoRoot, 'tsconfig.build.json'))];
  if (!(oldestOutput >= Math.max(...inputs))) {
    process.stderr.write('bench: dist/ is missing or older than src/: building it\n');
    execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: repoRoot, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts/bundle-cli.mjs')], { cwd: repoRoot, stdio: 'inherit' });
  }
  built = true;
}

/** NaN for a file that is not there: every comparison with it is false, so a missing output counts as stale. */
function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Number.NaN;
  }
}

/** The newest modification among the files a build reads (tests are not built). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || /\.test(-d)?\.tsx?$/.test(entry.name)) continue;
    newest = Math.max(newest, mtimeOf(path.join(entry.parentPath ?? entry.path, entry.name)));
  }
  return newest;
}
