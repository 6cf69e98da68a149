/**
 * What the other `toolgate/agent-sdk` test files leave out, through the real Anthropic SDK against the scripted server:
 * the hook events not covered there (PermissionRequest, PermissionDenied, PostToolUseFailure, SubagentStart,
 * SubagentStop, SessionEnd) with the Agent SDK's input objects and answers; `http` and `sse` MCP servers from
 * `options.mcpServers` (real MCP servers on 127.0.0.1, with the headers the program gave); `permissionMode` as an
 * option; `betas`; the `stderr` note for options toolgate accepts and ignores; `settings` (object or file),
 * `additionalDirectories` and `sandbox`; `tool_progress` messages.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookInput } from 'toolgate/agent-sdk';
import type { RecordedRequest } from 'toolgate/testing';
import { startOAuthTestServers, type OAuthTestServers } from '../src/mcp/test-helpers/oauth-servers.js';
import { call, harness, resultOf, text, toolResults, type Harness } from './helpers/agent-sdk-session.js';

let h: Harness | undefined;
let remote: OAuthTestServers | undefined;
let extra = '';
let elsewhere = '';
beforeEach(() => {
  extra = mkdtempSync(path.join(os.tmpdir(), 'agent-sdk-extra-'));
  elsewhere = mkdtempSync(path.join(os.tmpdir(), 'agent-sdk-elsewhere-'));
});
const dirOf = (_request: RecordedRequest) => h!.dir;
afterEach(async () => {
  await h?.close();
  await remote?.close();
  h = undefined;
  remote = undefined;
  for (const d of [extra, elsewhere]) rmSync(d, { recursive: true, force: true });
});

describe('hook events', () => {
  it('PermissionRequest answers before canUseTool; PermissionDenied hears the reason; PostToolUseFailure the error', async () => {
    h = await harness([
      (r) => call('Write', { file_path: path.join(dirOf(r), 'allowed.txt'), content: 'a' }),
      (r) => call('Write', { file_path: path.join(dirOf(r), 'denied.txt'), content: 'd' }),
      (r) => call('Read', { file_path: path.join(dirOf(r), 'missing.txt') }),
      text('done'),
    ]);
    const seen: HookInput[] = [];
    const asked: string[] = [];
    const { messages } = await h.run('go', {
      allowedTools: ['Read'],
      canUseTool: async (_name, input) => (asked.push(String(input.file_path)), { behavior: 'deny', message: 'the program says no' }),
      hooks: {
        PermissionRequest: [
          {
            matcher: 'Write',
            hooks: [
              async (input) => {
                seen.push(input);
                const file = String((input as { tool_input: { file_path: string } }).tool_input.file_path);
                return file.endsWith('allowed.txt') ? { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } } : {};
              },
            ],
          },
        ],
        PermissionDenied: [{ hooks: [async (input) => (seen.push(input), {})] }],
        PostToolUseFailure: [{ hooks: [async (input) => (seen.push(input), {})] }],
      },
    });
    expect(existsSync(path.join(h.dir, 'allowed.txt'))).toBe(true);
    expect(existsSync(path.join(h.dir, 'denied.txt'))).toBe(false);
    // The hook allowed the first write, so the program was asked about the second only.
    expect(asked).toEqual([path.join(h.dir, 'denied.txt')]);
    expect(seen.map((i) => i.hook_event_name)).toEqual(['PermissionRequest', 'PermissionRequest', 'PermissionDenied', 'PostToolUseFailure']);
    expect(seen[0]).toMatchObject({ tool_name: 'Write', permission_suggestions: expect.any(Array), session_id: expect.any(String), cwd: h.dir });
    expect(seen[2]).toMatchObject({ tool_name: 'Write', tool_use_id: expect.any(String), reason: expect.stringContaining('the program says no') });
    expect(seen[3]).toMatchObject({ tool_name: 'Read', tool_input: { file_path: path.join(h.dir, 'missing.txt') }, error: expect.stringMatching(/not exist|ENOENT|not found/i) });
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(['Write']);
  });

  it('SubagentStart and SubagentStop around a sub-agent; SessionEnd when the session ends', async () => {
    h = await harness([call('Agent', { description: 'look', prompt: 'say hi', subagent_type: 'helper' }), text('hi from the helper'), text('all done')]);
    const seen: HookInput[] = [];
    const record = async (input: HookInput) => (seen.push(input), {});
    const { messages } = await h.run('delegate', {
      agents: { helper: { description: 'Helps', prompt: 'Help.' } },
      hooks: { SubagentStart: [{ hooks: [record] }], SubagentStop: [{ hooks: [record] }], SessionEnd: [{ hooks: [record] }] },
    });
    expect(resultOf(messages)).toMatchObject({ subtype: 'success', result: 'all done' });
    expect(seen.map((i) => i.hook_event_name)).toEqual(['SubagentStart', 'SubagentStop', 'SessionEnd']);
    expect(seen[0]).toMatchObject({ agent_type: 'helper', agent_id: expect.any(String) });
    expect((seen[1] as { agent_id: string }).agent_id).toBe((seen[0] as { agent_id: string }).agent_id);
    expect(seen[2]).toMatchObject({ reason: expect.any(String), session_id: (messages[0] as { session_id: string }).session_id });
  });
});

describe('remote MCP servers', () => {
  it('http and sse servers from options.mcpServers connect with the given headers; their tools run behind the rules', async () => {
    remote = await startOAuthTestServers();
    const token = await accessToken(remote);
    h = await harness([call('mcp__web__echo', { text: 'over http' }), call('mcp__events__echo', { text: 'over sse' }), text('ok')]);
    const headers = { Authorization: `Bearer ${token}` };
    const { messages } = await h.run('echo', {
      env: { ENABLE_TOOL_SEARCH: 'false' },
      mcpServers: { web: { type: 'http', url: remote.mcpUrl, headers }, events: { type: 'sse', url: remote.sseUrl, headers } },
      allowedTools: ['mcp__web__echo', 'mcp__events__echo'],
    });
    const init = messages[0] as { mcp_servers: { name: string; status: string }[]; tools: string[] };
    expect(init.mcp_servers.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'events', status: 'connected' },
      { name: 'web', status: 'connected' },
    ]);
    expect(toolResults(messages)).toEqual([expect.stringContaining('echo: over http'), expect.stringContaining('echo: over sse')]);
    // Every request carried the program's token (the server answers 401 to any without it).
    expect(remote.unauthorized()).toBe(0);
  });
});

describe('more options', () => {
  it('permissionMode as an option: acceptEdits writes, plan does not', async () => {
    h = await harness([(r) => call('Write', { file_path: path.join(dirOf(r), 'edit.txt'), content: 'x' }), text('ok'), (r) => call('Write', { file_path: path.join(dirOf(r), 'plan.txt'), content: 'x' }), text('ok')]);
    const edits = await h.run('write', { permissionMode: 'acceptEdits' });
    expect((edits.messages[0] as { permissionMode: string }).permissionMode).toBe('acceptEdits');
    expect(existsSync(path.join(h.dir, 'edit.txt'))).toBe(true);
    const plan = await h.run('write', { permissionMode: 'plan' });
    expect((plan.messages[0] as { permissionMode: string }).permissionMode).toBe('plan');
    expect(existsSync(path.join(h.dir, 'plan.txt'))).toBe(false);
  });

  it('betas go to the API as the anthropic-beta header; ignored options are named on stderr', async () => {
    h = await harness([text('ok')]);
    const stderr: string[] = [];
    const { messages } = await h.run('x', { betas: ['context-1m-2025-08-07'], executable: 'node', pathToClaudeCodeExecutable: '/nowhere/claude', stderr: (t) => stderr.push(t) });
    expect(resultOf(messages).subtype).toBe('success');
    expect(String(h.server.messageRequests[0]!.headers['anthropic-beta'])).toContain('context-1m-2025-08-07');
    expect(stderr.join('')).toMatch(/executable/);
    expect(stderr.join('')).toMatch(/pathToClaudeCodeExecutable/);
  });
});

describe('tool progress', () => {
  it('a command that runs past a second reports tool_progress with its call id and name', async () => {
    // Output after `sleep 1.2` comes at least 1.2 s after the call started, however loaded the machine is.
    h = await harness([call('Bash', { command: 'echo start; sleep 1.2; echo later', description: 'slow' }), text('ok')]);
    const { messages } = await h.run('slow', { allowedTools: ['Bash'] });
    const use = messages.find((m) => m.type === 'assistant' && m.message.content[0]?.type === 'tool_use') as { message: { content: { id: string }[] } };
    const progress = messages.filter((m) => m.type === 'tool_progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ tool_use_id: use.message.content[0]!.id, tool_name: 'Bash', parent_tool_use_id: null, elapsed_time_seconds: expect.any(Number) });
    expect((progress[0] as { elapsed_time_seconds: number }).elapsed_time_seconds).toBeGreaterThanOrEqual(1);
    // Progress comes between the call and its result.
    const order = messages.map((m) => m.type);
    expect(order.indexOf('tool_progress')).toBeLessThan(order.lastIndexOf('user'));
  });
});

describe('settings, sandbox and directories', () => {
  it('settings as an object or as a file: their rules hold in the session', async () => {
    h = await harness([(r) => call('Write', { file_path: path.join(dirOf(r), 'a.txt'), content: 'x' }), text('ok'), call('Bash', { command: 'echo from-file', description: 'echo' }), text('ok')]);
    const denied = await h.run('write', { permissionMode: 'acceptEdits', settings: { permissions: { deny: ['Write'] } } });
    expect(existsSync(path.join(h.dir, 'a.txt'))).toBe(false);
    // A deny rule for the whole tool takes it out of the pool, as in Claude Code.
    expect((denied.messages[0] as { tools: string[] }).tools).not.toContain('Write');
    const file = path.join(h.home, 'session-settings.json');
    writeFileSync(file, JSON.stringify({ permissions: { allow: ['Bash(echo from-file)'] } }));
    const allowed = await h.run('echo', { settings: file });
    expect(toolResults(allowed.messages)[0]).toContain('from-file');
  });

  it('additionalDirectories: edits there are allowed as in cwd, elsewhere not', async () => {
    h = await harness([
      (r) => call('Write', { file_path: path.join(dirOf(r), '..', path.basename(extra), 'in-extra.txt'), content: 'x' }),
      call('Write', { file_path: path.join(elsewhere, 'elsewhere.txt'), content: 'x' }),
      text('ok'),
    ]);
    const { messages } = await h.run('write', { permissionMode: 'acceptEdits', additionalDirectories: [extra] });
    expect(existsSync(path.join(extra, 'in-extra.txt'))).toBe(true);
    expect(existsSync(path.join(elsewhere, 'elsewhere.txt'))).toBe(false);
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(['Write']);
  });

  it('sandbox: commands cannot write outside the session folders; without it they can', async () => {
    const command = (home: string) => `touch inside.txt; touch ${home}/outside.txt; echo done`;
    h = await harness([() => call('Bash', { command: command(h!.home), description: 'touch' }), text('ok'), () => call('Bash', { command: command(h!.home), description: 'touch' }), text('ok')]);
    await h.run('touch', { allowedTools: ['Bash'], sandbox: { enabled: true } });
    expect(existsSync(path.join(h.dir, 'inside.txt'))).toBe(true);
    expect(existsSync(path.join(h.home, 'outside.txt'))).toBe(false);
    await h.run('touch', { allowedTools: ['Bash'] });
    expect(existsSync(path.join(h.home, 'outside.txt'))).toBe(true);
  });
});

/** A token from the test authorization server, as a program that logged in elsewhere would hold it. */
async function accessToken(servers: OAuthTestServers): Promise<string> {
  const redirectUri = 'http://127.0.0.1:1/callback';
  const client = await servers.provider.clientsStore.registerClient!({ redirect_uris: [redirectUri] } as never);
  let location = '';
  await servers.provider.authorize(client, { codeChallenge: 'unused', redirectUri, scopes: ['mcp'] } as never, { redirect: (_status, url) => (location = url) });
  const code = new URL(location).searchParams.get('code')!;
  return (await servers.provider.exchangeAuthorizationCode(client, code)).access_token;
}
