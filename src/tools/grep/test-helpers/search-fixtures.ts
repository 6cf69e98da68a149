/** Real temp trees and contexts for the Grep and Glob tests, and a runner that goes validate → call → tool_result. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getEmptyToolPermissionContext, type PermissionRule } from '../../../tool/permission-types.js';
import { toolResultText } from '../../../tool/tool-result.js';
import type { AnyTool, AssistantMessage, CanUseToolFn } from '../../../tool/tool.js';
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
const parentMessage = { role: 'assistant', content: [] } as AssistantMessage;

/** The path a model's call takes through the tool: schema, validateInput, call, tool_result text. */
export async function runTool(tool: AnyTool, input: Record<string, unknown>, context: ToolUseContext): Promise<RunResult> {
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) return { text: parsed.error.message, isError: true };
  const validation = (await tool.validateInput?.(parsed.data, context)) ?? { result: true };
  if (!validation.result) return { text: validation.message, isError: true, errorCode: validation.errorCode };
  try {
    const result = await tool.call(parsed.data, context, canUseTool, parentMessage);
    const block = tool.mapToolResultToToolResultBlockParam(result.data, 'toolu_test');
    return { text: toolResultText(block), isError: block.is_error === true, data: result.data };
  } catch (error) {
    return { text: (error as Error).message, isError: true };
  }
}
