/**
 * `toolgate mcp serve`, driven by the MCP SDK's own client: over stdio (the real CLI, spawned) and over streamable HTTP
 * (bearer token). Permissions come from the project's settings files; nothing here is mocked.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Each test starts the real CLI through tsx: slow on a loaded machine. Safety nets only.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });
const SLOW = { timeout: 240_000 };
import * as z from 'zod';
import { serveHttp, type HttpServeHandle } from '../src/mcp/server/serve.js';
import { annotationsOf } from '../src/mcp/server/tool-server.js';
import { buildTool } from '../src/tool/build-tool.js';
import type { AnyTool } from '../src/tool/tool.js';
import { repoRoot } from './helpers/cli.js';
import { makeProgressTool } from './helpers/tools.js';

let root: string;
let project: string;
let home: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-serve-'));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(path.join(project, '.claude'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(project, 'notes.txt'), 'line one\nline two\n');
  // A skill makes the runtime's pool include Skill, which steers a conversation and is not served.
  mkdirSync(path.join(project, '.claude', 'skills', 'demo'), { recursive: true });
  writeFileSync(path.join(project, '.claude', 'skills', 'demo', 'SKILL.md'), 'Demo.\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
});

/** The real CLI over stdio, as an MCP client configuration would start it. */
async function stdioClient(args: string[] = [], options: { elicit?: 'Allow once' | 'Deny' | 'decline' | 'Allow everything' } = {}): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) {
    // 'decline': what a client that declines every elicitation on its own answers.
    client.setRequestHandler(ElicitRequestSchema, async () => (options.elicit === 'decline' ? { action: 'decline' } : { action: 'accept', content: { decision: options.elicit! } }));
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'mcp', 'serve', '--cwd', project, '--session-dir', path.join(root, 'session'), ...args],
    env: { ...process.env, HOME: home, XDG_STATE_HOME: path.join(home, 'state') } as Record<string, string>,
    cwd: repoRoot,
    stderr: 'pipe',
  });
  await client.connect(transport, SLOW);
  clients.push(client);
  return client;
}

