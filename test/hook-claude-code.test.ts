/**
 * End to end with the real Claude Code (installed on demand into ~/.cache/toolgate-test, never a dependency), headless
 * against the scripted Messages API server, `toolgate hook --allow` as its PreToolUse hook in the user's settings: the
 * model runs toolgate's corpus (test/fixtures/hook-corpus.ts) one command per turn. Every command toolgate's engine
 * denies or asks about must not run — its marker file absent, the secret of the denied `.env` in no tool result —
 * and the everyday commands the engine allows must run (the hook's allow saved Claude Code's prompt, which headless
 * is a denial).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHookRequest } from '../src/cli/commands/hook-hosts.js';
import { HookJudge } from '../src/cli/commands/hook-judge.js';
import { ensureClaudeCode, runClaudeCode, type ClaudeCodeRun } from './helpers/claude-code.js';
import { repoRoot } from './helpers/cli.js';
import { ADVERSARIAL, BENIGN, makeCorpusProject, ran } from './fixtures/hook-corpus.js';

const SED_EXEC = ADVERSARIAL.find((c) => c.command.startsWith("sed -n '1e"))!;

const claude = ensureClaudeCode();
const skip = 'skip' in claude ? claude.skip : undefined;

let tmp: string;
let proj: string;
let home: string;
let run: ClaudeCodeRun;
const corpus = [...ADVERSARIAL, ...BENIGN];
const engine = new Map<string, string>();

describe.skipIf(skip !== undefined)(`Claude Code with toolgate as its hook${skip !== undefined ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    if ('skip' in claude) return;
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hook-cc-')));
    proj = path.join(tmp, 'proj');
    home = path.join(tmp, 'home');
    makeCorpusProject(proj);
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    const managed = path.join(tmp, 'no-managed-settings.json');
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(repoRoot, 'bin', 'toolgate.js'))} hook --allow --managed-settings ${JSON.stringify(managed)}`;
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command }] }] } }));
    // What toolgate's engine alone says of each command, on the same files, before anything runs.
    const judge = new HookJudge({ allow: true, homeDir: home, managedSettingsPath: managed, projectDir: proj });
    for (const c of corpus) {
      const request = parseHookRequest({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: c.command }, cwd: proj, permission_mode: 'default' }, 'claude', proj);
      engine.set(c.command, (await judge.judge(request)).answer.kind);
    }
    run = await runClaudeCode(claude.bin, { cwd: proj, home, commands: corpus.map((c) => c.command), env: { XDG_STATE_HOME: path.join(tmp, 'state') } });
  }, 900_000);

  afterAll(() => {
    if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('asked the hook about every command, and got an answer for each', () => {
    const log = fs.readFileSync(path.join(tmp, 'state', 'toolgate', 'hook-log.jsonl'), 'utf8').trim().split('\n');
    expect(log.length).toBeGreaterThanOrEqual(corpus.length);
    expect(run.outcomes.filter((o) => o.result === undefined).map((o) => o.command)).toEqual([]);
  });

  it('runs no command that toolgate denies or asks about', () => {
    const stopped = corpus.filter((c) => engine.get(c.command) === 'deny' || engine.get(c.command) === 'ask');
    // The corpus is adversarial: the engine stops every one of those commands.
    expect(ADVERSARIAL.filter((c) => !stopped.includes(c)).map((c) => `${c.command} → ${engine.get(c.command)}`)).toEqual([]);
    const leaked = stopped.filter((c) => ran(proj, c, run.outcomes.find((o) => o.command === c.command)?.result)).map((c) => c.command);
    expect(leaked).toEqual([]);
    for (const c of stopped) expect(run.outcomes.find((o) => o.command === c.command)?.isError, c.command).toBe(true);
  });

  it('runs the everyday commands toolgate allows, which Claude Code alone would have prompted for in part', () => {
    const allowed = BENIGN.filter((c) => engine.get(c.command) === 'allow');
    // Most of them: the rest ask because of the project's Read(./.env) deny (a loop variable or `xargs` could name it).
    expect(allowed.length).toBeGreaterThan(BENIGN.length / 2);
    const notRun = allowed.filter((c) => run.outcomes.find((o) => o.command === c.command)?.isError !== false).map((c) => c.command);
    expect(notRun).toEqual([]);
  });
});

describe.skipIf(skip !== undefined)(`Claude Code with toolgate as its PermissionRequest hook${skip !== undefined ? ` (skipped: ${skip})` : ''}`, () => {
  it('approves what Claude Code would prompt for and toolgate allows; what toolgate asks about stays a prompt (headless: denied)', async () => {
    if ('skip' in claude) return;
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hook-cc-pr-')));
    try {
      const project = path.join(dir, 'proj');
      const user = path.join(dir, 'home');
      makeCorpusProject(project, {}, { readDeny: false });
      fs.mkdirSync(path.join(user, '.claude'), { recursive: true });
      const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(repoRoot, 'bin', 'toolgate.js'))} hook --allow --managed-settings ${JSON.stringify(path.join(dir, 'none.json'))}`;
      fs.writeFileSync(path.join(user, '.claude', 'settings.json'), JSON.stringify({ hooks: { PermissionRequest: [{ matcher: '*', hooks: [{ type: 'command', command }] }] } }));
      const commands = ['git -C . status --short', 'git -C . log --oneline -3', SED_EXEC.command];
      const r = await runClaudeCode(claude.bin, { cwd: project, home: user, commands, env: { XDG_STATE_HOME: path.join(dir, 'state') } });
      const log = fs.readFileSync(path.join(dir, 'state', 'toolgate', 'hook-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; answer: string });
      // Claude Code asked the hook only where it was about to prompt, and ran what toolgate allowed.
      expect(log.map((e) => [e.event, e.answer])).toEqual([
        ['PermissionRequest', 'allow'],
        ['PermissionRequest', 'allow'],
        ['PermissionRequest', 'ask'],
      ]);
      expect(r.outcomes.slice(0, 2).map((o) => o.isError)).toEqual([false, false]);
      expect(r.outcomes[2]!.isError).toBe(true);
      expect(ran(project, SED_EXEC, r.outcomes[2]!.result)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
