/** Real temp trees and contexts for the Grep and Glob tests, and a runner that goes through the real pipeline. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getEmptyToolPermissionContext, type PermissionRule } from '../../../tool/permission-types.js';
import { toolResultText } from '../../../tool/tool-result.js';
import { localToolCallBackend, type ToolCallBackend } from '../../../execution/backend.js';
import { runToolUse } from '../../../execution/pipeline.js';
import type { AnyTool, CanUseToolFn, ToolProgress, ToolUseBlock } from '../../../tool/tool.js';
import { createToolUseContext, type ToolSettings, type ToolUseContext } from '../../../tool/tool-use-context.js';

export interface FileSpec {
  readonly content?: string;
  /** Seconds since the epoch, set with fs.utimes. */
  readonly mtime?: number;
}

/** Writes `files` (relative path → content or spec) under `root`, creating folders. */
export function writeTree(root: string, files: Record<string, string | FileSpec>): void {
  for (const [rel, spec] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const { content = '', mtime } = typeof spec === 'string' ? { content: spec } : spec;
    fs.writeFileSync(file, content);
    if (mtime !== undefined) fs.utimesSync(file, mtime, mtime);
  }
}

export function makeTempDir(prefix: string): string {
  // realpath: on some systems the temp folder is behind a symlink, and results show real paths.
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function denyRule(toolName: string, ruleContent: string): PermissionRule {
  return { source: 'projectSettings', ruleBehavior: 'deny', ruleValue: { toolName, ruleContent } };
}

export interface ContextOptions {
  readonly cwd: string;
  readonly denyRules?: readonly PermissionRule[];
  readonly settings?: ToolSettings;
  readonly abortController?: AbortController;
}

export function makeContext(options: ContextOptions): ToolUseContext {
  const permissionContext = { ...getEmptyToolPermissionContext(options.cwd), alwaysDenyRules: options.denyRules ?? [] };
  return createToolUseContext({
    tools: [],
    permissionContext,
    sessionDir: os.tmpdir(),
    settings: options.settings,
    abortController: options.abortController,
  });
}

export interface RunResult {
  readonly text: string;
  readonly isError: boolean;
  /** validateInput's errorCode, when validation refused the input. */
  readonly errorCode?: number;
  readonly data?: unknown;
}

const canUseTool = (async () => ({ behavior: 'allow' })) as CanUseToolFn;
let calls = 0;

/**
 * A model's call through the real pipeline (`runToolUse`), allowed by the gate (the engine has its own tests). `text`
 * is what the model reads, without the `<tool_use_error>` wrapper; `errorCode` is validateInput's, when it refused.
 */
export async function runTool(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
  onProgress?: (progress: ToolProgress) => void,
): Promise<RunResult> {
  let data: { value: unknown } | undefined;
  const backend: ToolCallBackend = {
    name: 'local (recording the output for the test)',
    async call(request) {
      const output = await localToolCallBackend.call(request);
      data = { value: output.data };
      return output;
    },
  };
  const block = { type: 'tool_use', id: `toolu_test_${++calls}`, name: tool.name, input } as ToolUseBlock;
  const withTool: ToolUseContext = { ...context, options: { ...context.options, tools: [tool] } };
  const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, canUseTool, withTool, { backend, ...(onProgress ? { onProgress } : {}) });
  const text = toolResultText(outcome.result).replace(/^<tool_use_error>([\s\S]*)<\/tool_use_error>$/, '$1');
  let errorCode: number | undefined;
  if (outcome.stage === 'validation' && tool.validateInput) {
    // The pipeline keeps validateInput's code to itself; ask again for it (same input, same answer).
    const parsed = tool.inputSchema.safeParse(input);
    const verdict = parsed.success ? await tool.validateInput(parsed.data, context) : undefined;
    if (verdict && !verdict.result) errorCode = verdict.errorCode;
  }
  return {
    text,
    isError: outcome.isError,
    ...(errorCode !== undefined ? { errorCode } : {}),
    ...(data !== undefined ? { data: data.value } : {}),
  };
}
