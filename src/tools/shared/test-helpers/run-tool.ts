/**
 * Test support for the file tools (excluded from the build): a real context over a real temp dir, and `runTool`,
 * which runs a call through the real pipeline, so refusals and thrown errors come back as the `<tool_use_error>`
 * results the model would see.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FileStateCache } from '../../../tool/file-state-cache.js';
import { getEmptyToolPermissionContext } from '../../../tool/permission-types.js';
import { localToolCallBackend, type ToolCallBackend } from '../../../execution/backend.js';
import { runToolUse } from '../../../execution/pipeline.js';
import type { AnyTool, CanUseToolFn, ToolResultBlockParam, ToolUseBlock } from '../../../tool/tool.js';
import { toolResultText } from '../../../tool/tool-result.js';
import { createToolUseContext, type ToolSettings, type ToolUseContext } from '../../../tool/tool-use-context.js';

export async function makeTempDir(prefix = 'toolgate-files-'): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}

export function makeContext(cwd: string, options: { settings?: ToolSettings; readFileState?: FileStateCache } = {}): ToolUseContext {
  return createToolUseContext({
    tools: [],
    permissionContext: getEmptyToolPermissionContext(cwd),
    cwd,
    sessionDir: cwd,
    settings: options.settings,
    readFileState: options.readFileState,
  });
}

export interface RunResult<T = unknown> {
  readonly block: ToolResultBlockParam;
  /** The result's text (images as `[image]`). */
  readonly text: string;
  readonly isError: boolean;
  /** The tool's output data, when call() succeeded. */
  readonly data?: T;
  /** The input as hooks would have seen it (after backfill). */
  readonly observable: Record<string, unknown>;
}

let counter = 0;

/**
 * One call through the real pipeline (`runToolUse`: schema, validateInput, backfill, hooks, permission, call, budget,
 * mapping), with a permission gate that allows everything: these tests are about the tool, the engine has its own.
 */
export async function runTool<T = unknown>(tool: AnyTool, input: Record<string, unknown>, context: ToolUseContext): Promise<RunResult<T>> {
  const id = `toolu_test_${++counter}`;
  let observable: Record<string, unknown> = structuredClone(input);
  let data: { value: unknown } | undefined;
  const allow: CanUseToolFn = async (_tool, seen) => {
    observable = seen;
    return { behavior: 'allow' };
  };
  const backend: ToolCallBackend = {
    name: 'local (recording the output for the test)',
    async call(request) {
      const output = await localToolCallBackend.call(request);
      data = { value: output.data };
      return output;
    },
  };
  const withTool: ToolUseContext = { ...context, options: { ...context.options, tools: [tool] } };
  const block = { type: 'tool_use', id, name: tool.name, input } as ToolUseBlock;
  const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, allow, withTool, { backend });
  return {
    block: outcome.result,
    text: toolResultText(outcome.result),
    isError: outcome.isError,
    ...(data !== undefined && outcome.stage === 'completed' ? { data: data.value as T } : {}),
    observable,
  };
}
