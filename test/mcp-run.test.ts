/**
 * MCP servers in `toolgate run`, end to end: the real CLI, the scripted server playing the model, real MCP servers
 * from npm (server-memory, server-filesystem) and the fixture server. `.mcp.json` approval, `--mcp-config`,
 * `tools/list_changed` between turns, and `--permission-prompt-tool`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FILESYSTEM_SERVER, FIXTURE_SERVER, MEMORY_SERVER } from '../src/mcp/test-helpers/servers.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { toolgate } from './helpers/cli.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcprun-'));
  work = path.join(dir, 'work');
  mkdirSync(path.join(work, '.claude'), { recursive: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server!.url, MCP_TIMEOUT: '240000' });
const node = (script: string, ...args: string[]) => ({ command: process.execPath, args: [script, ...args] });
/** The tool_result blocks of the request that followed turn `turn` (0-based). */
const resultsAfter = (turn: number) =>
  (server!.messageRequests[turn + 1]!.body.messages.at(-1).content as { type: string; content: unknown; is_error?: boolean }[]).filter((b) => b.type === 'tool_result');

describe('toolgate run with MCP servers', { timeout: 300_000 }, () => {
  it('.mcp.json servers (memory, filesystem) once approved; unapproved ones never start; rules as for built-ins', async () => {
    writeFileSync(path.join(work, 'hello.txt'), 'hi from the filesystem server');
    writeFileSync(
      path.join(work, '.mcp.json'),
      JSON.stringify({ mcpServers: { memory: { ...node(MEMORY_SERVER), env: { MEMORY_FILE_PATH: '${MEMORY_FILE}' } }, fs: node(FILESYSTEM_SERVER, work), stranger: node(FIXTURE_SERVER) } }),
    );
    writeFileSync(path.join(work, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: ['memory', 'fs'], permissions: { allow: ['mcp__memory', 'mcp__fs__read_text_file'] } }));
    server = await startScriptedServer([
      {
        content: [
          { type: 'tool_use', name: 'mcp__memory__create_entities', input: { entities: [{ name: 'toolgate', entityType: 'project', observations: ['serves MCP'] }] } },
          { type: 'tool_use', name: 'mcp__fs__read_text_file', input: { path: path.join(work, 'hello.txt') } },
          { type: 'tool_use', name: 'mcp__fs__write_file', input: { path: path.join(work, 'new.txt'), content: 'x' } },
        ],
      },
      { content: [{ type: 'text', text: 'done' }] },
    ]);
    // The memory server keeps its graph in the file the entry names (`${VAR}` expanded from the environment).
    const r = await toolgate(['run', '-p', 'remember', '--cwd', work, '--output-format', 'json'], { env: { ...env(), MEMORY_FILE: path.join(dir, 'memory.jsonl') } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('not approved, not started: stranger');
    const tools = (server.messageRequests[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['mcp__memory__create_entities', 'mcp__fs__read_text_file']));
    expect(tools.some((t) => t.startsWith('mcp__stranger__'))).toBe(false);
    const [memory, read, write] = resultsAfter(0);
    expect(memory?.is_error).toBeFalsy();
    expect(JSON.stringify(memory?.content)).toContain('serves MCP');
    expect(JSON.stringify(read?.content)).toContain('hi from the filesystem server');
    // Not allowed by any rule: headless, so denied with the rule to add; the file was not written.
    expect(write?.is_error).toBe(true);
    expect(JSON.stringify(write?.content)).toContain('mcp__fs__write_file');
    expect(existsSync(path.join(work, 'new.txt'))).toBe(false);
    expect(readFileSync(path.join(dir, 'memory.jsonl'), 'utf8')).toContain('serves MCP');
  });

  it('--mcp-config: tools/list_changed during a turn shows in the next request', async () => {
    server = await startScriptedServer([
      { content: [{ type: 'tool_use', name: 'mcp__fx__add-tool', input: {} }] },
      { content: [{ type: 'tool_use', name: 'mcp__fx__added', input: {} }] },
      { content: [{ type: 'text', text: 'done' }] },
    ]);
    const config = JSON.stringify({ mcpServers: { fx: node(FIXTURE_SERVER) } });
    const r = await toolgate(['run', '-p', 'go', '--cwd', work, '--mcp-config', config, '--allowedTools', 'mcp__fx'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const names = (turn: number) => (server!.messageRequests[turn]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(names(0)).not.toContain('mcp__fx__added');
    expect(names(1)).toContain('mcp__fx__added');
    // The built-ins keep their place: only the MCP tail changed.
    const builtIns = (turn: number) => names(turn).filter((n) => !n.startsWith('mcp__'));
    expect(builtIns(1)).toEqual(builtIns(0));
    expect(JSON.stringify(resultsAfter(1)[0]?.content)).toContain('the added tool ran');
  });

  it('--permission-prompt-tool decides what would have asked', async () => {
    server = await startScriptedServer([
      {
        content: [
          { type: 'tool_use', name: 'Write', input: { file_path: path.join(work, 'ok.txt'), content: 'fine' } },
          { type: 'tool_use', name: 'Write', input: { file_path: path.join(work, 'no.txt'), content: 'forbidden' } },
        ],
      },
      { content: [{ type: 'text', text: 'done' }] },
    ]);
    const config = JSON.stringify({ mcpServers: { fx: node(FIXTURE_SERVER) } });
    const r = await toolgate(['run', '-p', 'write', '--cwd', work, '--mcp-config', config, '--permission-prompt-tool', 'mcp__fx__decide'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(work, 'ok.txt'), 'utf8')).toBe('fine');
    expect(existsSync(path.join(work, 'no.txt'))).toBe(false);
    expect(JSON.stringify(resultsAfter(0)[1]?.content)).toContain('the prompt tool said no');
    const bad = await toolgate(['run', '-p', 'x', '--cwd', work, '--permission-prompt-tool', 'Bash'], { env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('must name an MCP tool');
  });
});
