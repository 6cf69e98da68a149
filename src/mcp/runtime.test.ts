/**
 * The MCP layer plugged into `createToolRuntime` as a tool provider: tools in the pool after the built-ins, rules from
 * the runtime's settings, `tools/list_changed` picked up by `refreshTools()`, elicitation through `onQuestion`
 * (headless: declined), and `--permission-prompt-tool` deciding for a headless run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../agent/create-tool-runtime.js';
import type { QuestionRequest, ToolRuntime, ToolRuntimeOptions } from '../agent/types.js';
import type { ToolUseBlock } from '../tool/tool.js';
import { McpClientManager } from './manager.js';
import { createPermissionPromptTool } from './permission-prompt-tool.js';
import { EVERYTHING_SERVER, FIXTURE_SERVER, nodeServer, scoped } from './test-helpers/servers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcprt-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open: { dispose(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.dispose();
});

async function runtimeWith(manager: McpClientManager, extra: Partial<ToolRuntimeOptions> = {}): Promise<ToolRuntime> {
  const runtime = await createToolRuntime({
    cwd: dir,
    settings: { sources: [] },
    sessionDir: path.join(dir, 'session'),
    toolProviders: [manager.toolProvider()],
    services: { mcpResources: manager.resourceService },
    ...extra,
  });
  open.push(runtime);
  return runtime;
}

let n = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_rt${++n}`, name, input }) as ToolUseBlock;
const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));

describe('MCP tools in the runtime', { timeout: 180_000 }, () => {
  it('the pool is built-ins then MCP tools; rules from the runtime decide; list_changed reaches refreshTools()', async () => {
    const changed: string[] = [];
    const manager = new McpClientManager({ cwd: dir, servers: scoped({ fx: nodeServer(FIXTURE_SERVER) }), onToolsChanged: (s) => changed.push(s) });
    const runtime = await runtimeWith(manager, { rules: { allow: ['mcp__fx'] } });
    const names = runtime.tools.map((t) => t.name);
    const firstMcp = names.findIndex((x) => x.startsWith('mcp__'));
    expect(firstMcp).toBeGreaterThan(0);
    expect(names.slice(firstMcp).every((x) => x.startsWith('mcp__'))).toBe(true);
    const defs = await runtime.definitions();
    expect(defs.find((d) => d.name === 'mcp__fx__read-thing')?.input_schema).toMatchObject({ type: 'object', properties: { id: { type: 'string' } } });

    const r = await runtime.run([use('mcp__fx__read-thing', { id: '1' }), use('mcp__fx__add-tool', {})]);
    expect(r.results.map((x) => x.is_error ?? false)).toEqual([false, false]);
    await expect.poll(() => changed).toContain('fx');
    expect(runtime.findTool('mcp__fx__added')).toBeUndefined();
    await runtime.refreshTools();
    expect(runtime.findTool('mcp__fx__added')).toBeDefined();
    const after = await runtime.run([use('mcp__fx__added', {})]);
    expect(text(after.results[0]?.content)).toContain('the added tool ran');
  });

  it('elicitation goes to onQuestion; headless it is declined', async () => {
    const questions: QuestionRequest[] = [];
    const onQuestion = async (q: QuestionRequest) => {
      questions.push(q);
      return { action: 'accept' as const, content: { name: 'Ada', check: true, email: 'ada@example.com' } };
    };
    const asked = new McpClientManager({ cwd: dir, servers: scoped({ everything: nodeServer(EVERYTHING_SERVER, ['stdio']) }), onQuestion });
    const runtime = await runtimeWith(asked, { rules: { allow: ['mcp__everything'] }, onQuestion });
    await runtime.refreshTools(); // the elicitation tool is registered once the server knows our capabilities
    const r = await runtime.run([use('mcp__everything__trigger-elicitation-request', {})]);
    expect(r.results[0]?.is_error).toBeFalsy();
    expect(questions[0]).toMatchObject({ kind: 'elicitation', message: expect.stringContaining('MCP server "everything" asks') });
    expect(questions[0]?.schema).toMatchObject({ type: 'object' });
    expect(text(r.results[0]?.content)).toContain('Ada');

    const headless = new McpClientManager({ cwd: dir, servers: scoped({ everything: nodeServer(EVERYTHING_SERVER, ['stdio']) }) });
    const rt2 = await runtimeWith(headless, { rules: { allow: ['mcp__everything'] } });
    await rt2.refreshTools();
    const declined = await rt2.run([use('mcp__everything__trigger-elicitation-request', {})]);
    expect(text(declined.results[0]?.content)).toMatch(/declin/i);
  });

  it('--permission-prompt-tool: an MCP tool decides what would have asked (allow, deny, broken answer)', async () => {
    const manager = new McpClientManager({ cwd: dir, servers: scoped({ fx: nodeServer(FIXTURE_SERVER) }) });
    const runtime = await runtimeWith(manager, { onPermissionRequest: createPermissionPromptTool(manager, 'mcp__fx__decide') });
    const file = path.join(dir, 'written.txt');
    const ok = await runtime.run([use('Write', { file_path: file, content: 'fine' })]);
    expect(ok.results[0]?.is_error, text(ok.results[0]?.content)).toBeFalsy();
    expect(readFileSync(file, 'utf8')).toBe('fine');
    const no = await runtime.run([use('Write', { file_path: path.join(dir, 'no.txt'), content: 'forbidden' })]);
    expect(no.results[0]?.is_error).toBe(true);
    expect(text(no.results[0]?.content)).toContain('the prompt tool said no');

    const broken = await runtimeWith(manager, { onPermissionRequest: createPermissionPromptTool(manager, 'mcp__fx__plain') });
    const b = await broken.run([use('Write', { file_path: path.join(dir, 'b.txt'), content: 'x' })]);
    expect(b.results[0]?.is_error).toBe(true);
    expect(text(b.results[0]?.content)).toContain('other than JSON');
    const missing = await runtimeWith(manager, { onPermissionRequest: createPermissionPromptTool(manager, 'mcp__fx__nope') });
    const m = await missing.run([use('Write', { file_path: path.join(dir, 'm.txt'), content: 'x' })]);
    expect(text(m.results[0]?.content)).toContain('no MCP tool named mcp__fx__nope');
  });
  it('hook matchers name MCP tools as they name built-ins', async () => {
    const deny = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no fx reads today' } });
    const manager = new McpClientManager({ cwd: dir, servers: scoped({ fx: nodeServer(FIXTURE_SERVER) }) });
    const runtime = await runtimeWith(manager, {
      rules: { allow: ['mcp__fx'] },
      settings: {
        sources: [],
        object: { hooks: { PreToolUse: [{ matcher: 'mcp__fx__read.*', hooks: [{ type: 'command', command: `echo '${deny}'` }] }] } },
      },
    });
    const r = await runtime.run([use('mcp__fx__read-thing', { id: '1' }), use('mcp__fx__plain', { text: 'ok' })]);
    expect(r.results[0]?.is_error).toBe(true);
    expect(text(r.results[0]?.content)).toContain('no fx reads today');
    expect(text(r.results[1]?.content)).toContain('plain: ok');
  });
});
