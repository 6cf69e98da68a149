/**
 * `toolgate hook serve` remembers verdicts (docs/security.md, "toolgate as another agent's hook"): the host's model,
 * after an injection, asks about a harmless call, then changes the disk under it and asks again. Through the real HTTP
 * server, the real engine and real links: the second answer must be the one the new state of the disk gets.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookServer, type HookServerHandle } from '../../src/cli/commands/hook-serve.js';

let tmp: string;
let proj: string;
let server: HookServerHandle;

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hook-reuse-attack-')));
  proj = path.join(tmp, 'proj');
  fs.mkdirSync(path.join(proj, '.claude'), { recursive: true });
  fs.mkdirSync(path.join(tmp, 'home', '.claude'), { recursive: true });
  fs.writeFileSync(path.join(proj, '.env'), 'TOKEN=secret');
  fs.writeFileSync(path.join(proj, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./.env)'] } }));
  server = await startHookServer({ token: 't', allow: true, logFile: null, homeDir: path.join(tmp, 'home'), managedSettingsPath: path.join(tmp, 'none.json') });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

let id = 0;
async function decision(tool: string, input: Record<string, unknown>, cwd = proj): Promise<string> {
  const body = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'attack', tool_use_id: `toolu_${id++}`, tool_name: tool, tool_input: input, cwd });
  const res = await fetch(server.url, { method: 'POST', body, headers: { authorization: 'Bearer t' } });
  return ((await res.json()) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

describe('a remembered verdict never outlives the disk it was made on', () => {
  it('Read through a link, then the link retargeted at the denied file: denied', async () => {
    const link = path.join(proj, 'view.txt');
    fs.writeFileSync(path.join(proj, 'plain.txt'), 'hello');
    fs.symlinkSync(path.join(proj, 'plain.txt'), link);
    expect(await decision('Read', { file_path: link })).toBe('allow');
    expect(await decision('Read', { file_path: link })).toBe('allow');
    fs.rmSync(link);
    fs.symlinkSync(path.join(proj, '.env'), link);
    expect(await decision('Read', { file_path: link })).toBe('deny');
  });

  it('a read-only command, then its file replaced by a link to the denied file: denied', async () => {
    fs.writeFileSync(path.join(proj, 'notes.txt'), 'hello');
    expect(await decision('Bash', { command: 'cat notes.txt' })).toBe('allow');
    expect(await decision('Bash', { command: 'cat notes.txt' })).toBe('allow');
    fs.rmSync(path.join(proj, 'notes.txt'));
    fs.symlinkSync(path.join(proj, '.env'), path.join(proj, 'notes.txt'));
    expect(await decision('Bash', { command: 'cat notes.txt' })).toBe('deny');
  });
});

/**
 * The server judges the requests that arrived in one turn of its event loop together, asking each filesystem question
 * once for all of them: a burst of equal and different requests (fetch opens several connections, so they arrive
 * together) after a change must be answered from the disk as it is after the change, never from the burst before.
 */
describe('requests judged together see the disk as it is when they arrive', () => {
  const burst = (calls: readonly [string, Record<string, unknown>, string?][]) => Promise.all(Array.from({ length: 4 }, () => calls.map(([tool, input, cwd]) => decision(tool, input, cwd))).flat());

  it('a link retargeted at the denied file between two bursts: every answer of the second is deny', async () => {
    // A project of its own: nothing the other cases create changes the facts its verdicts stand on (a folder's times),
    // and its settings, once older than the server's settle time, are not read again — so the verdicts are reused.
    const links = path.join(tmp, 'links');
    fs.mkdirSync(path.join(links, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(links, '.env'), 'TOKEN=secret');
    fs.writeFileSync(path.join(links, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./.env)'] } }));
    const link = path.join(links, 'view.txt');
    fs.writeFileSync(path.join(links, 'plain.txt'), 'hello');
    fs.symlinkSync(path.join(links, 'plain.txt'), link);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const calls: [string, Record<string, unknown>, string][] = [
      ['Read', { file_path: link }, links],
      ['Bash', { command: 'cat view.txt' }, links],
      ['Bash', { command: 'head -5 view.txt | wc -l' }, links],
    ];
    // Several bursts: one recording at a time, so each burst remembers one more verdict, and checks those remembered.
    for (let i = 0; i < 4; i++) expect(new Set(await burst(calls))).toEqual(new Set(['allow']));
    fs.rmSync(link);
    fs.symlinkSync(path.join(links, '.env'), link);
    expect(new Set(await burst(calls))).toEqual(new Set(['deny']));
  });

  it('a .git planted in a subfolder between two bursts (and removed again): git there asks, then is allowed again', async () => {
    const repo = path.join(tmp, 'repo');
    fs.mkdirSync(path.join(repo, 'sub'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    git('init', '-q');
    const calls: [string, Record<string, unknown>, string][] = [
      ['Bash', { command: 'git -C sub status' }, repo],
      ['Bash', { command: 'cd sub && git log' }, repo],
      ['Bash', { command: 'git status' }, repo],
    ];
    const answers = async () => (await burst(calls)).filter((_, i) => i % 3 !== 2);
    for (let i = 0; i < 4; i++) expect(new Set(await answers())).toEqual(new Set(['allow']));
    git('init', '-q', 'sub');
    expect(new Set(await answers())).toEqual(new Set(['ask']));
    expect(new Set(await answers())).toEqual(new Set(['ask']));
    fs.rmSync(path.join(repo, 'sub', '.git'), { recursive: true });
    expect(new Set(await answers())).toEqual(new Set(['allow']));
  });
});
