/** Helpers for executor tests: a real context in a temp session dir, scripted permission gates, gates for timing. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PermissionDecision } from '../../src/tool/permission-types.js';
import { getEmptyToolPermissionContext } from '../../src/tool/permission-types.js';
import type { AnyTool, AssistantMessage, CanUseToolFn, ToolUseBlock } from '../../src/tool/tool.js';
import { createToolUseContext, type CreateToolUseContextInput, type ToolUseContext } from '../../src/tool/tool-use-context.js';

export interface TempSession {
  readonly dir: string;
  cleanup(): void;
}

export function tempSession(prefix = 'toolgate-exec-'): TempSession {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function makeContext(tools: readonly AnyTool[], dir: string, extra: Partial<CreateToolUseContextInput> = {}): ToolUseContext {
  return createToolUseContext({ tools, permissionContext: getEmptyToolPermissionContext(dir), sessionDir: dir, ...extra });
}

export const allowAll: CanUseToolFn = async (_tool, input) => ({ behavior: 'allow', updatedInput: input });

export function scriptedCanUseTool(decide: (tool: AnyTool, input: Record<string, unknown>) => PermissionDecision): CanUseToolFn & { calls: { tool: string; input: Record<string, unknown>; forceDecision?: PermissionDecision }[] } {
  const calls: { tool: string; input: Record<string, unknown>; forceDecision?: PermissionDecision }[] = [];
  const fn = (async (tool, input, _ctx, _msg, _id, forceDecision) => {
    calls.push({ tool: tool.name, input, forceDecision });
    return decide(tool, input);
  }) as CanUseToolFn & { calls: typeof calls };
  fn.calls = calls;
  return fn;
}

export const assistantMessage: AssistantMessage = { role: 'assistant', content: [] };

let counter = 0;
export function toolUse(name: string, input: unknown, id = `toolu_${++counter}`): ToolUseBlock {
  return { type: 'tool_use', id, name, input } as ToolUseBlock;
}

/** A promise and its resolver, for tools the test lets finish when it wants (no sleeps). */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b: { type: string; text?: string }) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
  return '';
}
