/**
 * roots, both ways (MCP client): a server connected to a session reads the session's working folders with
 * `roots/list`, and hears `notifications/roots/list_changed` when a folder is added mid-session — by a permission
 * update (what `/add-dir` and a permission answer's `addDirectories` apply) — and nothing when the folders stay the
 * same. The server is a real MCP SDK server in this process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Session } from './session.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function watchedServer() {
  const heard: string[][] = [];
  let changes = 0;
  let server: Server | undefined;
  const createServer = () => {
    server = new Server({ name: 'watch', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'noop', inputSchema: { type: 'object' } }] }));
    server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      changes++;
      heard.push((await server!.listRoots()).roots.map((r) => r.uri));
    });
    return server;
  };
  return { createServer, heard, changes: () => changes, roots: async () => (await server!.listRoots()).roots.map((r) => r.uri) };
}

describe('MCP roots of a session', () => {
  it('a folder added mid-session is told to the server (roots/list_changed), then roots/list names it; the same folders again tell nothing', async () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-roots-')));
    made.push(tmp);
    const [dir, extra, home] = ['proj', 'extra', 'home'].map((d) => path.join(tmp, d)) as [string, string, string];
    for (const d of [dir, extra, home]) fs.mkdirSync(d);
    const watch = watchedServer();
    const session = new Session({ cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_API_KEY: 'sk-test' }, settingSources: [], mcpServers: { watch: { type: 'sdk', createServer: watch.createServer } } });
    try {
      await session.start();
      expect(session.findTool('mcp__watch__noop')).toBeDefined();
      expect(await watch.roots()).toEqual([`file://${dir}`]);
      await session.applyPermissionUpdates([{ type: 'addDirectories', directories: [extra], destination: 'session' }]);
      await expect.poll(() => watch.changes()).toBe(1);
      expect(watch.heard).toEqual([[`file://${dir}`, `file://${extra}`]]);
      await session.applyPermissionUpdates([{ type: 'addDirectories', directories: [extra], destination: 'session' }]);
      await session.applyPermissionUpdates([{ type: 'removeDirectories', directories: [extra], destination: 'session' }]);
      await expect.poll(() => watch.changes()).toBe(2);
      expect(watch.heard[1]).toEqual([`file://${dir}`]);
    } finally {
      await session.close();
    }
  }, 30_000);
});
