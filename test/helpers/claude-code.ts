/**
 * The real Claude Code, for tests and benchmarks that need it: installed on demand from npm into a cache folder
 * outside the repository (never a dependency), and driven headless (`claude -p`) against toolgate's scripted Messages
 * API server, which plays a model that runs one Bash command per turn from a list.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptedServer, type RecordedRequest } from '../../src/testing/index.js';

export const CLAUDE_CODE_VERSION = '2.1.332';

/** The `claude` binary, installing it first when it is not in the cache; or why it cannot be had here. */
export function ensureClaudeCode(): { bin: string } | { skip: string } {
  const given = process.env.TOOLGATE_TEST_CLAUDE ?? process.env.TOOLGATE_BENCH_CLAUDE;
  if (given !== undefined && given !== '') return fs.existsSync(given) ? { bin: given } : { skip: `${given} (TOOLGATE_TEST_CLAUDE) does not exist` };
  const dir = path.join(os.homedir(), '.cache', 'toolgate-test', 'claude-code');
  const bin = path.join(dir, 'node_modules', '.bin', 'claude');
  const works = () => {
    try {
      return execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 }).includes('Claude Code');
    } catch {
      return false;
    }
  };
  if (fs.existsSync(bin) && works()) return { bin };
  try {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`], { stdio: 'pipe', timeout: 300_000 });
  } catch (error) {
    return { skip: `Claude Code ${CLAUDE_CODE_VERSION} could not be installed from the npm registry (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
  return works() ? { bin } : { skip: `Claude Code ${CLAUDE_CODE_VERSION} was installed but its binary does not run on this machine` };
}

export interface CommandOutcome {
  readonly command: string;
  /** The tool_result Claude Code sent back (undefined: the call never got one). */
  readonly result?: string;
  readonly isError?: boolean;
  /** Claude Code listed the call among its permission denials (a prompt, in headless mode, is a denial). */
  readonly denied: boolean;
}

export interface ClaudeCodeRun {
  readonly outcomes: readonly CommandOutcome[];
  readonly requests: readonly RecordedRequest[];
  readonly stdout: string;
  readonly stderr: string;
}

/** The tool_use blocks of the conversation so far: the model's next call is the next of the list. */
function toolUsesSoFar(body: { messages?: { role: string; content: unknown }[] } | undefined): number {
  let n = 0;
  for (const m of body?.messages ?? []) if (m.role === 'assistant' && Array.isArray(m.content)) n += (m.content as { type: string }[]).filter((b) => b.type === 'tool_use').length;
  return n;
}

/** One call the scripted model makes, one per turn; its id is `toolu_call_<i>`. */
export interface ScriptedCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

export interface ClaudeCodeCallsRun {
  readonly requests: readonly RecordedRequest[];
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
}

/**
 * Runs `claude -p PROMPT` in `cwd` with HOME and CLAUDE_CONFIG_DIR in `home`, the model making `calls` one per turn
 * (then answering `done`). `args` go after `-p PROMPT` (default: stream-json, verbose, a model, max turns). Side
 * requests (titles, summaries: no tools in them) get a plain `ok`.
 */
export async function runClaudeCodeCalls(
  bin: string,
  options: { cwd: string; home: string; calls: readonly ScriptedCall[]; prompt?: string; args?: readonly string[]; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ClaudeCodeCallsRun> {
  const { calls } = options;
  const turn = (request: RecordedRequest) => {
    const body = request.body as { tools?: { name: string }[]; messages?: { role: string; content: unknown }[] } | undefined;
    const i = toolUsesSoFar(body);
    // Claude Code's side requests (titles, summaries) do not offer the tool the next call needs: a plain answer.
    if (i >= calls.length || !body?.tools?.some((t) => t.name === calls[i]!.name)) return { content: [{ type: 'text' as const, text: i >= calls.length ? 'done' : 'ok' }] };
    return { content: [{ type: 'tool_use' as const, id: `toolu_call_${i}`, name: calls[i]!.name, input: calls[i]!.input }] };
  };
  const server = await startScriptedServer(Array.from({ length: calls.length * 4 + 20 }, () => turn));
  try {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: options.home,
      CLAUDE_CONFIG_DIR: path.join(options.home, '.claude'),
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-key',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ...options.env,
    };
    const args = options.args ?? ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', '--max-turns', String(calls.length + 5)];
    const out = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
      const child = execFile(bin, ['-p', options.prompt ?? 'run the calls', ...args], { cwd: options.cwd, env, timeout: options.timeoutMs ?? 600_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        resolve({ stdout, stderr, code: error ? (typeof error.code === 'number' ? error.code : null) : 0 }),
      );
      child.stdin?.end();
    });
    return { requests: [...server.requests], ...out };
  } finally {
    await server.close();
  }
}

/**
 * Runs `claude -p` in `cwd` with HOME and CLAUDE_CONFIG_DIR in `home`, the model playing `commands` one per turn.
 * Settings come from the files the caller wrote (`home/.claude/settings.json`, `cwd/.claude/settings.json`).
 */
export async function runClaudeCode(bin: string, options: { cwd: string; home: string; commands: readonly string[]; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<ClaudeCodeRun> {
  const { commands } = options;
  const calls = commands.map((command, i) => ({ name: 'Bash', input: { command, description: `command ${i}` } }));
  const { stdout, stderr, requests } = await runClaudeCodeCalls(bin, {
    cwd: options.cwd,
    home: options.home,
    calls,
    prompt: 'run the commands',
    args: ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', '--max-turns', String(commands.length + 5)],
    ...(options.env ? { env: options.env } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  const results = new Map<string, { text: string; isError: boolean }>();
  const denied = new Set<string>();
  for (const line of stdout.split('\n')) {
    let m: { type?: string; message?: { content?: unknown }; permission_denials?: { tool_use_id: string }[] };
    try {
      m = JSON.parse(line) as typeof m;
    } catch {
      continue;
    }
    if (m.type === 'user' && Array.isArray(m.message?.content)) {
      for (const b of m.message.content as { type: string; tool_use_id: string; content: unknown; is_error?: boolean }[]) {
        if (b.type !== 'tool_result') continue;
        const text = typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
        results.set(b.tool_use_id, { text, isError: b.is_error === true });
      }
    }
    if (m.type === 'result') for (const d of m.permission_denials ?? []) denied.add(d.tool_use_id);
  }
  const outcomes = commands.map((command, i) => {
    const r = results.get(`toolu_call_${i}`);
    return { command, ...(r ? { result: r.text, isError: r.isError } : {}), denied: denied.has(`toolu_call_${i}`) };
  });
  return { outcomes, requests, stdout, stderr };
}
