/**
 * Strict inputs over the whole pool: every built-in refuses a parameter it does not know, as Claude Code's schemas
 * do (their input types are closed), with an error naming it — and still answers each tool_use exactly once, under
 * the real executor. The one open schema is ExitPlanMode's, open in Claude Code's types too (`[k: string]: unknown`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StreamingToolExecutor } from '../src/execution/streaming-tool-executor.js';
import type { ToolUseOutcome } from '../src/execution/outcome.js';
import { getAllBaseTools } from '../src/registry/base-tools.js';
import type { AnyTool, ToolUseBlock } from '../src/tool/tool.js';
import { toolResultText } from '../src/tool/tool-result.js';
import { ListMcpResourcesTool } from '../src/tools/list-mcp-resources/index.js';
import { ReadMcpResourceTool } from '../src/tools/read-mcp-resource/index.js';
import { createSkillTool } from '../src/tools/skill/index.js';
import { allowAll, assistantMessage, makeProject, type TestProject } from '../src/tools/bash/test-helpers/project.js';

/** Built-ins whose Claude Code input type takes any key; each with why. */
const OPEN_SCHEMAS: Readonly<Record<string, string>> = {
  ExitPlanMode: "Claude Code's ExitPlanModeInput has an index signature (hosts pass extra plan fields through)",
};

const UNKNOWN = 'not_a_parameter';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

async function pool(): Promise<AnyTool[]> {
  const skill = createSkillTool({ listForModel: async () => [], refusal: async () => undefined, invokeForModel: async () => Promise.reject(new Error('none')) });
  return [...(await getAllBaseTools()), ListMcpResourcesTool as AnyTool, ReadMcpResourceTool as AnyTool, skill];
}

async function runAll(tools: readonly AnyTool[], blocks: readonly ToolUseBlock[]): Promise<ToolUseOutcome[]> {
  const context = {
    ...project.context,
    options: { ...project.context.options, tools, loadedDeferredTools: new Set(tools.map((t) => t.name)) },
  };
  const executor = new StreamingToolExecutor(tools, allowAll, context);
  for (const block of blocks) executor.addTool(block, assistantMessage);
  const outcomes: ToolUseOutcome[] = [];
  for await (const update of executor.getRemainingResults()) if (update.type === 'result') outcomes.push(update.outcome);
  return outcomes;
}

describe('unknown input fields', () => {
  it('every built-in but the open ones refuses an unknown field by name, each tool_use answered exactly once', async () => {
    const tools = await pool();
    const closed = tools.filter((t) => !(t.name in OPEN_SCHEMAS));
    // The whole pool, not a sample: the closed tools are the catalogue minus the open ones.
    expect(closed.length).toBe(tools.length - Object.keys(OPEN_SCHEMAS).length);
    expect(closed.map((t) => t.name)).toEqual(expect.arrayContaining(['Bash', 'TaskOutput', 'TaskStop', 'Read', 'Monitor', 'LSP', 'Skill']));
    const blocks = closed.map((t, i) => ({ type: 'tool_use', id: `toolu_strict_${i}`, name: t.name, input: { [UNKNOWN]: 1 } }) as ToolUseBlock);
    const outcomes = await runAll(tools, blocks);
    expect(outcomes.map((o) => o.toolUseId).sort()).toEqual(blocks.map((b) => b.id).sort());
    for (const outcome of outcomes) {
      const text = toolResultText(outcome.result);
      expect(outcome.isError, outcome.toolName).toBe(true);
      expect(outcome.stage, `${outcome.toolName}: ${text}`).toBe('validation');
      expect(text, outcome.toolName).toContain(`An unexpected parameter \`${UNKNOWN}\` was provided`);
    }
  }, 60_000);

  it('Bash, TaskOutput and TaskStop: an otherwise valid call with an extra field is refused with that one issue and does not run', async () => {
    const tools = await pool();
    const marker = path.join(project.dir, 'ran');
    const inputs: Record<string, Record<string, unknown>> = {
      Bash: { command: `touch ${marker}`, [UNKNOWN]: true },
      TaskOutput: { task_id: 'nope', block: false, [UNKNOWN]: 'x' },
      TaskStop: { task_id: 'nope', [UNKNOWN]: 'x' },
    };
    const blocks = Object.entries(inputs).map(([name, input], i) => ({ type: 'tool_use', id: `toolu_extra_${i}`, name, input }) as ToolUseBlock);
    const outcomes = await runAll(tools, blocks);
    expect(outcomes).toHaveLength(3);
    for (const outcome of outcomes) {
      expect(toolResultText(outcome.result)).toBe(
        `<tool_use_error>InputValidationError: ${outcome.toolName} failed due to the following issue:\nAn unexpected parameter \`${UNKNOWN}\` was provided</tool_use_error>`,
      );
    }
    expect(existsSync(marker)).toBe(false);
    // Without the extra field the same command runs (the refusal was the field's, not the command's).
    const [ran] = await runAll(tools, [{ type: 'tool_use', id: 'toolu_extra_ok', name: 'Bash', input: { command: `touch ${marker}` } } as ToolUseBlock]);
    expect(ran!.isError).toBe(false);
    expect(existsSync(marker)).toBe(true);
  }, 60_000);

  it('the open list is not stale: each open schema does take an unknown field', async () => {
    const tools = await pool();
    for (const name of Object.keys(OPEN_SCHEMAS)) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.inputSchema.safeParse({ [UNKNOWN]: 1 }).success, name).toBe(true);
    }
  });

  it('an internal field a model sends is dropped before the closed schema, not named back to it', async () => {
    const tools = await pool();
    const [outcome] = await runAll(tools, [
      { type: 'tool_use', id: 'toolu_sed', name: 'Bash', input: { command: 'echo kept', _simulatedSedEdit: { filePath: '/etc/passwd', newContent: 'x' } } } as ToolUseBlock,
    ]);
    expect(outcome!.isError).toBe(false);
    expect(toolResultText(outcome!.result)).toBe('kept');
  }, 30_000);
});
