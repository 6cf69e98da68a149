import { describe, expect, it } from 'vitest';
import { getEmptyToolPermissionContext } from '../tool/permission-types.js';
import { isDeferredTool } from '../tool/api-format.js';
import type { AnyTool } from '../tool/tool.js';
import { makeMcpTestTool, makeTestTool } from '../../test/helpers/tools.js';
import type { BaseToolEntry } from './base-tools.js';
import { assembleToolPool } from './tool-pool.js';
import { parseToolSearchMode } from './tool-search-mode.js';
import { ToolSearchTool } from '../tools/tool-search/index.js';

const entry = (tool: AnyTool): BaseToolEntry => ({ name: tool.name, load: async () => tool });
const base = [makeTestTool('Read'), makeTestTool('Todo', { shouldDefer: true }), ToolSearchTool];
const mcp = [makeMcpTestTool('b', 'x'), makeMcpTestTool('a', 'y')];
const ctx = getEmptyToolPermissionContext('/w');
const pool = (toolSearch: string | undefined, entries = base, extra = mcp, contextWindowTokens?: number) =>
  assembleToolPool(ctx, extra, { entries: entries.map(entry), env: {}, onDuplicate: () => {}, toolSearch, contextWindowTokens });
const deferred = (tools: readonly AnyTool[]) => tools.filter((t) => isDeferredTool(t, tools)).map((t) => t.name);

describe('tool search mode', () => {
  it('parses true/false/auto/auto:N and refuses anything else', () => {
    expect(parseToolSearchMode(undefined)).toEqual({ kind: 'on' });
    expect(parseToolSearchMode('false')).toEqual({ kind: 'off' });
    expect(parseToolSearchMode('auto')).toEqual({ kind: 'auto', percent: 10 });
    expect(parseToolSearchMode('auto:25')).toEqual({ kind: 'auto', percent: 25 });
    expect(() => parseToolSearchMode('auto:200')).toThrow(/Invalid tool search setting/);
    expect(() => parseToolSearchMode('sometimes')).toThrow(/Invalid/);
  });

  it('on: shouldDefer and MCP tools are deferred, ToolSearch stays, order is built-ins then MCP', async () => {
    const tools = await pool('true');
    expect(tools.map((t) => t.name)).toEqual(['Read', 'Todo', 'ToolSearch', 'mcp__a__y', 'mcp__b__x']);
    expect(deferred(tools)).toEqual(['Todo', 'mcp__a__y', 'mcp__b__x']);
  });

  it('off: ToolSearch leaves the pool and nothing is deferred', async () => {
    const tools = await pool('false');
    expect(tools.map((t) => t.name)).not.toContain('ToolSearch');
    expect(deferred(tools)).toEqual([]);
  });

  it('auto: small MCP definitions are sent up front, large ones deferred', async () => {
    expect(deferred(await pool('auto'))).toEqual(['Todo']);
    // A 100-token window: the two MCP tools pass 10 % of it.
    expect(deferred(await pool('auto', base, mcp, 100))).toEqual(['Todo', 'mcp__a__y', 'mcp__b__x']);
    expect(deferred(await pool('auto:0', base, mcp))).toEqual(['Todo', 'mcp__a__y', 'mcp__b__x']);
  });

  it('auto: the same tools give the same pool, object for object (the runtime keeps its definitions)', async () => {
    const first = await pool('auto');
    const second = await pool('auto');
    expect(first.find((t) => t.name === 'mcp__a__y')?.shouldDefer).toBe(false);
    expect(second).toHaveLength(first.length);
    second.forEach((tool, i) => expect(tool).toBe(first[i]));
  });

  it('ToolSearch is dropped when nothing is deferred', async () => {
    const tools = await pool('auto', [makeTestTool('Read'), ToolSearchTool], mcp);
    expect(tools.map((t) => t.name)).toEqual(['Read', 'mcp__a__y', 'mcp__b__x']);
  });

  it('reads ENABLE_TOOL_SEARCH when no option is given', async () => {
    const tools = await assembleToolPool(ctx, mcp, { entries: base.map(entry), env: { ENABLE_TOOL_SEARCH: 'false' }, onDuplicate: () => {} });
    expect(tools.map((t) => t.name)).not.toContain('ToolSearch');
  });
});
