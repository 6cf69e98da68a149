/**
 * Red team on the lazy built-ins (docs/security.md §13, src/registry/lazy-tool.ts): a built-in whose module fails to
 * load. Whether the calls of it come through the streaming executor (two at once, before the module is there) or
 * through the pipeline, each tool_use gets exactly one tool_result, an error, and no permission is asked or granted
 * on the stub's say-so: the stub answers nothing it does not hold, so nothing is judged by a guessed default.
 */
import { describe, expect, it } from 'vitest';
import { StreamingToolExecutor, type ExecutorUpdate } from '../../src/execution/streaming-tool-executor.js';
import { runToolUse } from '../../src/execution/pipeline.js';
import { lazyTool } from '../../src/registry/lazy-tool.js';
import { toolManifest } from '../../src/registry/tool-manifest.js';
import type { AnyTool } from '../../src/tool/tool.js';
import { assistantMessage, makeContext, scriptedCanUseTool, tempSession, toolUse } from '../helpers/execution.js';

const session = tempSession('toolgate-red-lazy-');

function brokenStub(counter: { loads: number }): AnyTool {
  return lazyTool({
    entry: toolManifest().get('Write')!,
    load: async () => {
      counter.loads++;
      throw new Error('the module could not be loaded');
    },
  });
}

/** A context whose pool holds the stub (the helper's own context walks its tools' members, which a stub refuses). */
function contextWith(tool: AnyTool) {
  const base = makeContext([], session.dir);
  return { ...base, options: { ...base.options, tools: [tool] } } as typeof base;
}

const writeInput = () => ({ file_path: `${session.dir}/planted.txt`, content: 'x' });

describe('a built-in whose module fails to load (security §13)', () => {
  it('two first calls at once through the executor: one error result each, no permission asked', async () => {
    const counter = { loads: 0 };
    const stub = brokenStub(counter);
    const canUseTool = scriptedCanUseTool(() => ({ behavior: 'allow', updatedInput: writeInput() }));
    const ex = new StreamingToolExecutor([stub], canUseTool, contextWith(stub));
    ex.addTool(toolUse('Write', writeInput(), 'toolu_a'), assistantMessage);
    ex.addTool(toolUse('Write', writeInput(), 'toolu_b'), assistantMessage);
    const updates: ExecutorUpdate[] = [];
    for await (const u of ex.getRemainingResults()) updates.push(u);
    const results = updates.flatMap((u) => (u.type === 'result' ? [u] : []));
    expect(results.map((r) => r.toolUseId)).toEqual(['toolu_a', 'toolu_b']);
    for (const r of results) {
      expect(r.outcome.isError).toBe(true);
      expect(r.outcome.decision?.behavior).not.toBe('allow');
    }
    expect(canUseTool.calls).toEqual([]);
    expect(counter.loads).toBe(1);
  });

  it('a call through the pipeline: an error result, no permission asked, and the next call tries the load again', async () => {
    const counter = { loads: 0 };
    const stub = brokenStub(counter);
    const canUseTool = scriptedCanUseTool(() => ({ behavior: 'allow', updatedInput: writeInput() }));
    for (const id of ['toolu_c', 'toolu_d']) {
      const r = await runToolUse(toolUse('Write', writeInput(), id), assistantMessage, canUseTool, contextWith(stub));
      expect(r.toolUseId).toBe(id);
      expect(r.isError).toBe(true);
      expect(r.decision?.behavior).not.toBe('allow');
      expect(r.result.type).toBe('tool_result');
    }
    expect(canUseTool.calls).toEqual([]);
    expect(counter.loads).toBe(2);
  });
});
