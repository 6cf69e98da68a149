/**
 * Cross-cutting: 50 Bash tool_use blocks, each with child processes, running at once under the real executor; the
 * user interrupts. Every tool_use gets exactly one tool_result, and one second later no process of theirs is alive.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StreamingToolExecutor } from '../src/execution/streaming-tool-executor.js';
import { USER_INTERRUPT } from '../src/execution/abort-reasons.js';
import type { ToolUseOutcome } from '../src/execution/outcome.js';
import { BashTool } from '../src/tools/bash/index.js';
import { loadBashParser } from '../src/permissions/bash/parser.js';
import { allowAll, assistantMessage, makeProject, processesWithMarker, waitFor, type TestProject } from '../src/tools/bash/test-helpers/project.js';
import type { AnyTool, ToolUseBlock } from '../src/tool/tool.js';
import { toolResultText } from '../src/tool/tool-result.js';
import { existsSync } from 'node:fs';
import path from 'node:path';

let project: TestProject;
let controller: AbortController;
beforeEach(() => {
  controller = new AbortController();
  project = makeProject({ abortController: controller });
});
afterEach(async () => {
  await project.cleanup();
});

describe('Bash under the executor: user interrupt during 50 running commands', () => {
  it('answers every tool_use exactly once and leaves no process behind', async () => {
    const marker = `95${process.pid % 1000}${Date.now() % 100000}`;
    const blocks = Array.from({ length: 50 }, (_, i) => ({
      type: 'tool_use' as const,
      id: `toolu_abort_${i}`,
      name: 'Bash',
      // Read-only (so the executor runs them together) and each with children: a background job and a pipeline.
      input: { command: `sleep ${marker}.${i} & sleep ${marker}.${i} | cat; wait` },
    })) as unknown as ToolUseBlock[];
    // The precondition is asked directly (the executor would wait for the parser itself).
    await loadBashParser();
    expect(BashTool.isConcurrencySafe(blocks[0]!.input as { command: string })).toBe(true);
    const tools = [BashTool as AnyTool];
    const context = { ...project.context, options: { ...project.context.options, tools } };
    const executor = new StreamingToolExecutor(tools, allowAll, context, { maxConcurrency: 50 });
    for (const block of blocks) executor.addTool(block, assistantMessage);

    const sleeps = () => processesWithMarker(`sleep ${marker}.`).filter((p) => p.cmdline.startsWith('sleep ')).length;
    await waitFor(() => sleeps() === 100, 20_000, '100 sleeps to be running');

    const outcomes: ToolUseOutcome[] = [];
    const drained = (async () => {
      for await (const update of executor.getRemainingResults()) if (update.type === 'result') outcomes.push(update.outcome);
    })();
    controller.abort(USER_INTERRUPT);
    const abortedAt = Date.now();
    await drained;
    await new Promise((r) => setTimeout(r, Math.max(0, 1_000 - (Date.now() - abortedAt))));
    expect(processesWithMarker(marker)).toEqual([]);

    expect(outcomes.map((o) => o.toolUseId)).toEqual(blocks.map((b) => b.id));
    for (const outcome of outcomes) {
      expect(outcome.isError).toBe(true);
      expect(outcome.result.tool_use_id).toBe(outcome.toolUseId);
    }
  }, 40_000);

  it('hands the model what an interrupted command printed, with the note that it was aborted before completion', async () => {
    const ready = path.join(project.dir, 'ready');
    const tools = [BashTool as AnyTool];
    const context = { ...project.context, options: { ...project.context.options, tools } };
    const executor = new StreamingToolExecutor(tools, allowAll, context);
    const block = { type: 'tool_use', id: 'toolu_printed', name: 'Bash', input: { command: `echo first line; echo second line; touch ${ready}; sleep 30` } };
    executor.addTool(block as unknown as ToolUseBlock, assistantMessage);
    const outcomes: ToolUseOutcome[] = [];
    const drained = (async () => {
      for await (const update of executor.getRemainingResults()) if (update.type === 'result') outcomes.push(update.outcome);
    })();
    await waitFor(() => existsSync(ready), 20_000, 'the command to print and reach its sleep');
    controller.abort(USER_INTERRUPT);
    await drained;
    expect(outcomes).toHaveLength(1);
    const [outcome] = outcomes;
    expect(outcome!.isError).toBe(true);
    expect(outcome!.result.is_error).toBe(true);
    expect(toolResultText(outcome!.result)).toBe('first line\nsecond line\n<error>Command was aborted before completion</error>');
  }, 40_000);
});
