/**
 * The risk level a permission request carries (permissions/risk.ts), decided from traits on the real tools: what
 * the dialog and the Agent SDK's canUseTool see. An MCP tool's destructiveHint makes its calls destructive; a
 * Write over an existing file is destructive, a new file is not.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpConnection } from '../src/mcp/connection.js';
import { createMcpTool } from '../src/mcp/mcp-tool.js';
import { createCanUseTool } from '../src/permissions/can-use-tool.js';
import { classifyRisk } from '../src/permissions/risk.js';
import { getEmptyToolPermissionContext } from '../src/tool/permission-types.js';
import type { AnyTool } from '../src/tool/tool.js';
import type { PermissionRequest } from '../src/tool/tool-use-context.js';
import { BashTool } from '../src/tools/bash/index.js';
import { EditTool } from '../src/tools/edit/index.js';
import { NotebookEditTool } from '../src/tools/notebook-edit/index.js';
import { ReadTool } from '../src/tools/read/index.js';
import { WebFetchTool } from '../src/tools/web-fetch/index.js';
import { WriteTool } from '../src/tools/write/index.js';
import { makeContext } from './helpers/execution.js';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-risk-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const level = (tool: AnyTool, input: Record<string, unknown>) => classifyRisk(tool, input, getEmptyToolPermissionContext(dir)).level;
const mcp = (annotations: Record<string, boolean>) =>
  createMcpTool({ name: 'files' } as unknown as McpConnection, { name: 'act', inputSchema: { type: 'object' }, annotations } as never);

describe('the risk of a call', () => {
  it('is read from the tools’ traits', () => {
    writeFileSync(path.join(dir, 'old.txt'), 'x');
    expect(level(ReadTool as AnyTool, { file_path: path.join(dir, 'old.txt') })).toBe('read-only');
    expect(level(BashTool as AnyTool, { command: 'ls' })).toBe('read-only');
    expect(level(BashTool as AnyTool, { command: 'make build' })).toBe('runs-code');
    expect(level(WebFetchTool as AnyTool, { url: 'http://127.0.0.1/', prompt: 'p' })).toBe('network');
    expect(level(EditTool as AnyTool, { file_path: path.join(dir, 'old.txt'), old_string: 'x', new_string: 'y' })).toBe('writes-in-project');
    expect(level(EditTool as AnyTool, { file_path: '/etc/hosts', old_string: 'x', new_string: 'y' })).toBe('writes-outside-project');
    expect(level(WriteTool as AnyTool, { file_path: path.join(dir, 'new.txt'), content: '' })).toBe('writes-in-project');
    expect(level(WriteTool as AnyTool, { file_path: path.join(dir, 'old.txt'), content: '' })).toBe('destructive');
    expect(level(NotebookEditTool as AnyTool, { notebook_path: path.join(dir, 'n.ipynb'), new_source: '', edit_mode: 'delete', cell_id: 'a' })).toBe('destructive');
  });

  it('follows an MCP tool’s annotations: destructiveHint is destructive, readOnlyHint wins over it', () => {
    expect(level(mcp({ destructiveHint: true }), {})).toBe('destructive');
    expect(classifyRisk(mcp({ destructiveHint: true }), {}, getEmptyToolPermissionContext(dir)).destructive).toBe(true);
    expect(level(mcp({ destructiveHint: true, readOnlyHint: true }), {})).toBe('read-only');
    expect(level(mcp({}), {})).toBe('runs-code');
  });

  it('reaches the prompt: the handler the engine asks is given it', async () => {
    writeFileSync(path.join(dir, 'old.txt'), 'x');
    const seen: PermissionRequest[] = [];
    const context = makeContext([WriteTool as AnyTool], dir, {
      ui: {
        requestPermission: async (request: PermissionRequest) => {
          seen.push(request);
          return { behavior: 'deny', message: 'no', decisionReason: { layer: 'prompt', reason: 'test' } };
        },
      },
    } as never);
    const canUseTool = createCanUseTool();
    await canUseTool(WriteTool as AnyTool, { file_path: path.join(dir, 'old.txt'), content: 'y' }, context, { role: 'assistant', content: [] }, 'toolu_risk');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.risk).toMatchObject({ level: 'destructive', destructive: true });
  });
});
