/**
 * The `Query` control methods added for issue 34, on a real session against the scripted server: MCP servers
 * replaced, turned off and on, reconnected (a real stdio server and an in-process one); the initialization answer;
 * context usage by part; backgroundTasks without a running call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSdkMcpServer, tool } from 'toolgate/agent-sdk';
import { FIXTURE_SERVER } from '../src/mcp/test-helpers/servers.js';
import { harness, text, type Harness } from './helpers/agent-sdk-session.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const adder = () =>
  createSdkMcpServer({ name: 'calc', version: '1.0.0', tools: [tool('add', 'Adds', { a: z.number(), b: z.number() }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))] });

describe('Query control methods', () => {
  it('setMcpServers replaces the in-process servers and those of earlier calls; toggle and reconnect act on a server', async () => {
    h = await harness([text('ok')]);
    const q = h.start('x', { mcpServers: { calc: adder() }, env: { ENABLE_TOOL_SEARCH: 'false' } });
    await q.next();
    const first = await q.setMcpServers({ fixture: { command: process.execPath, args: [FIXTURE_SERVER] } });
    expect(first).toEqual({ added: ['fixture'], removed: ['calc'], errors: {} });
    let status = await q.mcpServerStatus();
    expect(status.map((s) => s.name)).toEqual(['fixture']);
    expect(status[0]!.tools!.map((t) => t.name)).toContain('mcp__fixture__plain');
    await q.toggleMcpServer('fixture', false);
    status = await q.mcpServerStatus();
    expect(status[0]).toMatchObject({ name: 'fixture', status: 'disabled' });
    await q.toggleMcpServer('fixture', true);
    await q.reconnectMcpServer('fixture');
    status = await q.mcpServerStatus();
    expect(status[0]).toMatchObject({ name: 'fixture', status: 'connected' });
    // An empty set removes what the method added before.
    expect(await q.setMcpServers({})).toEqual({ added: [], removed: ['fixture'], errors: {} });
    await expect(q.reconnectMcpServer('nobody')).rejects.toThrow();
    await q.return();
  });

  it('initializationResult and reinitialize name the commands, agents and models; getContextUsage counts by part', async () => {
    h = await harness([text('ok')]);
    const q = h.start('x', { agents: { helper: { description: 'Helps', prompt: 'You help.' } } });
    await q.next();
    const init = await q.initializationResult();
    expect(init.agents.map((a) => a.name)).toContain('helper');
    expect(init.models[0]).toMatchObject({ value: 'default' });
    expect(init).toMatchObject({ output_style: 'default', available_output_styles: ['default'] });
    expect(await q.reinitialize()).toEqual(init);
    const usage = await q.getContextUsage();
    const ids = usage.categories.map((c) => c.id);
    expect(ids).toEqual(['system_prompt', 'system_tools', 'mcp_tools', 'messages', 'free_space']);
    expect(usage.categories.find((c) => c.id === 'system_tools')!.tokens).toBeGreaterThan(0);
    expect(usage.maxTokens).toBe(200_000);
    expect(usage.totalTokens).toBeGreaterThan(0);
    expect(await q.backgroundTasks()).toBe(true);
    expect(await q.backgroundTasks('toolu_nothing_running')).toBe(false);
    await q.return();
  });
});
