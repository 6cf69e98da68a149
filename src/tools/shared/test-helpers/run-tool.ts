/**
 * Test support for the file tools (excluded from the build): a real context over a real temp dir, and `runTool`,
 * which walks the steps of the pipeline that concern a tool — schema, validateInput, backfill, call, result mapping —
 * turning refusals and thrown errors into the `<tool_use_error>` results the model would see.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FileStateCache } from '../../../tool/file-state-cache.js';
import { getEmptyToolPermissionContext } from '../../../tool/permission-types.js';
import type { AnyTool, ToolResultBlockParam } from '../../../tool/tool.js';
import { errorToolResult, toolResultText } from '../../../tool/tool-result.js';
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

export async function runTool<T = unknown>(tool: AnyTool, input: Record<string, unknown>, context: ToolUseContext): Promise<RunResult<T>> {
  const id = `toolu_test_${++counter}`;
  const observable = structuredClone(input);
  const fail = (message: string): RunResult<T> => {
    const block = errorToolResult(id, message);
    return { block, text: toolResultText(block), isError: true, observable };
  };
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) return fail(`InputValidationError: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const validation = (await tool.validateInput?.(parsed.data, context)) ?? { result: true };
  if (!validation.result) return fail(validation.message);
  tool.backfillObservableInput?.(observable, context);
  try {
    const result = await tool.call(parsed.data, context, async () => ({ behavior: 'allow', updatedInput: input }), {
      role: 'assistant',
      content: [],
    });
    const block = tool.mapToolResultToToolResultBlockParam(result.data, id);
    return { block, text: toolResultText(block), isError: block.is_error === true, data: result.data as T, observable };
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}
