/**
 * Executor figures:
 * - execution.overhead_us: what the pipeline adds to a call (no-op tool, the real permission engine over 10 rules),
 *   against a bare `call()` measured in the same run; execution.overhead_allow_gate_us: the same with a gate that
 *   allows at once, i.e. the executor's own share; execution.permission_decision_us: the permission engine's decision
 *   alone for that call (`hasPermissionsToUseTool`, awaited), absolute;
 * - execution.parallel10_ratio: ten concurrency-safe 100 ms tools through the StreamingToolExecutor, wall time / 100 ms;
 * - execution.start_latency_us: from `addTool()` to `call()` entered (median).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { runToolUse } from '../src/execution/pipeline.js';
import { StreamingToolExecutor } from '../src/execution/streaming-tool-executor.js';
import { createCanUseTool } from '../src/permissions/can-use-tool.js';
import { createPermissionContext, parseRules } from '../src/permissions/permission-context.js';
import { hasPermissionsToUseTool } from '../src/permissions/resolve.js';
import { buildTool } from '../src/tool/build-tool.js';
import type { AnyTool, AssistantMessage, CanUseToolFn, ToolUseBlock } from '../src/tool/tool.js';
import { createToolUseContext, type ToolUseContext } from '../src/tool/tool-use-context.js';
import { median, timePerCallUs, type Benchmark } from './lib.js';

const assistantMessage: AssistantMessage = { role: 'assistant', content: [] };

function setup(tools: AnyTool[]): { context: ToolUseContext; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-'));
  const rules = [
    ...parseRules(['Noop', 'Sleep', 'Read(src/**)', 'Bash(git status)', 'Bash(npm test:*)', 'WebFetch(domain:example.com)'], 'allow', 'projectSettings'),
    ...parseRules(['Bash(rm -rf *)', 'Read(./.env)', 'WebFetch(domain:evil.example)'], 'deny', 'userSettings'),
    ...parseRules(['Bash(git push:*)'], 'ask', 'localSettings'),
  ];
  const permissionContext = createPermissionContext({ cwd: dir, rules });
  const context = createToolUseContext({ tools, permissionContext, sessionDir: dir });
  return { context, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const noop = buildTool({
  name: 'Noop',
  inputSchema: z.object({ value: z.string().optional() }),
  maxResultSizeChars: 10_000,
  prompt: async () => 'does nothing',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: async () => ({ data: 'ok' }),
});

export const benchmarks: Benchmark[] = [
  {
    group: 'execution',
    names: ['execution.overhead_us', 'execution.overhead_allow_gate_us', 'execution.permission_decision_us'],
    async run() {
      const { context, cleanup } = setup([noop]);
      try {
        const canUseTool = createCanUseTool();
        const block = { type: 'tool_use', id: 'toolu_bench', name: 'Noop', input: { value: 'x' } } as ToolUseBlock;
        const opts = { warmup: 2_000, samples: 41, batch: 500 };
        const bare = await timePerCallUs(() => noop.call({ value: 'x' }, context, canUseTool, assistantMessage), opts);
        const full = await timePerCallUs(() => runToolUse(block, assistantMessage, canUseTool, context), opts);
        // The same pipeline with a gate that allows at once: what the executor costs without the rule engine.
        const allowGate: CanUseToolFn = async (_tool, input) => ({ behavior: 'allow', updatedInput: input });
        const gateOnly = await timePerCallUs(() => runToolUse(block, assistantMessage, allowGate, context), opts);
        const decisionOnly = await timePerCallUs(() => hasPermissionsToUseTool(noop, { value: 'x' }, context), opts);
        return [
          { name: 'execution.overhead_us', value: full - bare, unit: 'us', baseline: bare },
          { name: 'execution.overhead_allow_gate_us', value: gateOnly - bare, unit: 'us', baseline: bare },
          { name: 'execution.permission_decision_us', value: decisionOnly, unit: 'us' },
        ];
      } finally {
        cleanup();
      }
    },
  },
  {
    group: 'execution',
    names: ['execution.parallel10_ratio'],
    async run() {
      const sleep = buildTool({
        name: 'Sleep',
        inputSchema: z.object({}),
        maxResultSizeChars: 10_000,
        prompt: async () => 'sleeps 100 ms',
        isReadOnly: () => true,
        isConcurrencySafe: () => true,
        call: async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          return { data: 'slept' };
        },
      });
      const { context, cleanup } = setup([sleep]);
      try {
        const ratios: number[] = [];
        for (let round = 0; round < 5; round++) {
          const executor = new StreamingToolExecutor([sleep], createCanUseTool(), context);
          const start = performance.now();
          for (let i = 0; i < 10; i++) executor.addTool({ type: 'tool_use', id: `t${round}_${i}`, name: 'Sleep', input: {} } as ToolUseBlock, assistantMessage);
          let results = 0;
          for await (const update of executor.getRemainingResults()) if (update.type === 'result' && !update.outcome.isError) results++;
          if (results !== 10) throw new Error(`expected 10 successful results, got ${results}`);
          ratios.push((performance.now() - start) / 100);
        }
        return [{ name: 'execution.parallel10_ratio', value: median(ratios), unit: 'ratio' }];
      } finally {
        cleanup();
      }
    },
  },
  {
    group: 'execution',
    names: ['execution.start_latency_us'],
    async run() {
      let entered = 0n;
      const probe = buildTool({
        name: 'Noop',
        inputSchema: z.object({}),
        maxResultSizeChars: 10_000,
        prompt: async () => '',
        isReadOnly: () => true,
        isConcurrencySafe: () => true,
        call: async () => {
          entered = process.hrtime.bigint();
          return { data: 'ok' };
        },
      });
      const { context, cleanup } = setup([probe]);
      try {
        const canUseTool = createCanUseTool();
        const samples: number[] = [];
        for (let i = 0; i < 600; i++) {
          const executor = new StreamingToolExecutor([probe], canUseTool, context);
          const start = process.hrtime.bigint();
          executor.addTool({ type: 'tool_use', id: `s${i}`, name: 'Noop', input: {} } as ToolUseBlock, assistantMessage);
          for await (const _update of executor.getRemainingResults()) void _update;
          if (i >= 100) samples.push(Number(entered - start) / 1000); // the first hundred warm up the JIT
        }
        return [{ name: 'execution.start_latency_us', value: median(samples), unit: 'us' }];
      } finally {
        cleanup();
      }
    },
  },
];
