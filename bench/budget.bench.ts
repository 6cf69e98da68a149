import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ToolResultBudget } from '../src/execution/budget.js';
import type { ToolResultBlockParam } from '../src/tool/tool.js';
import type { Benchmark } from './lib.js';

function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

const block = (id: string, chars: number): ToolResultBlockParam => ({ type: 'tool_result', tool_use_id: id, content: `${id}:`.padEnd(chars, 'x') });

/** Heap growth per 1,000 calls between call 2,000 and call 10,000 (one large result in ten, the rest 1,500 chars). */
async function growthKbPer1000(record: (id: string, b: ToolResultBlockParam) => Promise<void>): Promise<number> {
  let start = 0;
  for (let i = 0; i < 10_000; i++) {
    await record(`call_${i}`, block(`call_${i}`, i % 10 === 0 ? 3_000 : 1_500));
    if (i === 1_999) {
      gc();
      start = process.memoryUsage().heapUsed;
    }
  }
  gc();
  return (process.memoryUsage().heapUsed - start) / 1024 / 8;
}

export const benchmarks: Benchmark[] = [
  {
    group: 'budget',
    names: ['budget.heap_kb_per_1000_calls'],
    async run() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-budget-'));
      try {
        const budget = new ToolResultBudget();
        const value = await growthKbPer1000(async (id, b) => {
          budget.record({ toolUseId: id, toolName: 'Bash', block: b, replaceable: true });
          await budget.enforce(dir, new Set([id]));
        });
        // Baseline: a record that keeps every block (what the budget did before).
        const kept: ToolResultBlockParam[] = [];
        const baseline = await growthKbPer1000(async (_id, b) => void kept.push(b));
        return [{ name: 'budget.heap_kb_per_1000_calls', value, unit: 'KiB', baseline }];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
