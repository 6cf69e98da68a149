/**
 * `toolgate hook serve` remembers verdicts (docs/security.md, "toolgate as another agent's hook"): the host's model,
 * after an injection, asks about a harmless call, then changes the disk under it and asks again. Through the real HTTP
 * server, the real engine and real links: the second answer must be the one the new state of the disk gets.
 */
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
async function decision(tool: string, input: Record<string, unknown>): Promise<string> {
  const body = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'attack', tool_use_id: `toolu_${id++}`, tool_name: tool, tool_input: input, cwd: proj });
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
