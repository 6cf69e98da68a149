/**
 * `canUseTool`, `hooks`, in-process and stdio MCP servers and custom agents through `toolgate/agent-sdk`, against the
 * scripted server with the real Anthropic SDK: the Agent SDK's call shapes and answers, and toolgate's permission
 * engine in front of every tool, the program's own MCP tools included.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createSdkMcpServer, tool, type HookInput, type PermissionUpdate } from 'toolgate/agent-sdk';
import { FIXTURE_SERVER } from '../src/mcp/test-helpers/servers.js';
import type { RecordedRequest } from 'toolgate/testing';
import { call, harness, resultOf, text, toolResults, type Harness } from './helpers/agent-sdk-session.js';

let h: Harness | undefined;
/** The session's folder (the scripted turn runs after the harness exists). */
const dirOf = (_request: RecordedRequest) => h!.dir;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('canUseTool', () => {
  it('is told the call’s risk in its description; a destructive call comes with no "always allow" suggestion', async () => {
    const file = (r: RecordedRequest) => path.join(dirOf(r), 'x.txt');
    h = await harness([
      (r) => (writeFileSync(file(r), 'old\n'), call('Read', { file_path: file(r) })),
      (r) => call('Write', { file_path: file(r), content: 'new\n' }),
      (r) => call('Write', { file_path: path.join(dirOf(r), 'fresh.txt'), content: 'new\n' }),
      text('ok'),
    ]);
    const asked: { description?: string; suggestions?: PermissionUpdate[] }[] = [];
    await h.run('overwrite', {
      canUseTool: async (_name, _input, options) => {
        asked.push({ description: options.description, suggestions: options.suggestions });
        return { behavior: 'allow' };
      },
    });
    expect(asked).toHaveLength(2);
    expect(asked[0]!.description).toMatch(/^Risk: destructive — DESTRUCTIVE/);
    expect(asked[0]!.suggestions).toEqual([]);
    expect(asked[1]!.description).toMatch(/^Risk: writes-in-project/);
    expect(asked[1]!.suggestions).toContainEqual({ type: 'setMode', mode: 'acceptEdits', destination: 'session' });
    expect(readFileSync(path.join(h.dir, 'x.txt'), 'utf8')).toBe('new\n');
  });

  it('is shown a simulable sed -i as the edit it makes (in its description), and the approved edit is what is written', async () => {
    h = await harness([(r) => (writeFileSync(path.join(dirOf(r), 'x.txt'), 'old\nkeep\n'), call('Bash', { command: "sed -i 's/old/new/' x.txt" })), text('ok')]);
    const asked: (string | undefined)[] = [];
    await h.run('edit', {
      canUseTool: async (_name, input, options) => {
        asked.push(options.description);
        return { behavior: 'allow', updatedInput: input };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('sed edits x.txt\n-old\n+new\n keep');
    expect(readFileSync(path.join(h.dir, 'x.txt'), 'utf8')).toBe('new\nkeep\n');
  });

  it('is asked with the tool, its input, the call id and suggestions; its updatedInput is what runs', async () => {
    h = await harness([(r) => call('Write', { file_path: path.join(dirOf(r), 'x.txt'), content: 'from the model' }), text('ok')]);
    const asked: { name: string; input: Record<string, unknown>; toolUseID: string; suggestions?: PermissionUpdate[] }[] = [];
    const { messages } = await h.run('write', {
      canUseTool: async (name, input, options) => {
        asked.push({ name, input, toolUseID: options.toolUseID, ...(options.suggestions ? { suggestions: options.suggestions } : {}) });
        expect(options.signal).toBeInstanceOf(AbortSignal);
        return { behavior: 'allow', updatedInput: { ...input, content: 'from canUseTool' } };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ name: 'Write', input: { file_path: path.join(h.dir, 'x.txt'), content: 'from the model' } });
    expect(asked[0]!.toolUseID).toMatch(/^toolu_/);
    expect(asked[0]!.suggestions).toContainEqual({ type: 'setMode', mode: 'acceptEdits', destination: 'session' });
    expect(readFileSync(path.join(h.dir, 'x.txt'), 'utf8')).toBe('from canUseTool');
    expect(resultOf(messages).permission_denials).toEqual([]);
  });

  it('a deny reaches the model with its message and is listed in permission_denials', async () => {
    h = await harness([call('Write', { file_path: 'x.txt', content: 'x' }), text('ok')]);
    const { messages } = await h.run('write', { canUseTool: async () => ({ behavior: 'deny', message: 'no writes today' }) });
    expect(toolResults(messages)[0]).toContain('no writes today');
    expect(resultOf(messages).permission_denials).toEqual([{ tool_name: 'Write', tool_use_id: expect.stringMatching(/^toolu_/), tool_input: { file_path: 'x.txt', content: 'x' } }]);
    expect(messages.some((m) => m.type === 'system' && m.subtype === 'permission_denied')).toBe(false);
    expect(existsSync(path.join(h.dir, 'x.txt'))).toBe(false);
  });

  it('deny with interrupt ends the turn: no further request is sent', async () => {
    h = await harness([call('Write', { file_path: 'x.txt', content: 'x' }), text('never')]);
    const { messages, error } = await h.run('write', { canUseTool: async () => ({ behavior: 'deny', message: 'stop', interrupt: true }) });
    expect(resultOf(messages)).toMatchObject({ subtype: 'error_during_execution', terminal_reason: 'aborted_tools' });
    expect(h.server.messageRequests).toHaveLength(1);
    expect(String(error)).toMatch(/^Error: Claude Code returned an error result/);
  });

  it('updatedPermissions apply to the session: the next such call is not asked again', async () => {
    const bash = (c: string) => call('Bash', { command: c, description: c });
    h = await harness([bash('touch one && echo one'), bash('touch one && echo one'), text('ok')]);
    let asked = 0;
    const { messages } = await h.run('twice', {
      canUseTool: async (_name, _input, { suggestions }) => {
        asked++;
        return { behavior: 'allow', updatedPermissions: (suggestions ?? []).map((s) => ({ ...s, destination: 'session' as const })) };
      },
    });
    expect(asked).toBe(1);
    expect(toolResults(messages)).toEqual(['one', 'one']);
  });

  it('a callback that throws denies the call (fail closed)', async () => {
    h = await harness([call('Write', { file_path: 'x.txt', content: 'x' }), text('ok')]);
    const { messages } = await h.run('write', {
      canUseTool: async () => {
        throw new Error('broken handler');
      },
    });
    expect(toolResults(messages)[0]).toContain('broken handler');
    expect(existsSync(path.join(h.dir, 'x.txt'))).toBe(false);
  });

  it('without canUseTool the session is headless: a call no rule allows is denied, with a permission_denied message', async () => {
    h = await harness([call('Write', { file_path: 'x.txt', content: 'x' }), text('ok')]);
    const { messages } = await h.run('write');
    const denied = messages.find((m) => m.type === 'system' && m.subtype === 'permission_denied');
    expect(denied).toMatchObject({ tool_name: 'Write', tool_use_id: expect.any(String), message: expect.any(String) });
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(['Write']);
  });
});

describe('hooks', () => {
  it('callbacks get the Agent SDK input objects and the call id; a PreToolUse deny stops the call', async () => {
    h = await harness([(r) => call('Write', { file_path: path.join(dirOf(r), 'x.txt'), content: 'x' }), text('ok')]);
    const seen: { input: HookInput; id: string | undefined }[] = [];
    const { messages } = await h.run('write', {
      allowedTools: ['Write'],
      hooks: {
        PreToolUse: [{ matcher: 'Write', hooks: [async (input, id) => (seen.push({ input, id }), { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'hook says no' } })] }],
        UserPromptSubmit: [{ hooks: [async (input) => (seen.push({ input, id: undefined }), { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'CONTEXT FROM HOOK' } })] }],
        SessionStart: [{ hooks: [async (input) => (seen.push({ input, id: undefined }), {})] }],
        Stop: [{ hooks: [async (input) => (seen.push({ input, id: undefined }), {})] }],
      },
    });
    const events = seen.map((s) => s.input.hook_event_name);
    expect(events).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'Stop']);
    const pre = seen.find((s) => s.input.hook_event_name === 'PreToolUse')!;
    expect(pre.input).toMatchObject({ tool_name: 'Write', tool_input: { file_path: path.join(h.dir, 'x.txt'), content: 'x' }, cwd: h.dir, session_id: expect.any(String) });
    expect(pre.id).toBe((pre.input as { tool_use_id: string }).tool_use_id);
    expect(toolResults(messages)[0]).toContain('hook says no');
    expect(existsSync(path.join(h.dir, 'x.txt'))).toBe(false);
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(['Write']);
    expect(JSON.stringify(h.server.messageRequests[0]!.body.messages)).toContain('CONTEXT FROM HOOK');
  });

  it("a matcher limits a hook to its tools; PostToolUse sees the tool's response", async () => {
    h = await harness([call('Bash', { command: 'echo hi', description: 'hi' }), text('ok')]);
    const post: HookInput[] = [];
    let readHook = 0;
    await h.run('run', {
      allowedTools: ['Bash'],
      hooks: {
        PreToolUse: [{ matcher: 'Read', hooks: [async () => (readHook++, {})] }],
        PostToolUse: [{ matcher: 'Bash', hooks: [async (input) => (post.push(input), {})] }],
      },
    });
    expect(readHook).toBe(0);
    expect(post).toHaveLength(1);
    expect(post[0]).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: expect.objectContaining({ stdout: 'hi\n', exitCode: 0 }) });
  });

  it('a hook that times out with onFailure: block blocks the call (fail closed)', async () => {
    h = await harness([call('Write', { file_path: 'x.txt', content: 'x' }), text('ok')]);
    await h.run('write', {
      allowedTools: ['Write'],
      hooks: { PreToolUse: [{ timeout: 0.2, onFailure: 'block', hooks: [() => new Promise(() => {})] }] },
    });
    expect(existsSync(path.join(h.dir, 'x.txt'))).toBe(false);
  });
});

