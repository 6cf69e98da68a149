/** The real MCP servers the tests start: the npm reference servers and the fixture server for crash/list-change cases. */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../config.js';
import type { ScopedMcpServer } from '../load-config.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function packageMain(name: string): string {
  return path.join(path.dirname(require.resolve(`${name}/package.json`)), 'dist', 'index.js');
}

export const EVERYTHING_SERVER = packageMain('@modelcontextprotocol/server-everything');
export const FILESYSTEM_SERVER = packageMain('@modelcontextprotocol/server-filesystem');
export const MEMORY_SERVER = packageMain('@modelcontextprotocol/server-memory');
export const FIXTURE_SERVER = path.join(root, 'test', 'fixtures', 'mcp-fixture-server.mjs');
export const REPO_ROOT = root;

export function nodeServer(script: string, args: readonly string[] = [], env: Record<string, string> = {}): McpServerConfig {
  return { type: 'stdio', command: process.execPath, args: [script, ...args], env };
}

export function scoped(servers: Record<string, McpServerConfig>, approval: ScopedMcpServer['approval'] = 'approved'): Map<string, ScopedMcpServer> {
  return new Map(Object.entries(servers).map(([name, config]) => [name, { name, config, scope: 'flag', file: 'test', approval }]));
}
