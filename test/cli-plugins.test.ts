/**
 * Plugins from the CLI: `toolgate -p --plugin-dir DIR`, `toolgate plugin validate`, and a marketplace declared in the
 * settings as a local git repository — `toolgate plugin install` shows what the plugin runs, refuses headless without
 * `--yes`, installs into the state folder (cloned with the hardened git runner) and enables it; the next `-p` run
 * loads it from the settings; `disable` turns it off. HOME and XDG_STATE_HOME point into the temp folder.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { toolgate } from './helpers/cli.js';

const KIT = realpathSync(path.join(import.meta.dirname, 'fixtures', 'plugins', 'toolgate-kit'));

let dir: string;
let work: string;
let home: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-cli-plugins-')));
  work = path.join(dir, 'work');
  home = path.join(dir, 'home');
  mkdirSync(work, { recursive: true });
  mkdirSync(path.join(home, '.claude'), { recursive: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: path.join(dir, 'state'), ...extra });
const lines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

/** A marketplace in a local git repository, holding a copy of toolgate-kit. */
function gitMarketplace(): string {
  const repo = path.join(dir, 'market');
  mkdirSync(path.join(repo, '.claude-plugin'), { recursive: true });
  cpSync(KIT, path.join(repo, 'plugins', 'toolgate-kit'), { recursive: true });
  writeFileSync(path.join(repo, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'kit', owner: { name: 'toolgate' }, plugins: [{ name: 'toolgate-kit', source: './plugins/toolgate-kit', description: 'one of each part' }] }));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'marketplace');
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ extraKnownMarketplaces: { kit: { source: { source: 'git', url: repo } } } }));
  return repo;
}