describe('MCP servers', () => {
  const adder = () =>
    createSdkMcpServer({
      name: 'calc',
      version: '1.0.0',
      tools: [tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))],
    });

  it('an in-process server\'s tools are mcp__<server>__<tool>, run behind the permission engine', async () => {
    h = await harness([call('mcp__calc__add', { a: 2, b: 3 }), text('five'), call('mcp__calc__add', { a: 2, b: 3 }), text('denied')]);
    const server = adder();
    const allowed = await h.run('add', { mcpServers: { calc: server }, allowedTools: ['mcp__calc__add'], env: { ENABLE_TOOL_SEARCH: 'false' } });
    const init = allowed.messages[0] as { mcp_servers: unknown[]; tools: string[] };
    expect(init.mcp_servers).toEqual([{ name: 'calc', status: 'connected', source: 'sdk' }]);
    expect(init.tools).toContain('mcp__calc__add');
    expect(toolResults(allowed.messages)[0]).toContain('5');
    // The same server object serves another session; there, no rule allows the tool and nobody can be asked.
    const denied = await h.run('add', { mcpServers: { calc: server }, env: { ENABLE_TOOL_SEARCH: 'false' } });
    expect(resultOf(denied.messages).permission_denials.map((d) => d.tool_name)).toEqual(['mcp__calc__add']);
  });

  it('stdio servers from options.mcpServers start, list their tools and report their status', async () => {
    h = await harness([text('ok')]);
    const q = h.start('x', { mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } } });
    const init = (await q.next()).value as { mcp_servers: { name: string; status: string }[]; tools: string[] };
    expect(init.mcp_servers).toEqual([{ name: 'fixture', status: 'connected' }]);
    const status = await q.mcpServerStatus();
    expect(status[0]).toMatchObject({ name: 'fixture', status: 'connected' });
    expect(status[0]!.tools!.map((t) => t.name)).toContain('mcp__fixture__plain');
    await q.return();
  });
});

