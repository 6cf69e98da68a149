/**
 * The MCP client against real servers started here: server-everything from npm (tools, structured output, images,
 * embedded resources, progress, resources) and the fixture server (crash, list change, annotations, timeouts,
 * cancellation, large output). Calls go through the real pipeline and the real permission engine.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runToolUse } from '../execution/pipeline.js';
import { createCanUseTool } from '../permissions/can-use-tool.js';
import { createPermissionContext } from '../permissions/permission-context.js';
import type { PermissionMode, PermissionRule } from '../tool/permission-types.js';
import type { AnyTool, ToolProgress, ToolUseBlock, Tools } from '../tool/tool.js';
import { createToolUseContext } from '../tool/tool-use-context.js';
import { sharedAbortListenerCount } from '../tool/shared-abort-listener.js';
import { McpClientManager } from './manager.js';
import { EVERYTHING_SERVER, FIXTURE_SERVER, nodeServer, scoped } from './test-helpers/servers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const managers: McpClientManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
});

function manager(servers: Parameters<typeof scoped>[0], extra: Partial<ConstructorParameters<typeof McpClientManager>[0]> = {}): McpClientManager {
  const m = new McpClientManager({ cwd: dir, servers: scoped(servers), env: { ...process.env, ...(extra.env ?? {}) }, ...extra });
  managers.push(m);
  return m;
}

function rule(text: string, behavior: PermissionRule['ruleBehavior']): PermissionRule {
  return { source: 'localSettings', ruleBehavior: behavior, ruleValue: { toolName: text } };
}

let ids = 0;
const useBlock = (id: string, name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id, name, input }) as ToolUseBlock;
async function run(
  tools: Tools,
  name: string,
  input: Record<string, unknown>,
  options: { allow?: string[]; deny?: string[]; ask?: string[]; mode?: PermissionMode; signal?: AbortController; progress?: ToolProgress[] } = {},
) {
  const permissionContext = createPermissionContext({
    cwd: dir,
    mode: options.mode ?? 'default',
    rules: [
      ...(options.allow ?? []).map((r) => rule(r, 'allow')),
      ...(options.deny ?? []).map((r) => rule(r, 'deny')),
      ...(options.ask ?? []).map((r) => rule(r, 'ask')),
    ],
  });
  const context = createToolUseContext({ tools, permissionContext, sessionDir: dir, abortController: options.signal });
  const block = useBlock(`toolu_${++ids}`, name, input);
  return runToolUse(block, { role: 'assistant', content: [block] }, createCanUseTool(), context, {
    onProgress: (p) => options.progress?.push(p),
  });
}

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((b: { type: string; text?: string }) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n') : '';
const find = (tools: Tools, name: string): AnyTool => {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name} in ${tools.map((x) => x.name).join(', ')}`);
  return t;
};

// Real servers on a shared two-core machine: generous safety nets, no timing assertions.
describe('server-everything (npm) through the pipeline', { timeout: 180_000 }, () => {
  // One server for the group: starting it is the slow part.
  let shared: McpClientManager;
  let everythingTools: Tools;
  beforeAll(async () => {
    shared = new McpClientManager({ cwd: os.tmpdir(), servers: scoped({ everything: nodeServer(EVERYTHING_SERVER, ['stdio']) }) });
    everythingTools = await shared.getTools();
  });
  afterAll(() => shared.dispose());
  it('names, schemas and traits come from the server', async () => {
    const tools = everythingTools;
    const echo = find(tools, 'mcp__everything__echo');
    expect(echo.isMcp).toBe(true);
    expect(echo.mcpInfo).toEqual({ serverName: 'everything', toolName: 'echo' });
    expect(echo.inputJSONSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(echo.isReadOnly({})).toBe(true);
    expect(echo.isConcurrencySafe({})).toBe(true);
    expect(find(tools, 'mcp__everything__get-sum').name).toBe('mcp__everything__get-sum');
    // The server has resources, so the resource tools come with it.
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['ListMcpResources', 'ReadMcpResource']));
  });

  it('many calls under one long-lived signal leave no listener on it and raise no MaxListenersExceededWarning', async () => {
    const echo = find(everythingTools, 'mcp__everything__echo');
    const outer = new AbortController();
    const context = createToolUseContext({ tools: everythingTools, permissionContext: createPermissionContext({ cwd: dir }), sessionDir: dir, abortController: outer });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 25; i++) await echo.call({ message: `m${i}` }, context, async () => ({ behavior: 'allow' }), { role: 'assistant', content: [] });
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(sharedAbortListenerCount(outer.signal)).toBe(0);
  });

  it('asks before a first call (headless: denied, naming the rule), runs with an allow rule', async () => {
    const tools = everythingTools;
    const denied = await run(tools, 'mcp__everything__echo', { message: 'hi' });
    expect(denied.result.is_error).toBe(true);
    expect(text(denied.result.content)).toContain('mcp__everything__echo');
    for (const allow of ['mcp__everything', 'mcp__everything__*', 'mcp__everything__echo']) {
      const ok = await run(tools, 'mcp__everything__echo', { message: 'hi' }, { allow: [allow] });
      expect(ok.result.is_error, allow).toBeFalsy();
      expect(text(ok.result.content)).toBe('Echo: hi');
    }
  });

  it('deny rules in every form take the call away', async () => {
    const tools = everythingTools;
    for (const deny of ['mcp__everything', 'mcp__everything__*', 'mcp__everything__echo', 'mcp__*']) {
      const r = await run(tools, 'mcp__everything__echo', { message: 'hi' }, { allow: ['mcp__everything'], deny: [deny] });
      expect(r.result.is_error, deny).toBe(true);
      expect(text(r.result.content)).toContain('denied');
    }
    // Another server's rule does not touch this one.
    const other = await run(tools, 'mcp__everything__echo', { message: 'x' }, { allow: ['mcp__everything'], deny: ['mcp__every'] });
    expect(other.result.is_error).toBeFalsy();
  });

  it('structured content reaches the model; images come back as image blocks; embedded resources as text', async () => {
    const tools = everythingTools;
    const allow = ['mcp__everything'];
    const weather = await run(tools, 'mcp__everything__get-structured-content', { location: 'Chicago' }, { allow });
    expect(weather.result.is_error).toBeFalsy();
    expect(JSON.parse(text(weather.result.content))).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    const image = await run(tools, 'mcp__everything__get-tiny-image', {}, { allow });
    const blocks = image.result.content as { type: string; source?: { media_type: string; data: string } }[];
    const img = blocks.find((b) => b.type === 'image');
    expect(img?.source?.media_type).toBe('image/png');
    expect(Buffer.from(img!.source!.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const resource = await run(tools, 'mcp__everything__get-resource-reference', { resourceType: 'Text', resourceId: 3 }, { allow });
    expect(text(resource.result.content)).toContain('demo://resource/dynamic/text/3');
  });

  it('progress notifications reach the pipeline while a long call runs', async () => {
    const tools = everythingTools;
    const progress: ToolProgress[] = [];
    const r = await run(tools, 'mcp__everything__trigger-long-running-operation', { duration: 0.6, steps: 3 }, { allow: ['mcp__everything'], progress });
    expect(r.result.is_error).toBeFalsy();
    // The SDK hands notifications over a microtask later than responses, so the last one may lose the race with the
    // result when both arrive in one read: at least the earlier steps arrive, in order.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    progress.forEach((p, i) => expect(p.data).toEqual(expect.objectContaining({ type: 'mcp_progress', progress: i + 1, total: 3 })));
    expect(progress.every((p) => p.toolUseID === r.toolUseId)).toBe(true);
  });

  it('ListMcpResources and ReadMcpResource reach the server through services', async () => {
    const m = shared;
    const tools = everythingTools;
    const permissionContext = createPermissionContext({ cwd: dir });
    const context = createToolUseContext({ tools, permissionContext, sessionDir: dir, services: { mcpResources: m.resourceService } });
    const listBlock = useBlock('toolu_list', 'ListMcpResources', {});
    const list = await runToolUse(listBlock, { role: 'assistant', content: [listBlock] }, createCanUseTool(), context);
    expect(list.result.is_error).toBeFalsy();
    const resources = JSON.parse(text(list.result.content)) as { server: string; uri: string }[];
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every((r) => r.server === 'everything')).toBe(true);
    const uri = resources.find((r) => r.uri.startsWith('demo://resource/static/document/'))!.uri;
    const readBlock = useBlock('toolu_read', 'ReadMcpResource', { server: 'everything', uri });
    const read = await runToolUse(readBlock, { role: 'assistant', content: [readBlock] }, createCanUseTool(), context);
    expect(read.result.is_error).toBeFalsy();
    expect(text(read.result.content).length).toBeGreaterThan(20);
    const badBlock = useBlock('toolu_bad', 'ReadMcpResource', { server: 'nope', uri });
    const bad = await runToolUse(badBlock, { role: 'assistant', content: [badBlock] }, createCanUseTool(), context);
    expect(text(bad.result.content)).toContain('No MCP server named "nope"');
  });
});

describe('the fixture server: traits, errors, timeouts, crash, list change', { timeout: 180_000 }, () => {
  const fixture = (env: Record<string, string> = {}) => ({ fx: nodeServer(FIXTURE_SERVER, [], env) });

  it('destructiveHint asks even with a server-wide allow rule; a rule naming the tool runs it', async () => {
    const tools = await manager(fixture()).getTools();
    const t = find(tools, 'mcp__fx__delete-everything');
    expect(t.isDestructive({})).toBe(true);
    const serverWide = await run(tools, 'mcp__fx__delete-everything', {}, { allow: ['mcp__fx'] });
    expect(serverWide.result.is_error).toBe(true);
    expect(text(serverWide.result.content)).toContain('destructive');
    expect(text(serverWide.result.content)).toContain('"mcp__fx__delete-everything"');
    const acceptEdits = await run(tools, 'mcp__fx__delete-everything', {}, { allow: ['mcp__fx__*'], mode: 'acceptEdits' });
    expect(acceptEdits.result.is_error).toBe(true);
    const named = await run(tools, 'mcp__fx__delete-everything', {}, { allow: ['mcp__fx__delete-everything'] });
    expect(text(named.result.content)).toBe('deleted everything');
    // A deny still beats the naming allow rule.
    const denied = await run(tools, 'mcp__fx__delete-everything', {}, { allow: ['mcp__fx__delete-everything'], deny: ['mcp__fx'] });
    expect(denied.result.is_error).toBe(true);
  });

  it('alwaysLoad from _meta; plan mode lets read-only tools through and stops the rest', async () => {
    const tools = await manager(fixture()).getTools();
    expect(find(tools, 'mcp__fx__plain').alwaysLoad).toBe(true);
    expect(find(tools, 'mcp__fx__read-thing').alwaysLoad).toBeUndefined();
    const read = await run(tools, 'mcp__fx__read-thing', { id: '7' }, { allow: ['mcp__fx'], mode: 'plan' });
    expect(text(read.result.content)).toContain('thing 7');
    const plain = await run(tools, 'mcp__fx__plain', {}, { allow: ['mcp__fx'], mode: 'plan' });
    expect(plain.result.is_error).toBe(true);
  });

  it('structuredContent that breaks the outputSchema is an error result; a good one is shown', async () => {
    const tools = await manager(fixture()).getTools();
    const bad = await run(tools, 'mcp__fx__bad-structured', {}, { allow: ['mcp__fx'] });
    expect(bad.result.is_error).toBe(true);
    expect(text(bad.result.content)).toContain("output schema");
    const good = await run(tools, 'mcp__fx__good-structured', {}, { allow: ['mcp__fx'] });
    expect(good.result.is_error).toBeFalsy();
    expect(text(good.result.content)).toBe('{"n":42}');
    const failed = await run(tools, 'mcp__fx__fail', {}, { allow: ['mcp__fx'] });
    expect(failed.result.is_error).toBe(true);
    expect(text(failed.result.content)).toContain('it went wrong');
  });

  it('MCP_TOOL_TIMEOUT: silence times out with the value named; progress keeps the call alive', async () => {
    const tools = await manager(fixture(), { env: { MCP_TOOL_TIMEOUT: '400' } }).getTools();
    const silent = await run(tools, 'mcp__fx__slow', { ms: 1500, every: 0 }, { allow: ['mcp__fx'] });
    expect(silent.result.is_error).toBe(true);
    expect(text(silent.result.content)).toContain('MCP_TOOL_TIMEOUT=400');
    const chatty = await run(tools, 'mcp__fx__slow', { ms: 1500, every: 100 }, { allow: ['mcp__fx'] });
    expect(chatty.result.is_error).toBeFalsy();
    expect(text(chatty.result.content)).toContain('slow done');
  });

  it('MCP_TIMEOUT: a server that never answers the handshake fails with the value named', async () => {
    const m = manager({ mute: { type: 'stdio', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {} } }, { env: { MCP_TIMEOUT: '300' } });
    expect(await m.getTools()).toEqual([]);
    const [status] = await m.status();
    expect(status?.state).toBe('failed');
    expect(status?.error).toContain('MCP_TIMEOUT=300');
  });

  it('an abort sends notifications/cancelled: the server sees it and the call ends', async () => {
    const marker = path.join(dir, 'cancel-marker');
    const tools = await manager(fixture({ FIXTURE_MARKER: marker })).getTools();
    const abort = new AbortController();
    const pending = run(tools, 'mcp__fx__wait-cancel', {}, { allow: ['mcp__fx'], signal: abort });
    await new Promise((r) => setTimeout(r, 200));
    abort.abort();
    const r = await pending;
    expect(r.result.is_error).toBe(true);
    await expect.poll(() => existsSync(marker), { timeout: 10_000 }).toBe(true);
    expect(readFileSync(marker, 'utf8')).toBe('cancelled');
  });

  it('a result above MAX_MCP_OUTPUT_TOKENS is persisted and previewed', async () => {
    const tools = await manager(fixture(), { env: { MAX_MCP_OUTPUT_TOKENS: '1000' } }).getTools();
    expect(find(tools, 'mcp__fx__big').maxResultSizeChars).toBe(4000);
    const r = await run(tools, 'mcp__fx__big', { chars: 10_000 }, { allow: ['mcp__fx'] });
    expect(r.result.is_error).toBeFalsy();
    expect(text(r.result.content)).toContain('persisted-output');
    expect(r.persistedPath && readFileSync(r.persistedPath, 'utf8')).toBe('x'.repeat(10_000));
  });

  it('tools/list_changed: the next getTools() has the new tool; the callback fires', async () => {
    const changed: string[] = [];
    const m = manager(fixture(), { onToolsChanged: (s) => changed.push(s) });
    const before = await m.getTools();
    expect(before.map((t) => t.name)).not.toContain('mcp__fx__added');
    await run(before, 'mcp__fx__add-tool', {}, { allow: ['mcp__fx'] });
    await expect.poll(() => changed).toEqual(['fx']);
    const after = await m.getTools();
    const r = await run(after, 'mcp__fx__added', {}, { allow: ['mcp__fx'] });
    expect(text(r.result.content)).toBe('the added tool ran');
    // Unchanged servers keep their tool objects (a stable pool).
    expect(after.find((t) => t.name === 'mcp__fx__plain')).not.toBe(before.find((t) => t.name === 'mcp__fx__plain'));
    expect((await m.getTools()).find((t) => t.name === 'mcp__fx__plain')).toBe(after.find((t) => t.name === 'mcp__fx__plain'));
  });

  it('a crashed stdio server is reported, then restarted on the next use', async () => {
    const events: string[] = [];
    const m = manager(fixture(), { onServerEvent: (e) => events.push(`${e.type}:${e.server}`) });
    const tools = await m.getTools();
    const first = await run(tools, 'mcp__fx__read-thing', { id: 'a' }, { allow: ['mcp__fx'] });
    const pid1 = /pid (\d+)/.exec(text(first.result.content))?.[1];
    const crash = await run(tools, 'mcp__fx__crash', {}, { allow: ['mcp__fx'] });
    expect(crash.result.is_error).toBe(true);
    expect(text(crash.result.content)).toMatch(/MCP server "fx" (exited|closed)/);
    await expect.poll(() => events).toContain('failed:fx');
    expect((await m.status())[0]?.state).toBe('failed');
    const again = await run(tools, 'mcp__fx__read-thing', { id: 'b' }, { allow: ['mcp__fx'] });
    expect(again.result.is_error).toBeFalsy();
    const pid2 = /pid (\d+)/.exec(text(again.result.content))?.[1];
    expect(pid2).toBeDefined();
    expect(pid2).not.toBe(pid1);
  });
});