describe('plugins from the CLI', { timeout: 120_000 }, () => {
  it('-p --plugin-dir: the plugin command expands and init lists the plugin', async () => {
    server = await startScriptedServer([{ content: [{ type: 'text', text: 'Hi Ada.' }] }]);
    const run = await toolgate(['-p', '/toolgate-kit:greet Ada', '--plugin-dir', KIT, '--output-format', 'stream-json', '--verbose', '--cwd', work], { env: env({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url }) });
    expect(run.code).toBe(0);
    const out = lines(run.stdout);
    expect(out[0]).toMatchObject({ type: 'system', subtype: 'init', plugins: [{ name: 'toolgate-kit', path: KIT }] });
    expect(out[0]!.slash_commands).toContain('toolgate-kit:greet');
    expect(JSON.stringify(server.messageRequests[0]!.body.messages)).toContain('Greet Ada warmly.');
  });

  it('-p --plugin-dir: the hook fires, the MCP tool is listed and called, the skill is offered and runs, the agent runs', async () => {
    const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: 'tool_use' as const, name, input }] });
    server = await startScriptedServer([
      call('Bash', { command: 'echo plugged', description: 'echo' }),
      call('mcp__plugin_toolgate-kit_echo__echo', { text: 'hi' }),
      call('Skill', { skill: 'toolgate-kit:tidy-notes' }),
      call('Agent', { description: 'review', prompt: 'review the change', subagent_type: 'toolgate-kit:reviewer' }),
      { content: [{ type: 'text', text: 'LGTM' }] },
      { content: [{ type: 'text', text: 'all done' }] },
    ]);
    const run = await toolgate(
      ['-p', 'use the kit', '--plugin-dir', KIT, '--output-format', 'stream-json', '--verbose', '--cwd', work, '--allowedTools', 'Bash(echo *)', 'mcp__plugin_toolgate-kit_echo__echo'],
      { env: env({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url }) },
    );
    expect(run.code, run.stderr).toBe(0);
    const out = lines(run.stdout);
    expect(out[0]!.tools).toContain('mcp__plugin_toolgate-kit_echo__echo');
    expect(out.at(-1)).toMatchObject({ type: 'result', result: 'all done' });
    // The hook: its ${CLAUDE_PLUGIN_ROOT} script ran after the Bash call.
    expect(readFileSync(path.join(work, 'plugin-hook.log'), 'utf8')).toBe('PostToolUse Bash echo plugged\n');
    const requests = server.messageRequests.map((r) => JSON.stringify(r.body));
    expect(requests[2]).toContain('echo: hi');
    const tools = server.messageRequests[0]!.body.tools as { name: string; description: string }[];
    expect(tools.find((t) => t.name === 'Skill')!.description).toContain('toolgate-kit:tidy-notes');
    expect(requests[3]).toContain('Turn each line of the notes file into a bullet.');
    expect(JSON.stringify(server.messageRequests[4]!.body.system)).toContain('You are the toolgate-kit reviewer.');
    expect(requests[5]).toContain('LGTM');
  });

  it('plugin validate shows what a plugin runs; a plugin that points outside itself fails', async () => {
    const ok = await toolgate(['plugin', 'validate', KIT], { env: env() });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('command /toolgate-kit:greet');
    expect(ok.stdout).toContain('agent toolgate-kit:reviewer');
    // A shell command keeps the variable (its environment holds the folder: docs/security.md §9); the first line names the folder.
    expect(ok.stdout).toContain(`plugin toolgate-kit 1.0.0 (${KIT})`);
    expect(ok.stdout).toContain('hook PostToolUse (Bash): runs node "${CLAUDE_PLUGIN_ROOT}"/scripts/record-hook.mjs');
    expect(ok.stdout).toContain(`MCP server echo (tools mcp__plugin_toolgate-kit_echo__*): runs node ${KIT}/servers/echo.mjs`);
    const bad = path.join(dir, 'bad');
    mkdirSync(path.join(bad, '.claude-plugin'), { recursive: true });
    writeFileSync(path.join(bad, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'bad', commands: '../elsewhere' }));
    const refused = await toolgate(['plugin', 'validate', bad], { env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/"commands" paths must be strings starting with "\.\/"/);
  });

  it('a git marketplace: install asks (headless needs --yes), shows the contents, enables it; -p loads it; disable turns it off', async () => {
    gitMarketplace();
    const listed = await toolgate(['plugin', 'list', '--cwd', work], { env: env() });
    expect(listed.stdout).toContain('toolgate-kit@kit  not installed  one of each part');

    const headless = await toolgate(['plugin', 'install', 'toolgate-kit@kit', '--cwd', work], { env: env() });
    expect(headless.code).toBe(1);
    expect(headless.stderr).toContain('hook PostToolUse (Bash): runs node');
    expect(headless.stderr).toContain('pass --yes');
    expect(existsSync(path.join(dir, 'state', 'toolgate', 'plugins', 'installed.json'))).toBe(false);

    const installed = await toolgate(['plugin', 'install', 'toolgate-kit@kit', '--yes', '--cwd', work], { env: env() });
    expect(installed.stderr).toContain('MCP server echo');
    expect(installed.code).toBe(0);
    const target = path.join(dir, 'state', 'toolgate', 'plugins', 'cache', 'kit', 'toolgate-kit');
    expect(existsSync(path.join(target, '.claude-plugin', 'plugin.json'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).enabledPlugins).toEqual({ 'toolgate-kit@kit': true });

    server = await startScriptedServer([{ content: [{ type: 'text', text: 'Hi Bo.' }] }, { content: [{ type: 'text', text: 'plain' }] }]);
    const keys = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url };
    const run = await toolgate(['-p', '/toolgate-kit:greet Bo', '--output-format', 'json', '--cwd', work], { env: env(keys) });
    expect(run.code).toBe(0);
    expect(JSON.stringify(server.messageRequests[0]!.body.messages)).toContain(`Greet Bo warmly. The greeting card is in ${target}/commands.`);

    expect((await toolgate(['plugin', 'disable', 'toolgate-kit@kit', '--cwd', work], { env: env() })).code).toBe(0);
    const off = await toolgate(['-p', '/toolgate-kit:greet Bo', '--output-format', 'json', '--cwd', work], { env: env(keys) });
    expect(off.code).toBe(0);
    expect(JSON.stringify(server.messageRequests[1]!.body.messages)).not.toContain('Greet Bo warmly');
  });
});