describe('agents', () => {
  it('options.agents: the Agent tool runs the custom agent with its prompt; its messages carry parent_tool_use_id', async () => {
    h = await harness([
      call('Agent', { description: 'say hi', prompt: 'run echo hi', subagent_type: 'helper' }),
      (request) => ({ content: [{ type: 'text', text: `system: ${JSON.stringify(request.body.system)}` }] }),
      text('all done'),
    ]);
    const { messages } = await h.run('delegate', { agents: { helper: { description: 'Helps', prompt: 'YOU ARE THE HELPER.' } } });
    const agentCall = h.server.messageRequests[0]!.body.tools.find((t: { name: string }) => t.name === 'Agent');
    expect(agentCall.description).toContain('helper');
    expect(JSON.stringify(h.server.messageRequests[1]!.body.system)).toContain('YOU ARE THE HELPER.');
    const started = messages.find((m) => m.type === 'system' && m.subtype === 'task_started') as { tool_use_id: string; subagent_type: string };
    expect(started.subagent_type).toBe('helper');
    const child = messages.filter((m) => (m as { parent_tool_use_id?: string | null }).parent_tool_use_id === started.tool_use_id);
    expect(child.length).toBeGreaterThan(0);
    expect(resultOf(messages)).toMatchObject({ subtype: 'success', result: 'all done' });
    const init = messages[0] as { agents: string[]; tools: string[] };
    expect(init.agents).toContain('helper');
    expect(init.tools).toContain('Task');
  });
});
