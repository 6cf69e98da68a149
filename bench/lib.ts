/**
 * The benchmark harness: each `bench/*.bench.ts` exports `benchmarks`, a list of named async functions that
 * return one or more figures. Baselines are measured in the same run, so ratios compare like with like.
 */
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
