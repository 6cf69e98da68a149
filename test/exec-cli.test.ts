/**
 * `toolgate exec` end to end: the real CLI in a child process (node + tsx), real settings files, a real shell hook,
 * the real registry and permission engine. HOME points at a temp dir so the user's own settings never leak in.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempSession, type TempSession } from './helpers/execution.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

let session: TempSession;
let home: string;
let work: string;
beforeEach(() => {
  session = tempSession('toolgate-exec-cli-');
  home = path.join(session.dir, 'home');
  work = path.join(session.dir, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(path.join(work, 'notes.txt'), 'alpha\nbeta\n');
});
afterEach(() => session.cleanup());

function exec(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), 'exec', ...args], {
      cwd: root,
      env: { ...process.env, HOME: home, USERPROFILE: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

function write(name: string, value: unknown): string {
  const file = path.join(session.dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

type ResultBlock = { type: string; tool_use_id: string; content: string; is_error?: boolean };

describe('toolgate exec', () => {
  it('answers every block of an assistant message, in order, as one user message (--json)', async () => {
    const input = write('message.json', {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look around.' },
        { type: 'tool_use', id: 'toolu_a', name: 'Glob', input: { pattern: '*.txt' } },
        { type: 'tool_use', id: 'toolu_b', name: 'NoSuchTool', input: {} },
        { type: 'tool_use', id: 'toolu_c', name: 'Glob', input: { pattern: 7 } },
      ],
    });
    const { code, stdout, stderr } = await exec([input, '--cwd', work, '--json', '--session-dir', path.join(session.dir, 's')]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const message = JSON.parse(stdout) as { role: string; content: ResultBlock[] };
    expect(message.role).toBe('user');
    expect(message.content.map((b) => b.tool_use_id)).toEqual(['toolu_a', 'toolu_b', 'toolu_c']);
    expect(message.content[0]!.is_error).toBeUndefined();
    expect(message.content[0]!.content).toContain('notes.txt');
    expect(message.content[1]).toMatchObject({ is_error: true, content: '<tool_use_error>No such tool available: NoSuchTool</tool_use_error>' });
    expect(message.content[2]!.content).toContain('The parameter `pattern` type is expected as `string` but provided as `number`');
  });

  it('reads JSON Lines from stdin and prints a readable report by default', async () => {
    const lines = [
      JSON.stringify({ type: 'tool_use', id: 'toolu_1', name: 'Glob', input: { pattern: '*.txt' } }),
      JSON.stringify({ type: 'tool_use', id: 'toolu_2', name: 'Nope', input: {} }),
    ].join('\n');
    const { code, stdout } = await exec(['-', '--cwd', work, '--session-dir', path.join(session.dir, 's')], lines);
    expect(code).toBe(0);
    expect(stdout).toMatch(/✓ \[1\] Glob toolu_1/);
    expect(stdout).toMatch(/✗ \[2\] Nope toolu_2 {2}— unknown tool/);
    expect(stdout.trim().split('\n').at(-1)).toBe('2 tool calls: 1 ok, 1 error');
  });

  it('denies headlessly what would prompt, and runs settings hooks (exit 2 blocks)', async () => {
    const hook = path.join(session.dir, 'no-touch.sh');
    writeFileSync(hook, '#!/usr/bin/env bash\nif grep -q secret; then echo "the word secret is off limits" >&2; exit 2; fi\n');
    chmodSync(hook, 0o755);
    const settings = write('settings.json', { hooks: { PreToolUse: [{ matcher: 'Glob', hooks: [{ type: 'command', command: hook }] }] } });
    const input = write('calls.json', [
      { type: 'tool_use', id: 'toolu_h', name: 'Glob', input: { pattern: 'secret*' } },
      { type: 'tool_use', id: 'toolu_w', name: 'Bash', input: { command: `touch ${path.join(work, 'made-by-bash')}` } },
    ]);
    const { code, stdout } = await exec([input, '--cwd', work, '--settings', settings, '--json', '--session-dir', path.join(session.dir, 's')]);
    expect(code).toBe(0);
    const [hooked, bash] = (JSON.parse(stdout) as { content: ResultBlock[] }).content;
    expect(hooked).toMatchObject({ tool_use_id: 'toolu_h', is_error: true });
    expect(hooked!.content).toContain('the word secret is off limits');
    expect(bash).toMatchObject({ tool_use_id: 'toolu_w', is_error: true });
    expect(bash!.content).toMatch(/Permission|denied/i);
  });

  it('ends background tasks at exit and says so: nothing outlives the command', async () => {
    const marker = `${20 + Math.floor(Math.random() * 1000) / 1000}`;
    const input = write('bg.json', { type: 'tool_use', id: 'toolu_bg', name: 'Bash', input: { command: `sleep ${marker}`, run_in_background: true } });
    const { code, stdout, stderr } = await exec([input, '--cwd', work, '--allow', 'Bash(sleep:*)', '--session-dir', path.join(session.dir, 's')]);
    expect(code).toBe(0);
    expect(stdout).toContain('Command running in background with ID:');
    expect(stderr).toMatch(new RegExp(`background task \\w+ \\(sleep ${marker.replace('.', '\\.')}\\) was still running and has been stopped`));
    const survivors = spawnSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' });
    expect(survivors.stdout.trim()).toBe('');
  });

  it('rejects bad input and bad options with a one-line error and a non-zero exit, running nothing', async () => {
    const bad = await exec(['-', '--cwd', work], '{"type":"tool_use","id":"a","name":"Glob","input":{}}\n{not json\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/line 2 is not valid JSON/);
    const dup = write('dup.json', [
      { type: 'tool_use', id: 'same', name: 'Glob', input: { pattern: '*' } },
      { type: 'tool_use', id: 'same', name: 'Glob', input: { pattern: '*' } },
    ]);
    expect((await exec([dup, '--cwd', work])).stderr).toMatch(/duplicate tool_use id "same"/);
    expect((await exec([dup, '--cwd', work, '--mode', 'yolo'])).stderr).toMatch(/unknown --mode "yolo"/);
    const brokenSettings = write('broken.json', '{"permissions": {"deny": ["Bash(rm"]}}');
    const one = write('one.json', { type: 'tool_use', id: 'x', name: 'Glob', input: { pattern: '*' } });
    const refused = await exec([one, '--cwd', work, '--settings', brokenSettings]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/settings could not be loaded, nothing was run/);
    // Four processes started from the sources: on a loaded machine that alone can pass the default 30 s.
  }, 120_000);
});
