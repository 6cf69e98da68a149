/**
 * What a user writes: a `.mcp.json` entry that starts `toolgate mcp serve` (through the real bin), loaded the way
 * `toolgate run` loads project servers, approved in local settings, and called through toolgate's own pipeline.
 * Also `toolgate mcp list` / `get` on that configuration.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runToolUse } from '../src/execution/pipeline.js';
import { loadMcpConfig } from '../src/mcp/load-config.js';
import { McpClientManager } from '../src/mcp/manager.js';
import { createCanUseTool } from '../src/permissions/can-use-tool.js';
import { createPermissionContext } from '../src/permissions/permission-context.js';
import type { ToolUseBlock } from '../src/tool/tool.js';
import { createToolUseContext } from '../src/tool/tool-use-context.js';
import { repoRoot, toolgate } from './helpers/cli.js';

vi.setConfig({ testTimeout: 300_000 });

let root: string;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcpcli-'));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(path.join(project, '.claude'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(project, 'README.txt'), 'hello from the project\n');
  // The entry a user writes (with `npx toolgate` in place of the path to the bin).
  writeFileSync(
    path.join(project, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        toolgate: { command: process.execPath, args: [path.join(repoRoot, 'bin', 'toolgate.js'), 'mcp', 'serve', '--cwd', '${PROJECT_DIR}'] },
        unapproved: { command: process.execPath, args: ['-e', 'process.exit(1)'] },
      },
    }),
  );
  writeFileSync(path.join(project, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: ['toolgate'] }));
  env = { ...process.env, HOME: home, XDG_STATE_HOME: path.join(home, 'state'), PROJECT_DIR: project, MCP_TIMEOUT: '240000' };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('.mcp.json → toolgate mcp serve', () => {
  it('the approved server runs and its tools work through the pipeline; the unapproved one never starts', async () => {
    const config = loadMcpConfig({ cwd: project, homeDir: home, env });
    expect(config.problems).toEqual([]);
    expect(config.servers.get('toolgate')?.approval).toBe('approved');
    expect(config.servers.get('unapproved')?.approval).toBe('pending');
    const manager = new McpClientManager({ cwd: project, servers: config.servers, env });
    try {
      const tools = await manager.getTools();
      const read = tools.find((t) => t.name === 'mcp__toolgate__Read');
      expect(read?.isReadOnly({})).toBe(true);
      expect(tools.find((t) => t.name === 'mcp__toolgate__Write')?.isDestructive({})).toBe(true);
      expect(tools.some((t) => t.name.startsWith('mcp__unapproved__'))).toBe(false);
      const context = createToolUseContext({
        tools,
        permissionContext: createPermissionContext({ cwd: project, rules: [{ source: 'localSettings', ruleBehavior: 'allow', ruleValue: { toolName: 'mcp__toolgate__Read' } }] }),
        sessionDir: path.join(root, 'client-session'),
      });
      const block = { type: 'tool_use', id: 'toolu_1', name: 'mcp__toolgate__Read', input: { file_path: path.join(project, 'README.txt') } } as ToolUseBlock;
      const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, createCanUseTool(), context);
      expect(outcome.result.is_error).toBeFalsy();
      expect(JSON.stringify(outcome.result.content)).toContain('hello from the project');
      const status = await manager.status();
      expect(status.map((s) => [s.name, s.state])).toEqual([
        ['toolgate', 'connected'],
        ['unapproved', 'pending-approval'],
      ]);
    } finally {
      await manager.dispose();
    }
  });

  it('toolgate mcp list / get show scope, approval and (with --connect) the tools', async () => {
    const list = await toolgate(['mcp', 'list', '--cwd', project], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^toolgate \[project, stdio\] .*bin\/toolgate\.js mcp serve --cwd .*— not started$/m);
    expect(list.stdout).toMatch(/^unapproved \[project, stdio\] .* needs approval/m);
    const get = await toolgate(['mcp', 'get', 'toolgate', '--cwd', project, '--connect', '--json'], { env });
    expect(get.code, get.stderr).toBe(0);
    const status = JSON.parse(get.stdout) as { state: string; tools: string[] };
    expect(status.state).toBe('connected');
    expect(status.tools).toEqual(expect.arrayContaining(['mcp__toolgate__Bash', 'mcp__toolgate__Read']));
    const missing = await toolgate(['mcp', 'get', 'nope', '--cwd', project], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no MCP server named "nope"');
  });
});
