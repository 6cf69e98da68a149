/**
 * Prompt-cache breakpoints as the seeds explain them, read off the requests `query()` sends (the real SDK against the
 * scripted server): after the last built-in tool as well as after the last tool, so an MCP server (a real one, over
 * stdio) or an embedder's tool coming or going leaves the built-ins' cached prefix byte for byte as it was; none on a
 * deferred tool (not part of the prefix); and never more than the API's four per request.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import type { ToolRuntime, ToolRuntimeOptions } from '../src/agent/types.js';
import type { QueryOptions } from '../src/agent/query-options.js';
import { McpClientManager } from '../src/mcp/manager.js';
import { FIXTURE_SERVER, nodeServer, scoped } from '../src/mcp/test-helpers/servers.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { buildTool } from '../src/tool/build-tool.js';
import type { MessageParam } from '../src/tool/tool.js';

let dir: string;
let server: ScriptedServer;
let client: Anthropic;
const open: { dispose(): Promise<void> }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-cache-'));
  server = await startScriptedServer(Array.from({ length: 20 }, () => ({ content: [{ type: 'text' as const, text: 'ok' }] })));
  client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 });
});
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.dispose();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function runtimeWith(options: ToolRuntimeOptions = {}): Promise<ToolRuntime> {
  const runtime = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, 'session'), settings: { sources: [] }, ...options });
  open.push(runtime);
  return runtime;
}

/** The body of the request one `query()` sends. */
async function requestOf(runtime: ToolRuntime, prompt: QueryOptions['prompt'] = 'hi'): Promise<any> {
  const before = server.messageRequests.length;
  for await (const event of query({ runtime, client, prompt, model: 'claude-sonnet-4-6', persistSession: false })) void event;
  return server.messageRequests[before]!.body;
}

function mcp(alwaysLoad: boolean): McpClientManager {
  const manager = new McpClientManager({ cwd: dir, servers: scoped({ fx: { ...nodeServer(FIXTURE_SERVER), ...(alwaysLoad ? { alwaysLoad: true } : {}) } }) });
  open.push(manager);
  return manager;
}

const marked = (tools: { name: string; cache_control?: unknown }[]) => tools.flatMap((t) => (t.cache_control ? [t.name] : []));
/** Every cache_control in a request: tools, system blocks, message blocks (and blocks inside tool results). */
function breakpoints(body: any): number {
  const count = (x: unknown): number =>
    Array.isArray(x) ? x.reduce((n: number, y) => n + count(y), 0) : x && typeof x === 'object' ? (('cache_control' in x && (x as any).cache_control ? 1 : 0) + count((x as any).content)) : 0;
  return count(body.tools) + count(body.system) + count(body.messages);
}
/** The tools up to and including the last built-in's breakpoint: the prefix the cache keeps for the built-ins. */
function builtInPrefix(body: any, lastBuiltIn: string): string {
  const tools = body.tools as { name: string }[];
  return JSON.stringify(tools.slice(0, tools.findIndex((t) => t.name === lastBuiltIn) + 1));
}

const extraTool = buildTool({
  name: 'zz_deploy',
  inputSchema: z.object({ target: z.string() }),
  maxResultSizeChars: 10_000,
  prompt: async () => 'Deploys the project.',
  call: async () => ({ data: 'deployed' }),
});

describe('prompt-cache breakpoints', { timeout: 120_000 }, () => {
  it('one on the last tool when there are only built-ins; a second after the last built-in once an MCP server or an extra tool joins', async () => {
    const plain = await requestOf(await runtimeWith());
    const lastBuiltIn = plain.tools.at(-1).name as string;
    expect(marked(plain.tools)).toEqual([lastBuiltIn]);
    expect(breakpoints(plain)).toBe(3);

    // A non-deferred MCP server (alwaysLoad), a real one: its tools after the built-ins, two tool breakpoints.
    const withMcp = await requestOf(await runtimeWith({ toolProviders: [mcp(true).toolProvider()] }));
    const mcpNames = (withMcp.tools as { name: string }[]).map((t) => t.name).filter((n) => n.startsWith('mcp__fx__'));
    expect(mcpNames.length).toBeGreaterThan(1);
    expect(marked(withMcp.tools)).toEqual([lastBuiltIn, mcpNames.at(-1)]);
    expect(breakpoints(withMcp)).toBe(4);
    // The built-ins' prefix, breakpoint included, is the same bytes with or without the server: not billed again.
    expect(builtInPrefix(withMcp, lastBuiltIn)).toBe(builtInPrefix(plain, lastBuiltIn));

    const withExtra = await requestOf(await runtimeWith({ tools: [extraTool] }));
    expect(marked(withExtra.tools)).toEqual([lastBuiltIn, 'zz_deploy']);
    expect(builtInPrefix(withExtra, lastBuiltIn)).toBe(builtInPrefix(plain, lastBuiltIn));
  });

  it('deferred MCP tools are not in the prefix: no breakpoint goes on one, and the built-ins keep theirs', async () => {
    const plain = await requestOf(await runtimeWith());
    const lastBuiltIn = plain.tools.at(-1).name as string;
    // MCP tools are deferred by default; the fixture's `plain` tool asks to be loaded up front (`anthropic/alwaysLoad`).
    const body = await requestOf(await runtimeWith({ toolProviders: [mcp(false).toolProvider()] }));
    const tools = body.tools as { name: string; defer_loading?: boolean; cache_control?: unknown }[];
    const deferred = tools.filter((t) => t.defer_loading === true && t.name.startsWith('mcp__fx__'));
    expect(deferred.length).toBeGreaterThan(0);
    expect(deferred.every((t) => t.cache_control === undefined)).toBe(true);
    const lastInPrefix = tools.filter((t) => t.defer_loading !== true).at(-1)!.name;
    expect(lastInPrefix).toBe('mcp__fx__plain');
    expect(marked(body.tools)).toEqual([lastBuiltIn, 'mcp__fx__plain']);
    expect(builtInPrefix(body, lastBuiltIn)).toBe(builtInPrefix(plain, lastBuiltIn));
  });

  it('breakpoints a handed-in conversation carries are dropped: the request keeps the API limit of four', async () => {
    const conversation: MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'first question', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'first answer', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
    ];
    const body = await requestOf(await runtimeWith({ tools: [extraTool] }), conversation);
    expect(breakpoints(body)).toBe(4);
    expect(body.messages[0].content[0].cache_control).toBeUndefined();
    expect(body.messages[1].content[0].cache_control).toBeUndefined();
    expect(body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    // The caller's messages were copied, not changed.
    expect(conversation[0]!.content).toEqual([{ type: 'text', text: 'first question', cache_control: { type: 'ephemeral' } }]);
  });
});