const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
const call = async (client: Client, name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
  (await client.callTool({ name, arguments: args }, undefined, { ...SLOW, ...(signal ? { signal } : {}) })) as CallToolResult;

describe('progress over MCP (streamable HTTP, in process)', () => {
  // A tool that reports two steps when asked for progress, and says whether it was asked.
  const asked: boolean[] = [];
  const Ticker = makeProgressTool(asked, ['one', 'two']);
  let server: HttpServeHandle;
  beforeAll(async () => {
    server = await serveHttp({ cwd: project, runtime: { settings: { sources: [] }, sessionDir: path.join(root, 'progress-session'), tools: [Ticker], rules: { allow: ['Ticker'] } } });
  });
  afterAll(() => server.close());

  it('a call with a progress token gets the tool\'s progress; one without does not ask the tool for any', async () => {
    const client = new Client({ name: 'progress', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
    clients.push(client);
    const seen: string[] = [];
    const withToken = (await client.callTool({ name: 'Ticker', arguments: {} }, undefined, { onprogress: (p) => seen.push(String(p.message)) })) as CallToolResult;
    expect(textOf(withToken)).toBe('ticked');
    expect(seen).toEqual(['ticker: one', 'ticker: two']);
    const without = (await client.callTool({ name: 'Ticker', arguments: {} })) as CallToolResult;
    expect(textOf(without)).toBe('ticked');
    expect(asked).toEqual([true, false]);
  });
});

describe('toolgate mcp serve over stdio (SDK client)', () => {
  it('lists the built-in tools with their names, schemas and annotations', async () => {
    const client = await stdioClient();
    const { tools } = await client.listTools(undefined, SLOW);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep']) expect(byName.has(name), name).toBe(true);
    expect(byName.has('AskUserQuestion')).toBe(false);
    expect(byName.has('Skill')).toBe(false);
    expect(byName.get('Read')?.inputSchema).toMatchObject({ type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] });
    // Honest hints: a shell may destroy and reaches the world; fetches only read it; reads and searches only read here.
    const hints = (name: string) => {
      const a = byName.get(name)?.annotations ?? {};
      return { readOnlyHint: a.readOnlyHint, destructiveHint: a.destructiveHint, openWorldHint: a.openWorldHint };
    };
    expect(hints('Bash')).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    for (const name of ['WebFetch', 'WebSearch']) expect(hints(name), name).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    for (const name of ['Read', 'Glob', 'Grep']) expect(hints(name), name).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    for (const name of ['Edit', 'Write']) expect(hints(name), name).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
  });

  it('annotations come from what a tool declares, not its name', () => {
    const tool = (name: string, kind: 'shell' | 'read' | undefined, readOnly: boolean) =>
      buildTool({ name, ...(kind ? { permissionTraits: { kind } } : {}), inputSchema: z.object({}), maxResultSizeChars: 1000, prompt: async () => '', call: async () => ({ data: '' }), isReadOnly: () => readOnly }) as AnyTool;
    expect(annotationsOf(tool('Read', 'shell', false))).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    expect(annotationsOf(tool('Bash', 'read', true))).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    expect(annotationsOf(tool('Lister', undefined, true))).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    expect(annotationsOf(tool('Doer', undefined, false))).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
  });

  it('runs read-only calls; refuses a write without elicitation, naming the rule; images come back as images', async () => {
    const client = await stdioClient();
    const read = await call(client, 'Read', { file_path: path.join(project, 'notes.txt') });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toContain('line two');
    const echo = await call(client, 'Bash', { command: 'echo served' });
    expect(textOf(echo)).toContain('served');
    const write = await call(client, 'Write', { file_path: path.join(project, 'out.txt'), content: 'x' });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain('cannot ask the person');
    expect(textOf(write)).toMatch(/add "Edit\([^"]+\)" to permissions\.allow/);
    expect(existsSync(path.join(project, 'out.txt'))).toBe(false);
    const png = path.join(project, 'dot.png');
    writeFileSync(png, Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));
    const image = await call(client, 'Read', { file_path: png });
    expect(image.content.some((c) => c.type === 'image' && c.mimeType === 'image/png')).toBe(true);
  });

  it('asks the person through elicitation when the client supports it: allow once writes, deny refuses', async () => {
    const yes = await stdioClient([], { elicit: 'Allow once' });
    const ok = await call(yes, 'Write', { file_path: path.join(project, 'elicited.txt'), content: 'yes' });
    expect(ok.isError).toBeFalsy();
    expect(readFileSync(path.join(project, 'elicited.txt'), 'utf8')).toBe('yes');
    const no = await stdioClient([], { elicit: 'Deny' });
    const refused = await call(no, 'Write', { file_path: path.join(project, 'refused.txt'), content: 'no' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('"Deny" was chosen');
    expect(existsSync(path.join(project, 'refused.txt'))).toBe(false);
    // A client that declines on its own: the refusal says the client declined, and blames no person.
    const auto = await stdioClient([], { elicit: 'decline' });
    const declined = await call(auto, 'Write', { file_path: path.join(project, 'declined.txt'), content: 'no' });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toContain('The MCP client declined the approval request');
    expect(textOf(declined)).not.toMatch(/person/);
    expect(existsSync(path.join(project, 'declined.txt'))).toBe(false);
    // An answer outside the form's choices fails the SDK's schema check (Ajv, made on first use): refused.
    const odd = await stdioClient([], { elicit: 'Allow everything' });
    const unchecked = await call(odd, 'Write', { file_path: path.join(project, 'odd.txt'), content: 'no' });
    expect(unchecked.isError).toBe(true);
    expect(textOf(unchecked)).toMatch(/Asking the person through the MCP client failed \(.*schema/);
    expect(existsSync(path.join(project, 'odd.txt'))).toBe(false);
  });

  it('follows the project settings: an allow rule lets a write through, a deny rule stops a read', async () => {
    const settings = path.join(project, '.claude', 'settings.json');
    writeFileSync(settings, JSON.stringify({ permissions: { allow: ['Edit(./allowed/**)'], deny: ['Read(./secret.txt)'] } }));
    writeFileSync(path.join(project, 'secret.txt'), 'hunter2');
    try {
      const client = await stdioClient();
      const ok = await call(client, 'Write', { file_path: path.join(project, 'allowed', 'a.txt'), content: 'ok' });
      expect(ok.isError, textOf(ok)).toBeFalsy();
      const denied = await call(client, 'Read', { file_path: path.join(project, 'secret.txt') });
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).not.toContain('hunter2');
      expect(textOf(denied)).toContain('Read(./secret.txt)');
    } finally {
      rmSync(settings);
    }
  });

  it('--permission-mode acceptEdits lets edits in the project through', async () => {
    const client = await stdioClient(['--permission-mode', 'acceptEdits']);
    const ok = await call(client, 'Write', { file_path: path.join(project, 'accepted.txt'), content: 'a' });
    expect(ok.isError, textOf(ok)).toBeFalsy();
  });

  it('notifications/cancelled aborts the call: the command is stopped', async () => {
    const client = await stdioClient(['--permission-mode', 'acceptEdits', '--settings', JSON.stringify({ permissions: { allow: ['Bash(sleep:*)'] } })]);
    const pidFile = path.join(project, 'sleeper.pid');
    const abort = new AbortController();
    const pending = call(client, 'Bash', { command: `echo $$ > ${pidFile}; sleep 60` }, abort.signal).catch((e: unknown) => e);
    await expect.poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim().length > 0, { timeout: 20_000 }).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 20_000 }).toBe(false);
    // The server is still there for the next call.
    expect(textOf(await call(client, 'Bash', { command: 'echo after' }))).toContain('after');
  });

  it('large outputs are persisted and can be paged with Read', async () => {
    const client = await stdioClient(['--settings', JSON.stringify({ permissions: { allow: ['Bash(seq:*)'] } })]);
    const big = await call(client, 'Bash', { command: 'seq 1 40000' });
    const text = textOf(big);
    expect(text).toContain('persisted-output');
    const file = /saved to: (\/\S+)/.exec(text)?.[1];
    expect(file).toBeDefined();
    const page = await call(client, 'Read', { file_path: file!, offset: 30000, limit: 2 });
    expect(textOf(page)).toContain('30000');
  });
});

