/**
 * `toolgate hook serve` keeps each project's settings (its engine's contexts) and the verdicts judged under them, and
 * watches the settings files behind them (settings-watch.ts; docs/security.md, "toolgate as another agent's hook").
 * The attacker is the host's model after an injection, and what it can do to the disk between two of its calls: a
 * project folder reached through a link retargeted at another project, a settings file swapped for a link to a file
 * with other rules, its modification time set back; or a burst of requests mixing projects, so that one project's
 * remembered verdict might answer for the other. Through the real HTTP server; the first two cases fail with the
 * watch taken out (settings kept until the server restarts), the burst when verdicts are keyed without the cwd.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookServer, type HookServerHandle } from '../../src/cli/commands/hook-serve.js';

let tmp: string;
let server: HookServerHandle;
const past = new Date(Date.now() - 3_600_000);

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hook-serve-settings-attack-')));
  fs.mkdirSync(path.join(tmp, 'home', '.claude'), { recursive: true });
  server = await startHookServer({ token: 't', allow: true, logFile: null, homeDir: path.join(tmp, 'home'), managedSettingsPath: path.join(tmp, 'none.json') });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A project with a secret file and these deny rules, its settings file's times an hour old. */
function project(name: string, deny: readonly string[]): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret');
  const file = path.join(dir, '.claude', 'settings.json');
  fs.writeFileSync(file, JSON.stringify({ permissions: { deny } }));
  fs.utimesSync(file, past, past);
  return dir;
}

let id = 0;
async function decision(cwd: string, file = path.join(cwd, 'secret.txt')): Promise<string> {
  const body = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'attack', tool_use_id: `toolu_${id++}`, tool_name: 'Read', tool_input: { file_path: file }, cwd });
  const res = await fetch(server.url, { method: 'POST', body, headers: { authorization: 'Bearer t' } });
  return ((await res.json()) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

describe("hook serve judges each request by its project's settings as they are on disk", () => {
  it('the project folder a link, retargeted at a project that denies the file: denied', async () => {
    const open = project('open', ['Read(./other.txt)']);
    const closed = project('closed', ['Read(./secret.txt)']);
    const work = path.join(tmp, 'work');
    fs.symlinkSync(open, work);
    expect(await decision(work)).toBe('allow');
    expect(await decision(work)).toBe('allow');
    fs.rmSync(work);
    fs.symlinkSync(closed, work);
    expect(await decision(work)).toBe('deny');
  });

  it('the settings file swapped for a link to a file with a deny rule, its times set back: denied', async () => {
    const proj = project('swapped', ['Read(./other.txt)']);
    expect(await decision(proj)).toBe('allow');
    expect(await decision(proj)).toBe('allow');
    const elsewhere = path.join(tmp, 'elsewhere.json');
    fs.writeFileSync(elsewhere, JSON.stringify({ permissions: { deny: ['Read(./secret.txt)'] } }));
    fs.utimesSync(elsewhere, past, past);
    const file = path.join(proj, '.claude', 'settings.json');
    fs.rmSync(file);
    fs.symlinkSync(elsewhere, file);
    expect(await decision(proj)).toBe('deny');
  });

  it("a burst mixing two projects asking about the same file: each answered by its own project, never by the other's verdict", async () => {
    const a = project('mix-a', ['Read(./other.txt)']);
    const b = project('mix-b', ['Read(./secret.txt)']);
    const file = path.join(b, 'secret.txt');
    // Settings changed within 2 s of their load are read again for every request (settings-watch.ts): past that, the
    // server remembers verdicts.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    // From A, B's file is outside the project: asked about (remembered from here on).
    expect(await decision(a, file)).toBe('ask');
    expect(await decision(a, file)).toBe('ask');
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 4 }, () => [decision(a, file), decision(b, file)]).flat());
      expect(answers).toEqual(['ask', 'deny', 'ask', 'deny', 'ask', 'deny', 'ask', 'deny']);
    }
  });
});
