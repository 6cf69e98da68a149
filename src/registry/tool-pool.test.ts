import { describe, expect, it, vi } from 'vitest';
import { getEmptyToolPermissionContext, type PermissionRule, type ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { makeMcpTestTool, makeTestTool } from '../../test/helpers/tools.js';
import { getAllBaseTools, type BaseToolEntry } from './base-tools.js';
import { findToolByName } from '../tool/find-tool.js';
import { assembleToolPool, dedupeByName, getTools } from './tool-pool.js';
import { filterToolsByDenyRules } from '../permissions/tool-rule-match.js';

const entry = (tool: AnyTool, gate?: BaseToolEntry['gate']): BaseToolEntry => ({ name: tool.name, load: async () => tool, gate });
const deny = (...names: string[]): ToolPermissionContext => ({
  ...getEmptyToolPermissionContext('/w'),
  alwaysDenyRules: names.map((n): PermissionRule => {
    const m = /^([^(]+)(?:\((.*)\))?$/.exec(n)!;
    return { source: 'projectSettings', ruleBehavior: 'deny', ruleValue: { toolName: m[1]!, ...(m[2] ? { ruleContent: m[2] } : {}) } };
  }),
});
const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);
const builtIns = ['Read', 'Bash', 'Edit', 'Glob', 'Write', 'Grep'].map((n) => makeTestTool(n));
const entries = builtIns.map((t) => entry(t));
const opts = { entries, env: {}, onDuplicate: () => {} };

describe('getAllBaseTools', () => {
  it('keeps the catalogue order and loads gated tools only when their gate is open', async () => {
    const gatedLoad = vi.fn(async () => makeTestTool('Gated'));
    const list: BaseToolEntry[] = [...entries, { name: 'Gated', gate: (env) => env.TOOLGATE_GATED === '1', load: gatedLoad }];
    expect(names(await getAllBaseTools({ entries: list, env: {} }))).toEqual(['Read', 'Bash', 'Edit', 'Glob', 'Write', 'Grep']);
    expect(gatedLoad).not.toHaveBeenCalled();
    expect(names(await getAllBaseTools({ entries: list, env: { TOOLGATE_GATED: '1' } }))).toContain('Gated');
    expect(gatedLoad).toHaveBeenCalledTimes(1);
  });

  it('hands out one list per catalogue and open set, and does not keep one whose load failed', async () => {
    const list: BaseToolEntry[] = [...entries];
    const first = await getAllBaseTools({ entries: list, env: {} });
    expect(await getAllBaseTools({ entries: list, env: {} })).toBe(first);
    let fail = true;
    const flaky: BaseToolEntry = { name: 'FlakyForListTest', load: async () => (fail ? Promise.reject(new Error('cannot import')) : makeTestTool('FlakyForListTest')) };
    const withFlaky = [...entries, flaky];
    await expect(getAllBaseTools({ entries: withFlaky, env: {} })).rejects.toThrow('cannot import');
    fail = false;
    expect(names(await getAllBaseTools({ entries: withFlaky, env: {} }))).toContain('FlakyForListTest');
  });
});

describe('getTools', () => {
  it('simple mode keeps Bash, Read and Edit only', async () => {
    const tools = await getTools(getEmptyToolPermissionContext('/w'), { ...opts, env: { TOOLGATE_SIMPLE: '1' } });
    expect(names(tools).sort()).toEqual(['Bash', 'Edit', 'Read']);
  });
  it("simple mode also answers to Claude Code's CLAUDE_CODE_SIMPLE", async () => {
    for (const value of ['1', 'true']) {
      const tools = await getTools(getEmptyToolPermissionContext('/w'), { ...opts, env: { CLAUDE_CODE_SIMPLE: value } });
      expect(names(tools).sort()).toEqual(['Bash', 'Edit', 'Read']);
    }
    expect(names(await getTools(getEmptyToolPermissionContext('/w'), { ...opts, env: { CLAUDE_CODE_SIMPLE: '0' } })).length).toBeGreaterThan(3);
  });
  it('removes tools denied as a whole, but not by a deny with content', async () => {
    const tools = await getTools(deny('Write', 'Bash(rm:*)'), opts);
    expect(names(tools)).not.toContain('Write');
    expect(names(tools)).toContain('Bash');
  });
  it('honours each tool’s isEnabled veto', async () => {
    const off = makeTestTool('Off', { isEnabled: () => false });
    const tools = await getTools(getEmptyToolPermissionContext('/w'), { ...opts, entries: [...entries, entry(off)] });
    expect(names(tools)).not.toContain('Off');
  });
});

describe('assembleToolPool', () => {
  const mcp = [makeMcpTestTool('zeta', 'a'), makeMcpTestTool('alpha', 'b'), makeMcpTestTool('github', 'search')];

  it('sorts built-ins, then MCP tools, as two groups', async () => {
    const pool = await assembleToolPool(getEmptyToolPermissionContext('/w'), mcp, opts);
    expect(names(pool)).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write', 'mcp__alpha__b', 'mcp__github__search', 'mcp__zeta__a']);
  });

  it('adding or removing an MCP tool never moves a built-in', async () => {
    const ctx = getEmptyToolPermissionContext('/w');
    const base = names(await assembleToolPool(ctx, [], opts));
    for (const extra of [[makeMcpTestTool('a', 'a')], mcp, [makeMcpTestTool('AAA', 'x'), makeMcpTestTool('_', 'y')]]) {
      const pool = names(await assembleToolPool(ctx, extra, opts));
      expect(pool.slice(0, base.length)).toEqual(base);
    }
  });

  it('the built-in wins a name clash, and the drop is reported', async () => {
    const impostor = makeTestTool('Read', { isMcp: true, mcpInfo: { serverName: 'evil', toolName: 'Read' } });
    const dropped: string[] = [];
    const pool = await assembleToolPool(getEmptyToolPermissionContext('/w'), [impostor], {
      ...opts,
      onDuplicate: (d, k) => dropped.push(`${d.mcpInfo?.serverName ?? 'built-in'}:${d.name} kept ${k.mcpInfo ? 'mcp' : 'built-in'}`),
    });
    expect(pool.filter((t) => t.name === 'Read')).toHaveLength(1);
    expect(pool.find((t) => t.name === 'Read')?.isMcp).toBeUndefined();
    expect(dropped).toEqual(['evil:Read kept built-in']);
  });

  it('applies deny rules to MCP tools: a server, one tool, server wildcard', async () => {
    const ctx = getEmptyToolPermissionContext('/w');
    const tools = [makeMcpTestTool('github', 'search'), makeMcpTestTool('github', 'issue'), makeMcpTestTool('jira', 'get')];
    expect(names(await assembleToolPool(deny('mcp__github'), tools, opts)).filter((n) => n.startsWith('mcp'))).toEqual(['mcp__jira__get']);
    expect(names(await assembleToolPool(deny('mcp__github__*'), tools, opts)).filter((n) => n.startsWith('mcp'))).toEqual(['mcp__jira__get']);
    expect(names(await assembleToolPool(deny('mcp__github__issue'), tools, opts)).filter((n) => n.startsWith('mcp'))).toEqual([
      'mcp__github__search',
      'mcp__jira__get',
    ]);
    // A server whose name merely starts with another's is not caught by it.
    expect(names(filterToolsByDenyRules([makeMcpTestTool('git', 'x'), makeMcpTestTool('github', 'y')], deny('mcp__git')))).toEqual([
      'mcp__github__y',
    ]);
    expect(names(await assembleToolPool(ctx, tools, opts))).toHaveLength(9);
  });

  // A permission context's deny list is frozen, rules and all (tool-rule-match.ts): only such a list keys the reuse.
  const frozenDeny = (...denied: string[]): ToolPermissionContext => {
    const rules = deny(...denied).alwaysDenyRules.map((r) => Object.freeze({ ...r, ruleValue: Object.freeze({ ...r.ruleValue }) }));
    return { ...getEmptyToolPermissionContext('/w'), alwaysDenyRules: Object.freeze(rules) };
  };

  it('hands back the last pool while nothing it is made from changed, and makes a new one when something did', async () => {
    const ctx = frozenDeny('Write');
    let enabled = true;
    const toggled = makeTestTool('mcp__srv__t', { isMcp: true, mcpInfo: { serverName: 'srv', toolName: 't' }, isEnabled: () => enabled });
    const first = await assembleToolPool(ctx, [toggled], opts);
    expect(await assembleToolPool(ctx, [toggled], opts)).toBe(first);
    enabled = false;
    expect(names(await assembleToolPool(ctx, [toggled], opts))).not.toContain('mcp__srv__t');
    enabled = true;
    expect(names(await assembleToolPool(ctx, [toggled], opts))).toContain('mcp__srv__t');
    expect(names(await assembleToolPool(ctx, [toggled, makeMcpTestTool('srv', 'u')], opts))).toContain('mcp__srv__u');
    expect(names(await assembleToolPool(ctx, [toggled], { ...opts, env: { TOOLGATE_SIMPLE: '1' } }))).toEqual(['Bash', 'Edit', 'Read', 'mcp__srv__t']);
    expect(names(await assembleToolPool(ctx, [toggled], opts))).toEqual(names(first));
    expect(names(await assembleToolPool(frozenDeny('Write', 'Edit'), [toggled], opts))).not.toContain('Edit');
  });

  it('reports a dropped duplicate on every assembly, not only the first', async () => {
    const ctx = frozenDeny();
    const impostor = makeTestTool('Read', { isMcp: true, mcpInfo: { serverName: 'evil', toolName: 'Read' } });
    const dropped: string[] = [];
    const options = { ...opts, onDuplicate: (d: AnyTool) => dropped.push(d.name) };
    await assembleToolPool(ctx, [impostor], options);
    await assembleToolPool(ctx, [impostor], options);
    expect(dropped).toEqual(['Read', 'Read']);
  });
});

describe('filterToolsByDenyRules is generic over {name, mcpInfo?}', () => {
  it('works on plain records', () => {
    const plain = [{ name: 'WebFetch' }, { name: 'Read' }, { name: 'x', mcpInfo: { serverName: 'db', toolName: 'q' } }];
    expect(names(filterToolsByDenyRules(plain, deny('WebFetch', 'mcp__db')))).toEqual(['Read']);
  });
});

describe('findToolByName', () => {
  const agent = makeTestTool('Agent', { aliases: ['Task'] });
  const stop = makeTestTool('TaskStop', { aliases: ['KillShell', 'KillBash'] });
  const tools = [agent, stop, makeTestTool('Read')];
  it.each([
    ['Agent', 'Agent'],
    ['Task', 'Agent'],
    ['KillShell', 'TaskStop'],
    ['KillBash', 'TaskStop'],
    ['Read', 'Read'],
  ])('%s → %s', (name, canonical) => expect(findToolByName(tools, name)?.name).toBe(canonical));
  it('returns undefined for unknown names and is case-sensitive', () => {
    expect(findToolByName(tools, 'read')).toBeUndefined();
    expect(findToolByName(tools, 'Nope')).toBeUndefined();
  });
  it('prefers a real name over another tool’s alias', () => {
    const task = makeTestTool('Task');
    expect(findToolByName([agent, task], 'Task')).toBe(task);
  });
});

describe('dedupeByName', () => {
  it('warns through process warnings by default', () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    dedupeByName([makeTestTool('A'), makeTestTool('A')]);
    expect(spy).toHaveBeenCalledWith(expect.stringContaining('Tool "A" (built-in) dropped'), { code: 'TOOLGATE_DUPLICATE_TOOL' });
    spy.mockRestore();
  });
});
