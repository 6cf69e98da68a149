/**
 * `toolgate hook` through the real CLI and the real HTTP server: a Claude Code PreToolUse request in, the JSON out, the
 * log with its trace; install/uninstall in each host's settings (idempotent, other keys kept); the server over TCP
 * and a Unix socket, reloading settings when a file changes.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyHookInstall, planHookInstall } from '../src/cli/commands/hook-install.js';
import { startHookServer } from '../src/cli/commands/hook-serve.js';
import { toolgate } from './helpers/cli.js';

let tmp: string;
let proj: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-cli-hook-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(proj, '.claude'), { recursive: true });
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(proj, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }));
  env = { ...process.env, HOME: home, XDG_STATE_HOME: path.join(tmp, 'state'), CLAUDE_PROJECT_DIR: proj };
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Tests that start the CLI from its TypeScript sources: seconds each on a loaded machine.
const CLI_TIMEOUT = 180_000;

const request = (command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: 's', transcript_path: '/t', cwd: proj, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_1', ...extra });

describe('the command hook', () => {
  it('answers a deny as Claude Code reads it (exit 0, JSON) and logs the decision with its trace', async () => {
    const r = await toolgate(['hook', '--managed-settings', path.join(tmp, 'none.json')], { input: request('rm -rf build'), env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/deny rule Bash\(rm:\*\) \(projectSettings\)/) as unknown },
    });
    const log = await toolgate(['hook', 'log', '-n', '1'], { env });
    expect(log.stdout).toMatch(/claude PreToolUse {2}Bash "rm -rf build"/);
    expect(log.stdout).toMatch(/answer: DENY/);
    expect(log.stdout).toMatch(/denyRule — rule Bash\(rm:\*\) \(projectSettings\)/);
  }, CLI_TIMEOUT);
});

describe('install and uninstall', () => {
  it('Claude Code: one PreToolUse entry, written once, other keys and hooks kept; uninstall takes only it out', () => {
    const file = path.join(home, '.claude', 'settings.json');
    const other = { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter' }] };
    fs.writeFileSync(file, JSON.stringify({ model: 'opus', hooks: { PreToolUse: [other] } }, null, 4));
    const plan = planHookInstall({ host: 'claude', scope: 'user', projectDir: proj, homeDir: home, allow: true });
    const first = applyHookInstall('install', plan);
    expect(first[0]).toMatch(/: changed$/);
    expect(first[1]).toMatch(/^\+ hooks\.PreToolUse: .*toolgate\.js hook --allow/);
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as { model: string; hooks: { PreToolUse: unknown[] } };
    expect(settings.model).toBe('opus');
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse[0]).toEqual(other);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^ {4}"model"/m);
    expect(applyHookInstall('install', plan)[0]).toMatch(/already installed, unchanged/);
    // A re-install with other flags replaces the entry instead of adding a second.
    const again = applyHookInstall('install', planHookInstall({ host: 'claude', scope: 'user', projectDir: proj, homeDir: home }));
    expect(again.filter((l) => l.startsWith('-'))).toHaveLength(1);
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as { hooks: { PreToolUse: unknown[] } }).hooks.PreToolUse).toHaveLength(2);
    expect(applyHookInstall('uninstall', plan)[0]).toMatch(/: changed$/);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ model: 'opus', hooks: { PreToolUse: [other] } });
    expect(applyHookInstall('uninstall', plan)[0]).toMatch(/no toolgate hook, unchanged/);
  });

  it("Gemini CLI's BeforeTool and Codex's hooks.json (PermissionRequest too with --allow); a project entry runs `toolgate` from PATH", () => {
    const gemini = planHookInstall({ host: 'gemini', scope: 'project', projectDir: proj, homeDir: home });
    applyHookInstall('install', gemini);
    expect(JSON.parse(fs.readFileSync(path.join(proj, '.gemini', 'settings.json'), 'utf8'))).toEqual({
      hooks: { BeforeTool: [{ matcher: '.*', hooks: [{ type: 'command', name: 'toolgate', command: 'toolgate hook --host gemini', timeout: 60_000 }] }] },
    });
    const codex = planHookInstall({ host: 'codex', scope: 'user', projectDir: proj, homeDir: home, allow: true });
    applyHookInstall('install', codex);
    const hooks = (JSON.parse(fs.readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> }).hooks;
    expect(Object.keys(hooks)).toEqual(['PreToolUse', 'PermissionRequest']);
    expect(hooks.PreToolUse![0]!.hooks[0]!.command).toMatch(/toolgate\.js hook --host codex --allow$/);
    expect(() => planHookInstall({ host: 'codex', scope: 'user', projectDir: proj, homeDir: home, http: true })).toThrow(/only Claude Code/);
  });

  it("a project's .claude that is a link out of the project: refused, the folder it points to untouched", () => {
    const dir = path.join(tmp, 'linked-claude-dir');
    const target = path.join(tmp, 'someone-elses-claude');
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, 'settings.json'), '{"env":{"K":"v"}}\n');
    fs.symlinkSync(target, path.join(dir, '.claude'));
    expect(() => applyHookInstall('install', planHookInstall({ host: 'claude', scope: 'project', projectDir: dir, homeDir: home }))).toThrow(/link out of/);
    expect(fs.readFileSync(path.join(target, 'settings.json'), 'utf8')).toBe('{"env":{"K":"v"}}\n');
  });

  it('--http: an HTTP hook with the token from the environment, never the token itself', async () => {
    const r = await toolgate(['hook', 'install', '--project', '--http', '--port', '9911', '--project-dir', proj], { env });
    expect(r.code).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(proj, '.claude', 'settings.json'), 'utf8')) as { permissions: unknown; hooks: { PreToolUse: unknown[] } };
    expect(settings.permissions).toEqual({ deny: ['Bash(rm:*)'] });
    expect(settings.hooks.PreToolUse).toEqual([
      { matcher: '*', hooks: [{ type: 'http', url: 'http://127.0.0.1:9911/hook', headers: { Authorization: 'Bearer $TOOLGATE_HOOK_TOKEN' }, allowedEnvVars: ['TOOLGATE_HOOK_TOKEN'] }] },
    ]);
    applyHookInstall('uninstall', planHookInstall({ host: 'claude', scope: 'project', projectDir: proj, homeDir: home }));
    expect(JSON.parse(fs.readFileSync(path.join(proj, '.claude', 'settings.json'), 'utf8'))).toEqual({ permissions: { deny: ['Bash(rm:*)'] } });
  }, CLI_TIMEOUT);
});

function post(target: { url?: string; socketPath?: string }, body: string, token: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const url = target.url !== undefined ? new URL(target.url) : undefined;
    const req = http.request(
      url !== undefined ? { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers } : { socketPath: target.socketPath, path: '/hook', method: 'POST', headers },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('toolgate hook serve', () => {
  it('answers over HTTP as the command does, and reloads the settings when a file changes', async () => {
    const dir = path.join(tmp, 'served');
    fs.mkdirSync(path.join(dir, '.claude'), { recursive: true });
    const server = await startHookServer({ token: 't0ken', allow: true, logFile: path.join(tmp, 'served.jsonl'), homeDir: home, managedSettingsPath: path.join(tmp, 'none.json') });
    try {
      const body = request('npm run build', { cwd: dir });
      expect(await post({ url: server.url }, body, 't0ken')).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask' } });
      // A new deny rule applies to the very next request; a settings file that appears counts as a change.
      fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(npm run:*)'] } }));
      expect(await post({ url: server.url }, body, 't0ken')).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
      fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(npm run:*)'] } }));
      // The project's own allow rule: left to the host ({}), which applies its own project rules (hole 3 of red-hook).
      expect(await post({ url: server.url }, body, 't0ken')).toEqual({});
    } finally {
      await server.close();
    }
    const logged = fs.readFileSync(path.join(tmp, 'served.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { answer: string }).answer);
    expect(logged).toEqual(['ask', 'deny', 'none']);
  });

  it('on a Unix socket, private to the user', async () => {
    const socket = path.join(tmp, 'hook.sock');
    const server = await startHookServer({ token: 'x', socket, logFile: null, homeDir: home, managedSettingsPath: path.join(tmp, 'none.json') });
    try {
      expect(fs.statSync(socket).mode & 0o077).toBe(0);
      expect(await post({ socketPath: socket }, request('rm -rf build'), 'x')).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    } finally {
      await server.close();
    }
  });
});
