/**
 * Attacker: whoever runs an MCP server (or its authorization server) that asks for OAuth. The address of the sign-in
 * page comes from their metadata; `mcp__<server>__authenticate` puts it in front of the person. A page that is not a
 * plain http(s) URL (an `smb:` share that leaks the person's Windows credentials, a `file:` path, a custom protocol
 * handler, a URL with a user:password part) is refused before anyone sees it and the login ends; an http(s) one is
 * shown, never opened for them (docs/security.md, "MCP sign-in tool").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { QuestionRequest } from '../../src/agent/types.js';
import { McpClientManager } from '../../src/mcp/manager.js';
import { McpOAuthStore } from '../../src/mcp/oauth-store.js';
import { startOAuthTestServers, type OAuthTestServers } from '../../src/mcp/test-helpers/oauth-servers.js';
import { scoped } from '../../src/mcp/test-helpers/servers.js';
import type { ToolUseBlock } from '../../src/tool/tool.js';

const open: { dispose(): Promise<void> }[] = [];
const dirs: string[] = [];
let servers: OAuthTestServers | undefined;
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.dispose();
  await servers?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('attack: a hostile sign-in address from an MCP server', { timeout: 60_000 }, () => {
  for (const hostile of ['smb://203.0.113.9/share/login', 'file:///etc/passwd', 'vscode://evil.extension/run?cmd=x', 'https://user:secret@127.0.0.1/authorize']) {
    it(`${hostile.split(':')[0]}${hostile.includes('@') ? ' with credentials' : ''}: refused unseen, the login ended, nothing stored`, async () => {
      servers = await startOAuthTestServers({ authorizationEndpoint: hostile });
      const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcpauth-attack-'));
      dirs.push(dir);
      const asked: QuestionRequest[] = [];
      const onQuestion = async (q: QuestionRequest) => {
        asked.push(q);
        return { action: 'accept' as const };
      };
      const store = new McpOAuthStore(path.join(dir, 'oauth'));
      const manager = new McpClientManager({ cwd: dir, servers: scoped({ remote: { type: 'http', url: servers.mcpUrl, headers: {}, alwaysLoad: true } }), oauthStore: store, onQuestion });
      const runtime = await createToolRuntime({ cwd: dir, settings: { sources: [] }, sessionDir: path.join(dir, 's'), toolProviders: [manager.toolProvider()], rules: { allow: ['mcp__remote'] }, onQuestion });
      open.push(runtime, manager);
      const r = await runtime.run([{ type: 'tool_use', id: 'toolu_hostile', name: 'mcp__remote__authenticate', input: {} } as ToolUseBlock]);
      const content = typeof r.results[0]?.content === 'string' ? r.results[0].content : JSON.stringify(r.results[0]?.content);
      expect(r.results[0]?.is_error).toBe(true);
      expect(content).toMatch(/not a plain http\(s\) URL|could not start/);
      expect(content).not.toContain(hostile);
      expect(asked).toEqual([]);
      expect(store.read('remote', servers.mcpUrl).tokens).toBeUndefined();
    });
  }
});
