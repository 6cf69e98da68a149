/**
 * `toolgate hook serve` reuses a verdict for an equal request only while every filesystem fact the first judgement
 * read still holds (hook-judge.ts HookJudge.judge): real files, real settings, the real engine — counted decisions
 * show when a verdict was reused, and each filesystem change below must make the judge decide again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckEngine } from './check-request.js';
import { createCheckToolResolver } from './check-tools.js';
import { parseHookRequest } from './hook-hosts.js';
import { HookJudge } from './hook-judge.js';

let tmp: string;
let proj: string;
let home: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hook-reuse-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(proj, '.claude'), { recursive: true });
  fs.mkdirSync(path.join(proj, 'data'), { recursive: true });
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(proj, '.env'), 'TOKEN=1');
  fs.writeFileSync(path.join(proj, 'notes.txt'), 'hello');
  fs.writeFileSync(path.join(proj, 'data', 'a.txt'), 'x');
  fs.writeFileSync(path.join(proj, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./.env)', 'Read(./data/secret.txt)'] } }));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

class CountingEngine extends CheckEngine {
  decisions = 0;
  override decide(...args: Parameters<CheckEngine['decide']>): ReturnType<CheckEngine['decide']> {
    this.decisions++;
    return super.decide(...args);
  }
}

function setup() {
  const engine = new CountingEngine(createCheckToolResolver(), { cwd: proj, home, managedSettingsPath: path.join(tmp, 'no-managed.json'), flagSettingsFiles: [] });
  const judge = new HookJudge({ homeDir: home, allow: true, reuseVerdicts: true }, engine);
  let id = 0;
  const ask = async (tool: string, input: Record<string, unknown>) =>
    (await judge.judge(parseHookRequest({ hook_event_name: 'PreToolUse', session_id: `s${id}`, tool_use_id: `toolu_${id++}`, tool_name: tool, tool_input: input, cwd: proj }, undefined, proj))).answer.kind;
  return { engine, judge, ask };
}

describe('hook serve: a verdict is reused only while its facts hold', () => {
  it('an equal request (other session and tool_use ids) is not decided again', async () => {
    const { engine, ask } = setup();
    expect(await ask('Bash', { command: 'git status' })).toBe('allow');
    expect(await ask('Bash', { command: 'git status' })).toBe('allow');
    expect(await ask('Bash', { command: 'git status' })).toBe('allow');
    expect(engine.decisions).toBe(1);
    expect(await ask('Bash', { command: 'git log' })).toBe('allow');
    expect(engine.decisions).toBe(2);
  });

  it('a link retargeted at a denied file after the first verdict: decided again, and denied', async () => {
    const { engine, ask } = setup();
    const link = path.join(proj, 'link');
    fs.symlinkSync(path.join(proj, 'notes.txt'), link);
    try {
      expect(await ask('Read', { file_path: link })).toBe('allow');
      expect(await ask('Read', { file_path: link })).toBe('allow');
      expect(engine.decisions).toBe(1);
      fs.rmSync(link);
      fs.symlinkSync(path.join(proj, '.env'), link);
      expect(await ask('Read', { file_path: link })).toBe('deny');
      expect(engine.decisions).toBe(2);
    } finally {
      fs.rmSync(link, { force: true });
    }
  });

  it("a denied file that appears under a search's root after the first verdict: asks", async () => {
    const { ask } = setup();
    const grep = { pattern: 'x', path: path.join(proj, 'data'), output_mode: 'content' };
    expect(await ask('Grep', grep)).toBe('allow');
    fs.writeFileSync(path.join(proj, 'data', 'secret.txt'), 'x');
    try {
      expect(await ask('Grep', grep)).toBe('ask');
    } finally {
      fs.rmSync(path.join(proj, 'data', 'secret.txt'));
    }
  });

  it('forget() (a settings file changed) drops every remembered verdict', async () => {
    const { engine, judge, ask } = setup();
    await ask('Bash', { command: 'git status' });
    judge.forget();
    await ask('Bash', { command: 'git status' });
    expect(engine.decisions).toBe(2);
  });
});
