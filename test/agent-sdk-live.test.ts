/**
 * The `Query` methods that change what a running session reads (issue 34): applyFlagSettings/updateSettings (fail
 * closed: a deny of any level and the managed policy still win), seedReadState, reloadSkills, readMcpResource and
 * setMcpPermissionModeOverride — each on a real session against the scripted server, before the prompt is sent.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createSdkMcpServer, tool, type Options, type Query, type SDKMessage } from 'toolgate/agent-sdk';
import { checkFlagSettings, readManagedPolicy } from '../src/session/live-settings.js';
import { createPermissionContext } from '../src/permissions/permission-context.js';
import type { ScriptedResponse } from '../src/testing/index.js';
import { call, harness, inputStream, resultOf, text, toolResults, type Harness } from './helpers/agent-sdk-session.js';

let h: Harness | undefined;
/** The model's next answers, taken in order (a test pushes them once it knows its temp folder). */
let script: ScriptedResponse[] = [];
const scripted = () => harness(Array.from({ length: 30 }, () => () => script.shift() ?? text('(no answer left)')));
afterEach(async () => {
  await h?.close();
  h = undefined;
  script = [];
});

/** Starts a streaming session, lets `before` act on it, then sends the prompt and collects every message. */
async function session(prompt: string, options: Options, before: (q: Query) => Promise<void>): Promise<SDKMessage[]> {
  const input = inputStream();
  const q = h!.start(input.stream, options);
  const messages: SDKMessage[] = [];
  const drained = (async () => {
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') input.end();
    }
  })();
  await before(q);
  input.send(prompt);
  await drained;
  return messages;
}

const writeX = (dir: string) => call('Write', { file_path: path.join(dir, 'x.txt'), content: 'x\n' });

