/**
 * The cost of finding a command's detached processes by their environment marker (src/tools/bash/process-marker.ts),
 * paid when a command is ended (abort, timeout, stop, shutdown), never when it ends on its own.
 * - containment.marker_scan_ms: one pass over /proc for one marker (median of 30), with the machine's processes as
 *   they are; the unit names how many there were. Baseline: `pgrep -f <marker>` spawned, what a shell script would do.
 * - containment.marker_scan_50_ms: fifty commands ended in the same turn of the event loop (fifty markers): their
 *   scans are batched into one pass. Baseline: fifty single scans one after the other.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { markedProcesses, terminateMarked } from '../src/hooks/process-marker.js';
import { median, round, type Benchmark } from './lib.js';

function timeMs(fn: () => unknown, samples = 30): number {
  const per: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = process.hrtime.bigint();
    fn();
    per.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(per);
}

async function timeAsyncMs(fn: () => Promise<unknown>, samples = 15): Promise<number> {
  const per: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = process.hrtime.bigint();
    await fn();
    per.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(per);
}

const processes = () => readdirSync('/proc').filter((e) => /^\d+$/.test(e)).length;

export const benchmarks: Benchmark[] = [
  {
    group: 'containment',
    names: ['containment.marker_scan_ms', 'containment.marker_scan_50_ms'],
    async run() {
      if (process.platform !== 'linux') return [];
      const n = processes();
      const scan = timeMs(() => markedProcesses('bench.none.b0'));
      const pgrep = timeMs(() => spawnSync('pgrep', ['-f', 'bench.none.b0']), 15);
      const markers = Array.from({ length: 50 }, (_, i) => `bench.none.b${i}`);
      const batched = await timeAsyncMs(() => Promise.all(markers.map((m) => terminateMarked(m, 0))));
      const oneByOne = timeMs(() => markers.forEach((m) => markedProcesses(m)), 5);
      return [
        { name: 'containment.marker_scan_ms', value: round(scan), unit: `ms (${n} processes)`, baseline: round(pgrep) },
        { name: 'containment.marker_scan_50_ms', value: round(batched), unit: `ms (${n} processes)`, baseline: round(oneByOne) },
      ];
    },
  },
];
