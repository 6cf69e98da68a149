/**
 * Bash tool benchmarks.
 * - bash.echo_ms: median wall time of `echo hi` through the tool (through the executor's pipeline when
 *   src/execution is present, else through call()); baseline: `bash -c 'echo hi'` spawned directly, same run.
 * - bash.env_persist_ms: median wall time of `echo hi` through the pipeline with the session environment kept (the
 *   shell dumps its exported variables before and after, and its functions); baseline: the same with
 *   `bash.persistEnvironment: false`, same run.
 * - bash.parallel_readonly_ratio: five read-only `grep -c x` (~100 ms each) as one batch (through the
 *   StreamingToolExecutor when present, else Promise.all of call()), wall time over one alone; baseline: the same
 *   ratio for five raw `grep` processes spawned in parallel (what the machine's cores allow at best).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BashTool } from '../src/tools/bash/index.js';
import { createTaskRegistry } from '../src/tools/shared/task-registry.js';
import { getEmptyToolPermissionContext } from '../src/tool/permission-types.js';
import { createToolUseContext, type ToolUseContext } from '../src/tool/tool-use-context.js';
import type { AnyTool, AssistantMessage, CanUseToolFn, ToolUseBlock } from '../src/tool/tool.js';
import { median, round, type Benchmark } from './lib.js';

const allow: CanUseToolFn = async () => ({ behavior: 'allow' });
const message: AssistantMessage = { role: 'assistant', content: [] };

function makeContext(dir: string, tasks = createTaskRegistry(), persistEnvironment = true): ToolUseContext {
  return createToolUseContext({
    settings: { bash: { persistEnvironment } },
    tools: [BashTool as AnyTool],
    permissionContext: { ...getEmptyToolPermissionContext(dir), mode: 'bypassPermissions', isBypassPermissionsModeAvailable: true },
    sessionDir: path.join(dir, '.session'),
    services: { tasks },
  });
}

// Loaded by a computed path so the benchmark also builds where the executor is not there yet.
async function optionalImport(rel: string): Promise<any> {
  const spec = new URL(rel, import.meta.url).href;
  try {
    return await import(spec);
  } catch {
    return undefined;
  }
}

function spawnDirect(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Alternates the two measurements so machine noise hits both alike. */
async function paired(a: () => Promise<unknown>, b: () => Promise<unknown>, samples: number): Promise<[number, number]> {
  for (let i = 0; i < 5; i++) {
    await a();
    await b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < samples; i++) {
    as.push(await timeMs(a));
    bs.push(await timeMs(b));
  }
  return [median(as), median(bs)];
}

let blockId = 0;
const block = (command: string): ToolUseBlock =>
  ({ type: 'tool_use', id: `toolu_bench_${++blockId}`, name: 'Bash', input: { command } }) as ToolUseBlock;

export const benchmarks: Benchmark[] = [
  {
    group: 'bash',
    names: ['bash.echo_ms'],
    async run() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-'));
      try {
        const context = makeContext(dir);
        const pipeline = await optionalImport('../src/execution/pipeline.js');
        const viaTool = pipeline?.runToolUse
          ? async () => {
              const outcome = await pipeline.runToolUse(block('echo hi'), message, allow, context);
              if (outcome.isError) throw new Error(`echo failed: ${JSON.stringify(outcome.result)}`);
            }
          : () => BashTool.call({ command: 'echo hi' }, context, allow, message);
        const [tool, direct] = await paired(viaTool, () => spawnDirect(['-c', 'echo hi']), 60);
        const via = pipeline?.runToolUse ? 'pipeline' : 'call';
        return [{ name: 'bash.echo_ms', value: round(tool), unit: `ms (${via})`, baseline: round(direct) }];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  {
    group: 'bash',
    names: ['bash.env_persist_ms'],
    async run() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-'));
      try {
        const { runToolUse } = await import('../src/execution/pipeline.js');
        const tasks = createTaskRegistry();
        const via = (context: ToolUseContext) => async () => {
          const outcome = await runToolUse(block('echo hi'), message, allow, context);
          if (outcome.isError) throw new Error(`echo failed: ${JSON.stringify(outcome.result)}`);
        };
        const [kept, off] = await paired(via(makeContext(dir, tasks, true)), via(makeContext(dir, tasks, false)), 60);
        return [{ name: 'bash.env_persist_ms', value: round(kept), unit: 'ms (pipeline; baseline: persistEnvironment false)', baseline: round(off) }];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  {
    group: 'bash',
    names: ['bash.parallel_readonly_ratio'],
    async run() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-'));
      try {
        const file = path.join(dir, 'haystack.txt');
        const lines: string[] = [];
        for (let i = 0; i < 3_000_000; i++) lines.push(`line ${i} with an x in it`);
        writeFileSync(file, `${lines.join('\n')}\n`);
        const command = `grep -c x ${file}`;
        const tasks = createTaskRegistry();
        const executorModule = await optionalImport('../src/execution/streaming-tool-executor.js');
        // A fresh context per batch: an executor hangs a listener on its context's abort signal for its lifetime.
        const batch = executorModule?.StreamingToolExecutor
          ? async (n: number) => {
              const executor = new executorModule.StreamingToolExecutor([BashTool], allow, makeContext(dir, tasks));
              for (let i = 0; i < n; i++) executor.addTool(block(command), message);
              for await (const update of executor.getRemainingResults()) {
                if (update.type === 'result' && update.outcome.isError) throw new Error('grep failed');
              }
            }
          : (n: number) => Promise.all(Array.from({ length: n }, () => BashTool.call({ command }, makeContext(dir, tasks), allow, message)));
        const raw = (n: number) => Promise.all(Array.from({ length: n }, () => spawnDirect(['-c', command])));

        // Round-robin, so load from elsewhere on the machine hits the four measurements alike.
        const fns = [() => batch(1), () => batch(5), () => raw(1), () => raw(5)];
        const times: number[][] = fns.map(() => []);
        for (const fn of fns) await fn();
        for (let s = 0; s < 7; s++) for (const [i, fn] of fns.entries()) times[i]!.push(await timeMs(fn));
        const [one, five, rawOne, rawFive] = times.map(median) as [number, number, number, number];
        const via = executorModule?.StreamingToolExecutor ? 'executor' : 'call';
        const cores = os.cpus().length;
        return [
          {
            name: 'bash.parallel_readonly_ratio',
            value: round(five / one),
            unit:
              `ratio (${via}; one ${round(one, 1)} ms, five ${round(five, 1)} ms; ${cores} cores: CPU-bound floor ` +
              `${round(5 / Math.min(5, cores), 2)}, serial 5; read-only: ${BashTool.isReadOnly({ command })}; baseline: five raw grep processes)`,
            baseline: round(rawFive / rawOne),
          },
        ];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