describe('applyFlagSettings', () => {
  it('a flag allow rule lets a headless Write through; a later call replaces it; an unknown key applies nothing', async () => {
    h = await scripted();
    script.push(writeX(h.dir), text('done'));
    const messages = await session('write', {}, async (q) => {
      await q.applyFlagSettings({ permissions: { allow: ['Write'] } });
      // Refused whole: the deny rule it carries does not apply either, and the allow above stays.
      await expect(q.applyFlagSettings({ permissions: { deny: ['Write'] }, outputStyle: 'x' })).rejects.toThrow(/"outputStyle" need a new session.*Nothing was applied/);
      await expect(q.applyFlagSettings({ permissions: { allow: ['Write('] } })).rejects.toThrow(/permissions.allow/);
      await expect(q.applyFlagSettings({ permissions: { defaultMode: 'bypassPermissions' } })).rejects.toThrow(/bypassPermissions is not available/);
    });
    expect(readFileSync(path.join(h.dir, 'x.txt'), 'utf8')).toBe('x\n');
    expect(resultOf(messages).permission_denials).toEqual([]);
  });

  it('null clears the flag rules; a deny of a settings file beats a flag allow', async () => {
    h = await scripted();
    script.push(writeX(h.dir), text('no'), writeX(h.dir), text('no'));
    const cleared = await session('write', {}, async (q) => {
      await q.applyFlagSettings({ permissions: { allow: ['Write'] } });
      await q.applyFlagSettings({ permissions: null });
    });
    expect(resultOf(cleared).permission_denials.map((d) => d.tool_name)).toEqual(['Write']);
    mkdirSync(path.join(h.dir, '.claude'));
    writeFileSync(path.join(h.dir, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Write(./x.txt)'] } }));
    const denied = await session('write', { settingSources: ['project'] }, async (q) => {
      await q.applyFlagSettings({ permissions: { allow: ['Write'] }, model: 'claude-opus-4-6' });
    });
    expect(resultOf(denied).permission_denials.map((d) => d.tool_name)).toEqual(['Write']);
    expect(existsSync(path.join(h.dir, 'x.txt'))).toBe(false);
    expect(h.server.messageRequests.at(-1)!.body.model).toBe('claude-opus-4-6');
  });

  it('managed policy wins: under allowManagedPermissionRulesOnly a flag setting adds deny rules only', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'managed-'));
    try {
      const file = path.join(dir, 'managed-settings.json');
      writeFileSync(file, JSON.stringify({ allowManagedPermissionRulesOnly: true, permissions: { disableBypassPermissionsMode: 'disable' } }));
      const policy = readManagedPolicy(file);
      const ctx = createPermissionContext({ cwd: dir, mode: 'default', isBypassPermissionsModeAvailable: true });
      expect(() => checkFlagSettings({ permissions: { allow: ['Bash'] } }, ctx, policy)).toThrow(/allowManagedPermissionRulesOnly/);
      expect(() => checkFlagSettings({ permissions: { ask: ['Bash'] } }, ctx, policy)).toThrow(/allowManagedPermissionRulesOnly/);
      expect(() => checkFlagSettings({ permissions: { defaultMode: 'bypassPermissions' } }, ctx, policy)).toThrow(/bypassPermissions is not available/);
      expect(checkFlagSettings({ permissions: { deny: ['Bash'] } }, ctx, policy).rules?.deny).toHaveLength(1);
      writeFileSync(file, '{ not json');
      expect(() => readManagedPolicy(file)).toThrow(/could not be read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('updateSettings', () => {
  it('writes the allowlisted key of a source the session reads; refuses other keys and sources it does not read', async () => {
    h = await scripted();
    await session('hi', { settingSources: ['user', 'local'] }, async (q) => {
      await q.updateSettings('userSettings', { effortLevel: 'high' });
      await q.updateSettings('localSettings', { outputStyle: 'Explanatory' });
      await expect(q.updateSettings('userSettings', { outputStyle: 'x' })).rejects.toThrow(/takes only "effortLevel"/);
      await expect(q.updateSettings('localSettings', { outputStyle: 3 })).rejects.toThrow(/string value/);
      await expect(q.updateSettings('projectSettings' as never, { outputStyle: 'x' })).rejects.toThrow(/source must be/);
    });
    expect(JSON.parse(readFileSync(path.join(h.home, '.claude', 'settings.json'), 'utf8'))).toEqual({ effortLevel: 'high' });
    expect(JSON.parse(readFileSync(path.join(h.dir, '.claude', 'settings.local.json'), 'utf8'))).toEqual({ outputStyle: 'Explanatory' });
    script.push(text('ok'));
    await session('hi', { settingSources: ['project'] }, async (q) => {
      await expect(q.updateSettings('userSettings', { effortLevel: 'low' })).rejects.toThrow(/does not read userSettings/);
    });
  });
});

describe('seedReadState', () => {
  const edit = (dir: string) => call('Edit', { file_path: path.join(dir, 'a.txt'), old_string: 'one', new_string: 'two' });

  it('a seeded file can be edited without a Read; a file changed since the mtime given is not seeded', async () => {
    h = await scripted();
    const file = path.join(h.dir, 'a.txt');
    writeFileSync(file, 'one\n');
    const mtime = Math.floor(statSync(file).mtimeMs);
    script.push(edit(h.dir), text('done'));
    const unseeded = await session('edit', { permissionMode: 'acceptEdits' }, async () => {});
    expect(toolResults(unseeded)[0]).toMatch(/has not been read yet/);
    script.push(edit(h.dir), text('done'));
    const seeded = await session('edit', { permissionMode: 'acceptEdits' }, (q) => q.seedReadState(file, mtime));
    expect(toolResults(seeded)[0]).not.toMatch(/not been read/);
    expect(readFileSync(file, 'utf8')).toBe('two\n');
    script.push(call('Edit', { file_path: file, old_string: 'two', new_string: 'three' }), text('done'));
    const stale = await session('edit', { permissionMode: 'acceptEdits' }, (q) => q.seedReadState(file, mtime - 10_000));
    expect(toolResults(stale)[0]).toMatch(/has not been read yet/);
    expect(readFileSync(file, 'utf8')).toBe('two\n');
  });
});

describe('reloadSkills', () => {
  it('a skill written after the session started is found and offered', async () => {
    h = await harness([text('ok')]);
    const skill = (name: string) => {
      mkdirSync(path.join(h!.dir, '.claude', 'skills', name), { recursive: true });
      writeFileSync(path.join(h!.dir, '.claude', 'skills', name, 'SKILL.md'), `---\ndescription: The ${name} skill\n---\nDo ${name}.\n`);
    };
    skill('first');
    await session('hi', { settingSources: ['project'] }, async (q) => {
      expect((await q.supportedCommands()).map((c) => c.name)).toEqual(['first']);
      skill('second');
      const { skills } = await q.reloadSkills();
      expect(skills).toEqual([
        { name: 'first', description: 'The first skill (project)', argumentHint: '' },
        { name: 'second', description: 'The second skill (project)', argumentHint: '' },
      ]);
    });
    expect(JSON.stringify(h.server.messageRequests.at(-1)!.body)).toContain('The second skill');
  });
});

describe('readMcpResource', () => {
  it("reads a server's ui:// resource; another scheme or an unknown server is an error", async () => {
    h = await harness([text('ok')]);
    const apps = new McpServer({ name: 'apps', version: '1.0.0' }, { capabilities: { resources: {} } });
    apps.registerResource('widget', 'ui://widget/1', { mimeType: 'text/html' }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/html', text: '<b>hi</b>' }] }));
    await session('hi', { mcpServers: { apps: { type: 'sdk', name: 'apps', instance: apps } } }, async (q) => {
      expect(await q.readMcpResource('apps', 'ui://widget/1')).toEqual({ contents: [{ uri: 'ui://widget/1', mimeType: 'text/html', text: '<b>hi</b>' }] });
      await expect(q.readMcpResource('apps', 'file:///etc/passwd')).rejects.toThrow(/ui:\/\/ resources/);
      await expect(q.readMcpResource('nobody', 'ui://widget/1')).rejects.toThrow(/not one of this session's/);
    });
  });
});

describe('setMcpPermissionModeOverride', () => {
  const adder = () => createSdkMcpServer({ name: 'calc', version: '1.0.0', tools: [tool('add', 'Adds', { a: z.number(), b: z.number() }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))] });
  const options: Options = { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true, mcpServers: { calc: adder() }, env: { ENABLE_TOOL_SEARCH: 'false' } };
  const add = call('mcp__calc__add', { a: 1, b: 2 });

  it("'default' has a bypassPermissions session ask for the server's calls (headless: denied); null lifts it", async () => {
    h = await scripted();
    script.push(add, text('done'), add, text('done'), add, text('done'));
    const asked = await session('add', options, async (q) => {
      expect(await q.setMcpPermissionModeOverride('calc', 'default')).toEqual({});
      expect((await q.setMcpPermissionModeOverride('calx', 'default')).warning).toMatch(/no MCP server is named "calx"/);
    });
    expect(resultOf(asked).permission_denials.map((d) => d.tool_name)).toEqual(['mcp__calc__add']);
    const lifted = await session('add', options, async (q) => {
      await q.setMcpPermissionModeOverride('calc', 'default');
      await q.setMcpPermissionModeOverride('calc', null);
    });
    expect(toolResults(lifted)).toEqual(['3']);
    await expect(
      session('add', options, async (q) => {
        await q.setMcpPermissionModeOverride('calc', 'bypassPermissions' as never);
      }),
    ).rejects.toThrow(/mode must be/);
  });
});
