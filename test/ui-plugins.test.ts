/**
 * Plugins in the terminal session (pty + xterm, the scripted server as the model): `--plugin-dir` loads the plugin,
 * `/plugin` lists it with what it added (command, skill, agent, MCP server), its command runs as typed, and in a
 * turn its hook fires, its MCP tool is called and its agent runs;
 * `/plugin install` fetches a marketplace from a local git repository (the hardened git runner), shows what the plugin
 * runs and asks the person: "Do not install" leaves nothing behind, "Install" copies and enables it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { spawnToolgate, type PtyScreen } from './helpers/pty-screen.js';

const KIT = realpathSync(path.join(import.meta.dirname, 'fixtures', 'plugins', 'toolgate-kit'));

let dir: string;
let server: ScriptedServer | undefined;
let term: PtyScreen | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-plugins-')));
  mkdirSync(path.join(dir, 'work'));
  mkdirSync(path.join(dir, 'home'));
});
afterEach(async () => {
  if (term) {
    term.kill();
    await term.exited;
  }
  term = undefined;
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('plugins in the terminal session', () => {
  it('/plugin lists the plugin and its parts; /toolgate-kit:greet runs', async () => {
    const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: 'tool_use' as const, name, input }] });
    server = await startScriptedServer([
      { content: [{ type: 'text', text: 'Hello there, Ada.' }] },
      call('Bash', { command: 'echo plugged', description: 'echo' }),
      call('mcp__plugin_toolgate-kit_echo__echo', { text: 'hi' }),
      call('Agent', { description: 'review', prompt: 'review the change', subagent_type: 'toolgate-kit:reviewer' }),
      { content: [{ type: 'text', text: 'LGTM' }] },
      { content: [{ type: 'text', text: 'All kit parts used.' }] },
    ]);
    term = spawnToolgate(['--cwd', path.join(dir, 'work'), '--plugin-dir', KIT, '--allowedTools', 'Bash(echo *)', 'mcp__plugin_toolgate-kit_echo__echo'], {
      rows: 60,
      env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
    });
    await term.waitFor('Ask for something');
    term.write('/plugin\r');
    const screen = await term.waitFor('MCP server plugin:toolgate-kit:echo');
    expect(screen).toContain(`toolgate-kit  (${KIT})`);
    expect(screen).toContain('command /toolgate-kit:greet');
    expect(screen).toContain('skill /toolgate-kit:tidy-notes');
    expect(screen).toContain('agent toolgate-kit:reviewer');
    term.write('/toolgate-kit:greet Ada\r');
    await term.waitFor('Hello there, Ada.');
    expect(JSON.stringify(server.messageRequests[0]!.body.messages)).toContain('Greet Ada warmly.');
    // The hook fires, the MCP tool is called, the agent runs — in the terminal session too.
    term.write('use the kit\r');
    await term.waitFor('All kit parts used.');
    expect(readFileSync(path.join(dir, 'work', 'plugin-hook.log'), 'utf8')).toBe('PostToolUse Bash echo plugged\n');
    expect(JSON.stringify(server.messageRequests[3]!.body)).toContain('echo: hi');
    expect(JSON.stringify(server.messageRequests[4]!.body.system)).toContain('You are the toolgate-kit reviewer.');
    expect(JSON.stringify(server.messageRequests[5]!.body)).toContain('LGTM');
  }, 120_000);
});

describe('/plugin install in the terminal session', () => {
  it('shows what the plugin runs and asks; "Do not install" installs nothing, "Install" installs and enables it', async () => {
    const repo = path.join(dir, 'market');
    mkdirSync(path.join(repo, '.claude-plugin'), { recursive: true });
    cpSync(KIT, path.join(repo, 'plugins', 'toolgate-kit'), { recursive: true });
    writeFileSync(path.join(repo, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'kit', owner: { name: 't' }, plugins: [{ name: 'toolgate-kit', source: './plugins/toolgate-kit' }] }));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'marketplace');
    const userSettings = path.join(dir, 'home', '.claude', 'settings.json');
    mkdirSync(path.dirname(userSettings), { recursive: true });
    writeFileSync(userSettings, JSON.stringify({ extraKnownMarketplaces: { kit: { source: { source: 'git', url: repo } } } }));
    server = await startScriptedServer([]);
    term = spawnToolgate(['--cwd', path.join(dir, 'work')], {
      rows: 60,
      env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
    });
    const cache = path.join(dir, 'state', 'toolgate', 'plugins', 'cache', 'kit', 'toolgate-kit');
    await term.waitFor('Ask for something');
    term.write('/plugin install toolgate-kit@kit\r');
    let screen = await term.waitFor('Install toolgate-kit@kit?');
    expect(screen).toContain('hook PostToolUse (Bash): runs node');
    expect(screen).toContain('MCP server echo');
    term.write('2');
    await term.waitFor('toolgate-kit@kit was not installed.');
    expect(existsSync(cache)).toBe(false);
    term.write('/plugin install toolgate-kit@kit\r');
    // The second ask: its contents shown again below the first refusal.
    await term.waitFor((s) => s.includes('Install toolgate-kit@kit?') && s.split('hook PostToolUse (Bash)').length >= 3);
    term.write('1');
    screen = await term.waitFor('Installed toolgate-kit@kit');
    expect(existsSync(path.join(cache, '.claude-plugin', 'plugin.json'))).toBe(true);
    expect(JSON.parse(readFileSync(userSettings, 'utf8')).enabledPlugins).toEqual({ 'toolgate-kit@kit': true });
  }, 120_000);
});