describe('toolgate mcp serve --http', () => {
  let server: HttpServeHandle;
  beforeAll(async () => {
    server = await serveHttp({ cwd: project, runtime: { settings: { sources: [] }, sessionDir: path.join(root, 'http-session') } });
  });
  afterAll(() => server.close());

  it('answers 401 without the token (or with a wrong one), on 127.0.0.1 only', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect((await fetch(server.url, { method: 'POST', headers, body })).status).toBe(401);
    expect((await fetch(server.url, { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong' }, body })).status).toBe(401);
    const client = new Client({ name: 'nope', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow();
  });

  it('serves the tools to a client with the token', async () => {
    const client = new Client({ name: 'http', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('Read');
    const read = (await client.callTool({ name: 'Read', arguments: { file_path: path.join(project, 'notes.txt') } })) as CallToolResult;
    expect(textOf(read)).toContain('line one');
    const write = (await client.callTool({ name: 'Write', arguments: { file_path: path.join(project, 'h.txt'), content: 'h' } })) as CallToolResult;
    expect(write.isError).toBe(true);
  });

  it('an unknown tool is a JSON-RPC error (-32602, "Unknown tool: NAME"), as the spec\'s example and Claude Code answer it', async () => {
    const client = new Client({ name: 'unknown', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
    clients.push(client);
    const error = await client.callTool({ name: 'NoSuchTool', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e as { code?: number; message?: string },
    );
    expect(error?.code).toBe(-32602);
    // The SDK's client prefixes "MCP error -32602: " once; the server's own text is the spec's, with no second prefix.
    expect(error?.message).toBe('MCP error -32602: Unknown tool: NoSuchTool');
  });

  it('an SSE stream opens with the priming event (an id, empty data) and retry, and a reconnect with Last-Event-ID gets what came after', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${server.token}` };
    const init = await fetch(server.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id')!;
    const first = await init.text();
    expect(first).toMatch(/^id: \S+\nretry: \d+\ndata: \n\n/);
    const primingId = /^id: (\S+)/.exec(first)![1]!;
    const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await fetch(server.url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const replay = await fetch(server.url, { method: 'GET', headers: { ...withSession, 'last-event-id': primingId } });
    const reader = replay.body!.getReader();
    let text = '';
    while (!text.includes('"protocolVersion"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    // The initialize answer, sent after the priming event on that stream, comes again.
    expect(text).toContain('"id":1');
  });

  it('a destructive call\'s "for this session" takes a second step (a confirming form); any other call\'s does not', async () => {
    const forms: { message: string; choices: string[] }[] = [];
    const client = new Client({ name: 'session-rules', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const params = req.params as unknown as { message: string; requestedSchema: { properties: { decision: { enum: string[] } } } };
      const choices = params.requestedSchema.properties.decision.enum;
      forms.push({ message: params.message, choices });
      // The person picks "for this session" and, asked to confirm it for a destructive call, settles for this call once.
      const pick = choices.find((c) => c.startsWith('Allow Bash(')) ?? choices.find((c) => c === 'No, allow this call once') ?? 'Deny';
      return { action: 'accept', content: { decision: pick } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
    clients.push(client);
    mkdirSync(path.join(project, 'gone1'));
    mkdirSync(path.join(project, 'gone2'));
    const run = async (command: string) => (await client.callTool({ name: 'Bash', arguments: { command } })) as CallToolResult;
    await run('rm -r gone1');
    expect(forms).toHaveLength(2);
    expect(forms[0]!.message).toContain('Risk: destructive');
    expect(forms[0]!.choices[1]).toMatch(/destructive: asks to confirm/);
    expect(forms[1]!.message).toContain('this call is destructive');
    expect(existsSync(path.join(project, 'gone1'))).toBe(false);
    // Confirmed for this call only: no rule was added, the same command asks again.
    await run('rm -r gone1');
    expect(forms).toHaveLength(4);
    forms.length = 0;
    await run('touch made-by-session.txt');
    expect(forms).toHaveLength(1);
    expect(forms[0]!.message).not.toContain('Risk: destructive');
    await run('touch made-by-session.txt');
    expect(forms).toHaveLength(1);
  });

  it('each call asks the client that sent it: two clients at once, one allows, one declines', async () => {
    let asked = 0;
    let bothAsked!: () => void;
    const held = new Promise<void>((r) => (bothAsked = r));
    const connect = async (decision: 'Allow once' | 'Deny') => {
      const client = new Client({ name: decision, version: '1' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler(ElicitRequestSchema, async () => {
        if (++asked === 2) bothAsked();
        await held; // both prompts are open at the same time before either is answered
        return { action: 'accept', content: { decision } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
      clients.push(client);
      return client;
    };
    const yes = await connect('Allow once');
    const no = await connect('Deny');
    // Reads outside the project ask, and may run side by side (concurrency-safe), so both prompts are open at once.
    const outside = mkdtempSync(path.join(os.tmpdir(), 'toolgate-outside-'));
    writeFileSync(path.join(outside, 'a.txt'), 'secret a\n');
    writeFileSync(path.join(outside, 'b.txt'), 'secret b\n');
    const a = yes.callTool({ name: 'Read', arguments: { file_path: path.join(outside, 'a.txt') } }) as Promise<CallToolResult>;
    const b = no.callTool({ name: 'Read', arguments: { file_path: path.join(outside, 'b.txt') } }) as Promise<CallToolResult>;
    const [ra, rb] = await Promise.all([a, b]);
    rmSync(outside, { recursive: true, force: true });
    expect(asked).toBe(2);
    expect(ra.isError).not.toBe(true);
    expect(textOf(ra)).toContain('secret a');
    expect(rb.isError).toBe(true);
    expect(textOf(rb)).not.toContain('secret b');
  });
});
