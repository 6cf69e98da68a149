/**
 * Everything a settings file says reaches the tools, through the real `toolgate exec` (node + tsx child process),
 * real bash and real bubblewrap: `env`, `sandbox`, `bashOutputMaxChars` and the conversation budget.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../src/tools/bash/sandbox.js';
import { toolgate } from './helpers/cli.js';
import { tempSession, type TempSession } from './helpers/execution.js';

type ResultBlock = { type: string; tool_use_id: string; content: string; is_error?: boolean };

let session: TempSession;
let home: string;
let work: string;
beforeEach(() => {
  session = tempSession('toolgate-exec-settings-');
  home = path.join(session.dir, 'home');
  work = path.join(session.dir, 'work');
  mkdirSync(home);
  mkdirSync(work);
});
afterEach(() => session.cleanup());

function settingsFile(value: unknown): string {
  const file = path.join(session.dir, `settings-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

async function exec(settings: unknown, commands: string[]): Promise<{ code: number; results: ResultBlock[]; stderr: string }> {
  const blocks = commands.map((command, i) => ({ type: 'tool_use', id: `toolu_${i + 1}`, name: 'Bash', input: { command } }));
  const r = await toolgate(['exec', '--json', '--cwd', work, '--session-dir', path.join(session.dir, 's'), '--settings', settingsFile(settings), '-'], {
    input: JSON.stringify(blocks),
    env: { ...process.env, HOME: home, XDG_STATE_HOME: path.join(home, 'state') },
  });
  const results = r.code === 0 ? ((JSON.parse(r.stdout) as { content: ResultBlock[] }).content.filter((b) => b.type === 'tool_result')) : [];
  return { code: r.code, results, stderr: r.stderr };
}

describe('toolgate exec honours settings files', () => {
  it('env: the settings file’s variables reach Bash, even a name the secret scrubber would remove (its value redacted in the result)', async () => {
    const { code, results } = await exec(
      { env: { FOO_SETTING: 'bar', GH_TOKEN: 'from-settings' }, permissions: { allow: ['Bash(printenv:*)', 'Bash(test:*)'] } },
      ['printenv FOO_SETTING', 'printenv GH_TOKEN', 'test "$GH_TOKEN" = from-settings && echo same'],
    );
    expect(code).toBe(0);
    // Bash has the credential (the comparison), and the model never sees it printed.
    expect(results.map((r) => r.content.trim())).toEqual(['bar', '[REDACTED:GH_TOKEN]', 'same']);
  });

  it('bashOutputMaxChars: a longer output is not printed in full', async () => {
    const { results } = await exec({ bashOutputMaxChars: 5000, permissions: { allow: ['Bash(head:*)'] } }, ['head -c 20000 /dev/zero | tr "\\0" a']);
    expect(results[0]!.content.length).toBeLessThan(10_000);
    expect(results[0]!.content).not.toContain('a'.repeat(6000));
  });

  it('the conversation budget: 16 large outputs do not all print in full; a lower budget from settings replaces more', async () => {
    // 16 × 29,000 characters: each fits Bash's own limit (30,000), together they pass the default budget (400,000).
    const commands = Array.from({ length: 16 }, (_, i) => `head -c 29000 /dev/zero | tr "\\0" ${String.fromCharCode(97 + i)}`);
    const allow = { permissions: { allow: ['Bash(head:*)'] } };
    const full = (r: ResultBlock) => r.content.length >= 29_000;
    const byDefault = await exec(allow, commands);
    expect(byDefault.results).toHaveLength(16);
    const keptDefault = byDefault.results.filter(full).length;
    expect(keptDefault).toBeLessThan(16);
    expect(byDefault.results.filter((r) => r.content.includes('<persisted-output>')).length).toBe(16 - keptDefault);
    const total = byDefault.results.reduce((n, r) => n + r.content.length, 0);
    expect(total).toBeLessThanOrEqual(400_000);
    // Replaced outputs are on disk, whole.
    const file = /saved to: (\S+)/.exec(byDefault.results.find((r) => !full(r))!.content)![1]!;
    expect(existsSync(file)).toBe(true);

    const tight = await exec({ ...allow, toolgate: { conversationBudgetChars: 60_000 } }, commands);
    const keptTight = tight.results.filter(full).length;
    expect(keptTight).toBeLessThan(keptDefault);
    expect(tight.results.reduce((n, r) => n + r.content.length, 0)).toBeLessThanOrEqual(60_000 + 29_000);
  }, 240_000);

  it('a settings file of the wrong type is refused before anything runs', async () => {
    const r = await exec({ sandbox: { enabled: 'yes' }, permissions: { allow: ['Bash'] } }, ['touch ran']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sandbox\.enabled/);
    expect(existsSync(path.join(work, 'ran'))).toBe(false);
  });
});

const canSandbox = (await detectSandbox()).available;

describe.skipIf(!canSandbox)('toolgate exec honours a settings file’s sandbox (bubblewrap)', () => {
  it('a sandboxed command cannot write outside the working directory; unsandboxed it can', async () => {
    const outside = path.join(session.dir, 'outside');
    mkdirSync(outside);
    const command = `echo hi > ${outside}/escaped && echo wrote`;
    // Bypass mode: the permission engine lets everything through, so only the OS sandbox stands in the way.
    const bypass = { defaultMode: 'bypassPermissions' };
    const sandboxed = await exec({ sandbox: { enabled: true }, permissions: bypass }, [command]);
    expect(sandboxed.results[0]!.content).not.toContain('wrote');
    expect(existsSync(path.join(outside, 'escaped'))).toBe(false);
    const inside = await exec({ sandbox: { enabled: true }, permissions: bypass }, ['echo ok > inside.txt && echo wrote']);
    expect(inside.results[0]!.content).toContain('wrote');
    expect(existsSync(path.join(work, 'inside.txt'))).toBe(true);
    const host = await exec({ permissions: bypass }, [command]);
    expect(host.results[0]!.content).toContain('wrote');
    expect(existsSync(path.join(outside, 'escaped'))).toBe(true);
  }, 240_000);

  it("with --cwd elsewhere than the process's directory, the runtime's protected files of the working directory stay read-only", async () => {
    const names = ['.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.profile', '.gitconfig', '.gitmodules', '.ripgreprc', '.vscode/settings.json', '.idea/x.xml', '.mcp.json'];
    const bypass = { defaultMode: 'bypassPermissions' };
    const commands = names.map((n) => `python3 -c 'import os; os.makedirs(os.path.dirname("${n}") or ".", exist_ok=True); open("${n}", "a").write("planted")' 2>&1 | tail -1; echo "exit=$?"`);
    const r = await exec({ sandbox: { enabled: true }, permissions: bypass }, commands);
    expect(r.code).toBe(0);
    for (const [i, n] of names.entries()) {
      expect(r.results[i]!.content, n).toMatch(/Read-only file system|Permission denied|File exists|Not a directory|Is a directory/);
      const file = path.join(work, n);
      expect(existsSync(file) ? readFileSync(file, 'utf8') : '', n).not.toContain('planted');
    }
  }, 240_000);
});
