/**
 * claude's print flags on `toolgate -p`, one group per test: bad values (one line, exit 1, a JSON error result),
 * system prompts, --tools, sessions (--session-id, --no-session-persistence, --resume alone, --fork-session),
 * --setting-sources, --agents/--agent, --betas/--effort/--debug, streaming input with replay, structured output and
 * the json result, --fallback-model, --dangerously-skip-permissions, MCP status in init. The real CLI process, the
 * scripted server playing the model, HOME and the state folder in a temp folder.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER } from '../src/mcp/test-helpers/servers.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { repoRoot, toolgate } from './helpers/cli.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-flags-'));
  work = path.join(dir, 'work');
  mkdirSync(work);
  mkdirSync(path.join(dir, 'home'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: path.join(dir, 'home'),
  XDG_STATE_HOME: path.join(dir, 'state'),
  ANTHROPIC_API_KEY: 'sk-test',
  ...(server ? { ANTHROPIC_BASE_URL: server.url } : {}),
  ...extra,
});
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const jsonLines = (stdout: string) => stdout.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, any>);
const p = (...args: string[]) => ['-p', ...args, '--cwd', work];
const sessionsDir = () => path.join(dir, 'state', 'toolgate', 'sessions');
const systemText = (i: number): string => {
  const system = server!.messageRequests[i]!.body.system as string | { text: string }[];
  return typeof system === 'string' ? system : system.map((b) => b.text).join('\n');
};

describe('claude -p flags on toolgate -p', { timeout: 120_000 }, () => {
  it('bad values: one line naming the flag, exit 1, no request; under json and stream-json a JSON error result', async () => {
    server = await startScriptedServer([text('never')]);
    const cases: [string[], RegExp][] = [
      [['--agents', '{"reviewer": '], /^toolgate: --agents is not valid JSON/],
      [['--agents', '{"reviewer": {"description": "x"}}'], /^toolgate: --agents: agent "reviewer" needs a "description" and a "prompt"/],
      [['--session-id', 'not-a-uuid'], /^toolgate: --session-id must be a valid UUID/],
      [['--setting-sources', 'user,team'], /^toolgate: --setting-sources: unknown source "team"/],
      [['--system-prompt-file', 'missing.txt'], /^toolgate: --system-prompt-file: file not found: .*missing\.txt$/],
      [['--json-schema', '{nope'], /^toolgate: --json-schema is not valid JSON/],
      [['--max-budget-usd', 'lots'], /^toolgate: --max-budget-usd must be a positive number/],
      [['--input-format', 'xml'], /^toolgate: unknown --input-format "xml"/],
      [['--agent', 'ghost'], /^toolgate: --agent "ghost" is neither one of --agents nor an agent of/],
      [['--resume'], /^toolgate: No conversation found to continue/],
    ];
    for (const [flags, line] of cases) {
      const r = await toolgate([...p('hi'), ...flags], { env: env() });
      expect(r.code, flags.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n'), flags.join(' ')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(line);
      expect(r.stdout).toBe('');
    }
    for (const format of ['json', 'stream-json']) {
      const r = await toolgate([...p('hi'), '--session-id', '42', '--output-format', format], { env: env() });
      expect(r.code).toBe(1);
      expect(jsonLines(r.stdout)).toEqual([expect.objectContaining({ type: 'result', subtype: 'error_during_execution', is_error: true, errors: [expect.stringMatching(/--session-id must be a valid UUID/)] })]);
    }
    expect(server.messageRequests).toHaveLength(0);
  });

  it('--system-prompt-file replaces the prompt; --append-system-prompt-file adds to toolgate\'s', async () => {
    server = await startScriptedServer([text('a'), text('b'), text('c')]);
    writeFileSync(path.join(work, 'system.txt'), 'You are a pirate.');
    writeFileSync(path.join(work, 'extra.txt'), 'Always answer in French.');
    expect((await toolgate([...p('hi'), '--system-prompt-file', 'system.txt'], { env: env() })).code).toBe(0);
    expect(systemText(0)).toBe('You are a pirate.');
    expect((await toolgate([...p('hi'), '--append-system-prompt-file', 'extra.txt'], { env: env() })).code).toBe(0);
    expect((await toolgate(p('hi'), { env: env() })).code).toBe(0);
    // toolgate's own prompt (the third run's, with no flag) is still there, the addition after it.
    const own = systemText(2);
    expect(own).not.toContain('French');
    expect(systemText(1)).toContain(own.slice(0, 200));
    expect(systemText(1).trimEnd().endsWith('Always answer in French.')).toBe(true);
  });

  it('--tools: only the named built-ins; "" for none', async () => {
    server = await startScriptedServer([text('a'), text('b')]);
    expect((await toolgate([...p('hi'), '--tools', 'Read,Grep'], { env: env() })).code).toBe(0);
    expect((server.messageRequests[0]!.body.tools as { name: string }[]).map((t) => t.name).sort()).toEqual(['Grep', 'Read']);
    const none = await toolgate([...p('hi'), '--tools', '', '--output-format', 'stream-json', '--verbose'], { env: env() });
    expect(none.code).toBe(0);
    expect(jsonLines(none.stdout)[0]).toMatchObject({ subtype: 'init', tools: [] });
    expect(server.messageRequests[1]!.body.tools ?? []).toEqual([]);
  });

  it('sessions: --session-id names it; --resume alone goes on with the newest; --fork-session a new id; --no-session-persistence writes nothing', async () => {
    server = await startScriptedServer([text('first'), text('second'), text('third'), text('fourth')]);
    const id = '7f0c2a8e-4b1d-4e5f-9a3b-2c1d0e9f8a7b';
    const first = jsonLines((await toolgate([...p('remember 7', '--session-id', id), '--output-format', 'json'], { env: env() })).stdout)[0]!;
    expect(first).toMatchObject({ session_id: id, result: 'first' });
    expect(existsSync(path.join(sessionsDir(), id))).toBe(true);
    const resumed = jsonLines((await toolgate([...p('and now?', '--resume'), '--output-format', 'json'], { env: env() })).stdout)[0]!;
    expect(resumed).toMatchObject({ session_id: id, result: 'second' });
    expect(server.messageRequests[1]!.body.messages).toHaveLength(3);
    const forked = jsonLines((await toolgate([...p('fork it', '--continue', '--fork-session'), '--output-format', 'json'], { env: env() })).stdout)[0]!;
    expect(forked.session_id).not.toBe(id);
    expect(server.messageRequests[2]!.body.messages).toHaveLength(5);
    const before = readdirSync(sessionsDir()).sort();
    const r = await toolgate([...p('forget me', '--no-session-persistence'), '--output-format', 'json'], { env: env() });
    expect(jsonLines(r.stdout)[0]).toMatchObject({ result: 'fourth' });
    expect(readdirSync(sessionsDir()).sort()).toEqual(before);
  });

  it('--setting-sources: only the named settings files are read', async () => {
    mkdirSync(path.join(work, '.claude'));
    writeFileSync(path.join(work, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(touch made-*)'] } }));
    const call = (name: string) => ({ content: [{ type: 'tool_use' as const, name: 'Bash', input: { command: `touch ${name}` } }] });
    server = await startScriptedServer([call('made-1'), text('a'), call('made-2'), text('b')]);
    expect((await toolgate([...p('go'), '--setting-sources', 'project'], { env: env() })).code).toBe(0);
    expect(existsSync(path.join(work, 'made-1'))).toBe(true);
    // Without the project's file, no rule allows it: headless, so denied.
    expect((await toolgate([...p('go'), '--setting-sources', 'user,local'], { env: env() })).code).toBe(0);
    expect(existsSync(path.join(work, 'made-2'))).toBe(false);
    expect(JSON.stringify(server.messageRequests[3]!.body.messages.at(-1).content)).toContain('is_error":true');
  });

  it('--agents and --agent: the session runs as the agent (its prompt, its model); the Agent tool offers the others', async () => {
    server = await startScriptedServer([text('a'), text('b')]);
    const agents = JSON.stringify({ reviewer: { description: 'Reviews code', prompt: 'You review code.', model: 'haiku' }, writer: { description: 'Writes docs', prompt: 'You write.' } });
    const r = await toolgate([...p('review'), '--agents', agents, '--agent', 'reviewer', '--output-format', 'stream-json', '--verbose'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)[0]!.agents).toEqual(expect.arrayContaining(['reviewer', 'writer']));
    expect(systemText(0)).toContain('You review code.');
    expect(server.messageRequests[0]!.body.model).toBe('claude-haiku-5-5');
    // An agent of .claude/agents, by name.
    mkdirSync(path.join(work, '.claude', 'agents'), { recursive: true });
    writeFileSync(path.join(work, '.claude', 'agents', 'auditor.md'), '---\nname: auditor\ndescription: Audits\n---\nYou audit everything.\n');
    const fromFile = await toolgate([...p('audit'), '--agent', 'auditor'], { env: env() });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(systemText(1)).toContain('You audit everything.');
  });

  it('--betas go in the anthropic-beta header; --effort goes in output_config with its beta; --debug is said once on stderr', async () => {
    server = await startScriptedServer([text('a')]);
    const r = await toolgate([...p('hi'), '--betas', 'context-1m-2025-08-07', '--effort', 'high', '--debug'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('a\n');
    expect(server.messageRequests[0]!.headers['anthropic-beta']).toContain('context-1m-2025-08-07');
    expect(server.messageRequests[0]!.headers['anthropic-beta']).toContain('effort-2025-11-24');
    expect((server.messageRequests[0]!.body as { output_config?: unknown }).output_config).toEqual({ effort: 'high' });
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^toolgate: --debug is accepted/)]);
    const bad = await toolgate([...p('hi'), '--effort', 'extreme'], { env: env() });
    expect(bad.code).toBe(1);
  });

  it('--input-format stream-json: each user line answered as it comes; --replay-user-messages echoes them; a line that is not JSON is an error result', async () => {
    server = await startScriptedServer([text('answer one'), text('answer two')]);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), ...p('--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--replay-user-messages')], { env: env(), cwd: repoRoot });
    const user = (content: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' })}\n`;
    let stdout = '';
    child.stderr.resume();
    child.stdout.on('data', (c: Buffer) => {
      const before = (stdout.match(/"type":"result"/g) ?? []).length;
      stdout += c.toString();
      const after = (stdout.match(/"type":"result"/g) ?? []).length;
      // The second message is sent only once the first is answered: answered as they come, not read to the end first.
      if (before === 0 && after === 1) child.stdin.end(user('two'));
    });
    child.stdin.write(user('one'));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    const lines = jsonLines(stdout);
    expect(lines.filter((l) => l.type === 'result').map((l) => l.result)).toEqual(['answer one', 'answer two']);
    expect(lines.filter((l) => l.isReplay === true).map((l) => l.message.content)).toEqual(['one', 'two']);
    expect(server.messageRequests[1]!.body.messages).toHaveLength(3);

    const bad = await toolgate(p('--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'), { env: env(), input: 'not json\n' });
    expect(bad.code).toBe(1);
    expect(jsonLines(bad.stdout).at(-1)).toMatchObject({ type: 'result', is_error: true, errors: [expect.stringContaining('line 1 is not JSON')] });
  });

  it('--json-schema with --output-format json: claude\'s result object with structured_output', async () => {
    server = await startScriptedServer([{ content: [{ type: 'tool_use', name: 'StructuredOutput', input: { answer: 42 } }] }]);
    const schema = JSON.stringify({ type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] });
    const r = await toolgate([...p('6*7?'), '--json-schema', schema, '--output-format', 'json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const result = jsonLines(r.stdout);
    expect(result).toHaveLength(1);
    expect(result[0]).toMatchObject({ type: 'result', subtype: 'success', is_error: false, structured_output: { answer: 42 }, num_turns: 2, terminal_reason: 'completed' });
    for (const key of ['duration_api_ms', 'modelUsage', 'permission_denials', 'uuid', 'usage', 'total_cost_usd']) expect(result[0]).toHaveProperty(key);
  });

  it('--fallback-model: an overloaded main model gives way to the fallback', async () => {
    const overloaded = { status: 529, errorType: 'overloaded_error', message: 'Overloaded' };
    server = await startScriptedServer(Array.from({ length: 10 }, () => (request) => (request.body.model === 'claude-sonnet-4-6' ? { ...text('never'), errors: Array.from({ length: 20 }, () => overloaded) } : text('from the fallback'))));
    const r = await toolgate([...p('hi'), '--model', 'claude-sonnet-4-6', '--fallback-model', 'claude-haiku-4-5', '--output-format', 'json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ result: 'from the fallback' });
    expect(server.messageRequests.at(-1)!.body.model).toBe('claude-haiku-4-5');
  });

  it('--dangerously-skip-permissions: bypassPermissions from the start (root: with IS_SANDBOX=1)', async () => {
    server = await startScriptedServer([{ content: [{ type: 'tool_use', name: 'Write', input: { file_path: path.join(work, 'x.txt'), content: 'x' } }] }, text('done')]);
    const r = await toolgate([...p('write'), '--dangerously-skip-permissions', '--output-format', 'stream-json', '--verbose'], { env: env({ IS_SANDBOX: '1' }) });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ subtype: 'init', permissionMode: 'bypassPermissions' });
    expect(readFileSync(path.join(work, 'x.txt'), 'utf8')).toBe('x');
  });

  it('--mcp-config with --strict-mcp-config: init lists the servers with their status; .mcp.json is not read', async () => {
    writeFileSync(path.join(work, '.mcp.json'), JSON.stringify({ mcpServers: { stranger: { command: 'false' } } }));
    server = await startScriptedServer([text('a')]);
    const config = JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } });
    const r = await toolgate([...p('hi'), '--mcp-config', config, '--strict-mcp-config', '--output-format', 'stream-json', '--verbose'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('stranger');
    expect(jsonLines(r.stdout)[0]!.mcp_servers).toEqual([{ name: 'fx', status: 'connected' }]);
  });
});
