/**
 * The command line as a `claude` user types it: the bare `toolgate` takes `run`'s flags (`-p`, `--model`, …), a
 * command's name is that command, `-p`/`--`/`run` pass a prompt that is a command's name; piped stdin joins the
 * prompt; aliases resolve through the one table; a missing `--settings` or a bad `--mcp-config` stops the run with one
 * line (and a JSON result when JSON was asked for); retries are told on stderr in text mode; `-v` prints the version.
 * The real CLI process, the scripted server playing the model.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { repoRoot, toolgate } from './helpers/cli.js';

let dir: string;
let server: ScriptedServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-invocation-'));
  mkdirSync(path.join(dir, 'work'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ...extra };
}
const keyed = (extra: NodeJS.ProcessEnv = {}) => env({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server!.url, ...extra });
const hello = () => ({ content: [{ type: 'text' as const, text: 'hello there' }] });
/** Every text the model got in the last user message of request `i`. */
const lastUserText = (i: number): string => {
  const last = server!.messageRequests[i]!.body.messages.at(-1);
  return typeof last.content === 'string' ? last.content : last.content.map((b: { text?: string }) => b.text ?? '').join('\n');
};

describe('the bare command takes run’s flags', { timeout: 120_000 }, () => {
  it('toolgate -p PROMPT --model sonnet: prints the answer; the alias is sent as the table’s id', async () => {
    server = await startScriptedServer([hello()]);
    const r = await toolgate(['-p', 'say hello', '--model', 'sonnet', '--cwd', path.join(dir, 'work')], { env: keyed() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('hello there\n');
    expect(server.messageRequests[0]!.body.model).toBe('claude-sonnet-5-5');
    expect(lastUserText(0)).toContain('say hello');
  });

  it('ANTHROPIC_DEFAULT_OPUS_MODEL and the default: no --model sends the default alias’s id, overridable', async () => {
    server = await startScriptedServer([hello(), hello()]);
    expect((await toolgate(['-p', 'hi', '--cwd', path.join(dir, 'work')], { env: keyed() })).code).toBe(0);
    expect(server.messageRequests[0]!.body.model).toBe('claude-opus-5-5');
    expect((await toolgate(['-p', 'hi', '--cwd', path.join(dir, 'work')], { env: keyed({ ANTHROPIC_DEFAULT_OPUS_MODEL: 'house-opus' }) })).code).toBe(0);
    expect(server.messageRequests[1]!.body.model).toBe('house-opus');
  });

  it('a prompt that is a command’s name: `-p mcp` and `-- mcp` are prompts; `mcp` alone is the command', async () => {
    server = await startScriptedServer([hello(), hello()]);
    const a = await toolgate(['-p', 'mcp', '--cwd', path.join(dir, 'work')], { env: keyed() });
    expect(a.code).toBe(0);
    expect(lastUserText(0)).toContain('mcp');
    const b = await toolgate(['--cwd', path.join(dir, 'work'), '--', 'mcp'], { env: keyed() });
    expect(b.code).toBe(0);
    expect(lastUserText(1)).toContain('mcp');
    const c = await toolgate(['mcp', '--help'], { env: env() });
    expect(c.code).toBe(0);
    expect(c.stdout).toContain('Usage: toolgate mcp');
    expect(server.messageRequests).toHaveLength(2);
  });

  it('piped stdin and a prompt: the prompt, a newline, then stdin; stdin alone is the prompt', async () => {
    server = await startScriptedServer([hello(), hello()]);
    const both = await toolgate(['-p', 'review this', '--cwd', path.join(dir, 'work')], { env: keyed(), input: 'line one\nline two\n' });
    expect(both.code).toBe(0);
    expect(lastUserText(0)).toContain('review this\nline one\nline two\n');
    const alone = await toolgate(['-p', '--cwd', path.join(dir, 'work')], { env: keyed(), input: 'only stdin\n' });
    expect(alone.code).toBe(0);
    expect(lastUserText(1)).toContain('only stdin');
  });

  it('a pipe nobody writes to: after the wait, a warning on stderr and the prompt alone', async () => {
    server = await startScriptedServer([hello()]);
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(repoRoot, 'src/cli/main.ts'), '-p', 'just this', '--cwd', path.join(dir, 'work')], {
      cwd: repoRoot,
      env: keyed(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.end();
    expect(code).toBe(0);
    expect(stderr).toContain('no stdin data received');
    expect(stdout).toBe('hello there\n');
    expect(lastUserText(0)).toMatch(/just this$/);
  });

  it('-v and --version print the version as claude prints its own', async () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['-v', '--version']) {
      const r = await toolgate([flag], { env: env() });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${pkg.version} (toolgate)\n`);
    }
  });

  it('--help lists run’s flags for the bare command and the commands', async () => {
    const r = await toolgate(['--help'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: toolgate [options] [command] [prompt]');
    expect(r.stdout).toMatch(/-p, --print/);
    expect(r.stdout).toMatch(/--dangerously-skip-permissions/);
    expect(r.stdout).toMatch(/\n\s+mcp\b/);
  });
});

describe('what stops a run before it starts', { timeout: 120_000 }, () => {
  it('a --settings file that is not there: one line, exit 1, no request; under json also a result object', async () => {
    server = await startScriptedServer([hello()]);
    const missing = path.join(dir, 'policy.json');
    const text = await toolgate(['-p', 'hi', '--settings', missing], { env: keyed() });
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr.trim().split('\n')).toEqual([`toolgate: Settings file not found: ${missing}`]);
    const json = await toolgate(['-p', 'hi', '--settings', missing, '--output-format', 'json'], { env: keyed() });
    expect(json.code).toBe(1);
    const result = JSON.parse(json.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true, num_turns: 0, errors: [`Settings file not found: ${missing}`] });
    expect(typeof result.session_id).toBe('string');
    expect(server.messageRequests).toHaveLength(0);
  });

  it('an --mcp-config that is missing or not JSON: one line, exit 1; stream-json gets the result line', async () => {
    server = await startScriptedServer([hello()]);
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{ "mcpServers": ');
    const missing = await toolgate(['-p', 'hi', '--mcp-config', path.join(dir, 'nope.json')], { env: keyed() });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('Invalid MCP configuration');
    const malformed = await toolgate(['-p', 'hi', '--mcp-config', bad, '--output-format', 'stream-json', '--verbose'], { env: keyed() });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('invalid JSON');
    const lines = malformed.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ type: 'result', is_error: true, subtype: 'error_during_execution' });
    expect(server.messageRequests).toHaveLength(0);
  });

  it('--dangerously-skip-permissions as root is refused unless IS_SANDBOX=1 (Claude Code’s rule)', async () => {
    if (process.getuid?.() !== 0) return; // the rule is about root; elsewhere the flag is simply accepted
    server = await startScriptedServer([hello()]);
    const refused = await toolgate(['-p', 'hi', '--dangerously-skip-permissions'], { env: keyed() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('toolgate: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n');
    const sandboxed = await toolgate(['-p', 'hi', '--dangerously-skip-permissions', '--cwd', path.join(dir, 'work')], { env: keyed({ IS_SANDBOX: '1' }) });
    expect(sandboxed.code).toBe(0);
  });

  it('--permission-mode manual is claude’s name for the default mode', async () => {
    server = await startScriptedServer([hello()]);
    const r = await toolgate(['-p', 'hi', '--permission-mode', 'manual', '--output-format', 'stream-json', '--verbose', '--cwd', path.join(dir, 'work')], { env: keyed() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.split('\n')[0]!)).toMatchObject({ type: 'system', subtype: 'init', permissionMode: 'default' });
  });
});

describe('retries in text mode', { timeout: 120_000 }, () => {
  it('each retry of a failing request is one line on stderr; the answer still comes', async () => {
    server = await startScriptedServer([{ ...hello(), errors: [{ drop: true }, { status: 529, errorType: 'overloaded_error', message: 'Overloaded' }] }]);
    const r = await toolgate(['-p', 'hi', '--cwd', path.join(dir, 'work')], { env: keyed() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('hello there\n');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^toolgate: API request failed \(connection .*\); retrying in .*s \(retry 1\)$/);
    expect(lines[1]).toMatch(/529 overloaded_error.*retry 2/);
  });
});
