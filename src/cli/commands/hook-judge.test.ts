/**
 * The hook's judgement on real settings files in a temp project (the engine of `toolgate check`, real bash parser):
 * what a deny, an ask and an allow of the engine become for each host mode, and where it fails closed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckEngine } from './check-request.js';
import { parseHookRequest, type HookHost } from './hook-hosts.js';
import { HookJudge, type HookJudgeOptions } from './hook-judge.js';

let tmp: string;
let proj: string;
let home: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hook-judge-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(proj, '.claude'), { recursive: true });
  fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(proj, '.env'), 'TOKEN=1');
  fs.writeFileSync(
    path.join(proj, '.claude', 'settings.json'),
    JSON.stringify({ permissions: { deny: ['Bash(rm:*)', 'Read(./.env)'], ask: ['mcp__deploy__run', 'Bash(git push:*)'], allow: ['Bash(npm test)'] } }),
  );
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const judgeWith = (options: HookJudgeOptions = {}) => new HookJudge({ homeDir: home, managedSettingsPath: path.join(tmp, 'no-managed.json'), ...options });

async function decide(tool: string, input: Record<string, unknown>, o: { mode?: string; options?: HookJudgeOptions; host?: HookHost; event?: string; cwd?: string } = {}) {
  const request = parseHookRequest(
    { hook_event_name: o.event ?? 'PreToolUse', tool_name: tool, tool_input: input, cwd: o.cwd ?? proj, ...(o.mode ? { permission_mode: o.mode } : {}) },
    o.host,
    proj,
  );
  return (await judgeWith(o.options).judge(request)).answer;
}

describe('what the engine decides becomes', () => {
  it('deny: the rule and where it came from, for the model', async () => {
    const a = await decide('Bash', { command: 'rm -rf build' });
    expect(a.kind).toBe('deny');
    expect(a.reason).toMatch(/Bash\(rm:\*\) \(projectSettings\)/);
  });

  it('deny also where the read goes through a pipe or a redirection', async () => {
    expect((await decide('Bash', { command: 'cat .env | base64' })).kind).toBe('deny');
    expect((await decide('Bash', { command: 'base64 < .env' })).kind).toBe('deny');
    expect((await decide('Read', { file_path: path.join(proj, '.env') })).kind).toBe('deny');
  });

  it('allow: nothing said unless --allow (then allow, with the layer that allowed)', async () => {
    expect((await decide('Bash', { command: 'grep -n foo src/a.ts | head -20' })).kind).toBe('none');
    const a = await decide('Bash', { command: 'grep -n foo src/a.ts | head -20' }, { options: { allow: true } });
    expect(a).toMatchObject({ kind: 'allow' });
    expect(a.reason).toMatch(/read-only/);
    // An allow only the project's own files give is left to the host (which reads .claude/ itself; .toolgate/ it never
    // reads, and a cloned repository brings both): the hook never turns a repository's allow rule into its own allow.
    const project = await decide('Bash', { command: 'npm test' }, { options: { allow: true } });
    expect(project.kind).toBe('none');
    expect(project.reason).toMatch(/project's own rule/);
    // The same rule from a policy file (the user's own word) is an allow.
    expect((await decide('Bash', { command: 'npm test' }, { options: { allow: true, policyFiles: [JSON.stringify({ permissions: { allow: ['Bash(npm test)'] } })] } })).kind).toBe('allow');
  });

  it('ask: for a command, path or URL toolgate judges, and for an ask rule', async () => {
    expect((await decide('Bash', { command: 'npm install left-pad' })).kind).toBe('ask');
    expect((await decide('Bash', { command: 'git push origin main' })).kind).toBe('ask');
    expect((await decide('Read', { file_path: '/etc/shadow' })).kind).toBe('ask');
    expect((await decide('mcp__deploy__run', {})).kind).toBe('ask');
  });

  it('nothing, for a tool acting on nothing toolgate judges that no rule names (the host knows its own tools)', async () => {
    expect((await decide('TaskCreate', { subject: 'x' })).kind).toBe('none');
    expect((await decide('mcp__docs__search', { q: 'x' })).kind).toBe('none');
  });
});

describe("the host's mode", () => {
  it('auto: an ask the classifier may judge is left to the host; an ask rule still asks', async () => {
    expect((await decide('Bash', { command: 'npm install left-pad' }, { mode: 'auto' })).kind).toBe('none');
    expect((await decide('Bash', { command: 'git push origin main' }, { mode: 'auto' })).kind).toBe('ask');
  });

  it('dontAsk: what would ask is denied; what is allowed stays the host’s', async () => {
    expect((await decide('Bash', { command: 'npm install left-pad' }, { mode: 'dontAsk' })).kind).toBe('deny');
    expect((await decide('Bash', { command: 'ls src' }, { mode: 'dontAsk' })).kind).toBe('none');
  });

  it('bypassPermissions: allowed (the host would too), deny rules still deny', async () => {
    expect((await decide('Bash', { command: 'npm install left-pad' }, { mode: 'bypassPermissions' })).kind).toBe('none');
    expect((await decide('Bash', { command: 'rm -rf build' }, { mode: 'bypassPermissions' })).kind).toBe('deny');
  });

  it('acceptEdits: an edit inside the project is allowed, one outside asks', async () => {
    expect((await decide('Write', { file_path: path.join(proj, 'src', 'a.ts'), content: '' }, { mode: 'acceptEdits', options: { allow: true } })).kind).toBe('allow');
    expect((await decide('Write', { file_path: path.join(tmp, 'outside.txt'), content: '' }, { mode: 'acceptEdits' })).kind).toBe('ask');
  });
});

describe('hosts', () => {
  it("Gemini's run_shell_command and read_file are judged as Bash and Read", async () => {
    expect((await decide('run_shell_command', { command: 'rm -rf /' }, { event: 'BeforeTool' })).kind).toBe('deny');
    expect((await decide('read_file', { file_path: '.env' }, { event: 'BeforeTool' })).kind).toBe('deny');
  });

  it("Codex's apply_patch: the strictest answer over every file it touches", async () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Update File: .env\n@@\n-x\n+y\n*** End Patch';
    expect((await decide('apply_patch', { command: patch }, { host: 'codex', mode: 'acceptEdits', options: { allow: true } })).kind).toBe('deny');
    const ok = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch';
    expect((await decide('apply_patch', { command: ok }, { host: 'codex', mode: 'acceptEdits', options: { allow: true } })).kind).toBe('allow');
  });

  it('a directory the model chose inside the project is judged as usual (no prompt); the project is found from the request cwd', async () => {
    // Codex workdir into src/: `ls` there is a read-only command in the project (left to the host, allowed with --allow).
    expect((await decide('Bash', { command: 'ls', workdir: path.join(proj, 'src') }, { host: 'codex', event: 'PermissionRequest', options: { allow: true } })).kind).toBe('allow');
    // No $CLAUDE_PROJECT_DIR, the host's cwd in src/: the project (the folder with .claude/) is found, its deny rule holds.
    expect((await decide('Bash', { command: 'cat ../.env' }, { cwd: path.join(proj, 'src') })).kind).toBe('deny');
  });

  it("the project's settings apply when the call's cwd is below it ($CLAUDE_PROJECT_DIR)", async () => {
    const a = await decide('Bash', { command: 'rm x' }, { cwd: path.join(proj, 'src'), options: { projectDir: proj } });
    expect(a.kind).toBe('deny');
  });
});

describe('fail closed', () => {
  it('a tool toolgate does not know: asks when its input names a command or path, else leaves it to the host', async () => {
    expect((await decide('Frobnicate', { command: 'curl x | sh' })).kind).toBe('ask');
    expect((await decide('Frobnicate', { file_path: '/etc/passwd' })).kind).toBe('ask');
    expect((await decide('Frobnicate', { note: 'hi' })).kind).toBe('none');
  });

  it('settings that cannot be read: ask (never a decision under half a policy)', async () => {
    const broken = path.join(tmp, 'broken');
    fs.mkdirSync(path.join(broken, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(broken, '.claude', 'settings.json'), '{"permissions": {"deny": [');
    const a = await decide('Bash', { command: 'ls' }, { cwd: broken, options: { allow: true } });
    expect(a.kind).toBe('ask');
    expect(a.reason).toMatch(/settings errors/);
  });

  it('an input the schema rejects: ask', async () => {
    expect((await decide('Read', { file_path: 42 })).kind).toBe('ask');
  });

  it('an internal error of the engine: ask', async () => {
    const broken = { decide: () => Promise.reject(new TypeError('boom')), forget: () => {} } as unknown as CheckEngine;
    const request = parseHookRequest({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: proj }, undefined, proj);
    const a = (await new HookJudge({ allow: true }, broken).judge(request)).answer;
    expect(a.kind).toBe('ask');
    expect(a.reason).toMatch(/boom/);
  });
});
