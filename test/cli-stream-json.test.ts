/**
 * `toolgate -p --output-format stream-json` prints claude's stream-json, which is the Agent SDK's stream: the same
 * scripted scenarios as the Agent SDK shape test, given as command-line flags instead of options, through the real
 * CLI process, compared with the golden file of the real Agent SDK's shapes (test/fixtures/agent-sdk/shapes.json).
 * Scenarios that need a program's callbacks (canUseTool, hook callbacks, an in-process MCP server) have no flag.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse } from '../src/testing/index.js';
import { SCENARIOS, shapeOf, type MessageShape, type Scenario } from './helpers/agent-sdk-scenarios.js';
import { shapeDifferences } from './helpers/agent-sdk-shape-diff.js';
import { repoRoot } from './helpers/cli.js';

const golden = JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures/agent-sdk/shapes.json'), 'utf8')) as {
  agentSdkVersion: string;
  scenarios: Record<string, { messages: MessageShape[] }>;
};

const schema = JSON.stringify({ type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] });
const hooks = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre-out' }] }], Stop: [{ hooks: [{ type: 'command', command: 'echo stopped' }] }] } });

/** Each scenario's options as claude's flags. */
const FLAGS: Record<string, readonly string[]> = {
  read: ['--allowedTools', 'Read'],
  'read-partial': ['--allowedTools', 'Read', '--include-partial-messages'],
  parallel: ['--allowedTools', 'Bash'],
  'max-turns': ['--max-turns', '2', '--allowedTools', 'Bash(echo hi)'],
  'deny-no-prompt': [],
  structured: ['--json-schema', schema],
  'structured-retry': ['--json-schema', schema],
  'structured-never': ['--json-schema', schema],
  subagent: ['--agents', JSON.stringify({ helper: { description: 'Helps', prompt: 'You help.', tools: ['Bash'] } }), '--allowedTools', 'Bash'],
  retry: [],
  'api-error': [],
  budget: ['--max-budget-usd', '0.5', '--allowedTools', 'Bash'],
  'hook-events': ['--include-hook-events', '--allowedTools', 'Bash', '--settings', hooks],
  background: ['--allowedTools', 'Bash'],
  'streaming-two-turns': ['--input-format', 'stream-json'],
};

/**
 * Keys `claude -p` prints beyond the Agent SDK's messages (recorded from Claude Code 2.1.332 in
 * test/parity/cli/stream-json.json and decisions.json, where toolgate's are compared value by value): not in the
 * SDK's golden shapes, so left out here.
 */
const CLI_ONLY = ['served_by_anthropic', 'sandbox_enabled', 'begun_message_ids'];
const withoutCliOnly = (line: Record<string, unknown>) => Object.fromEntries(Object.entries(line).filter(([k]) => !CLI_ONLY.includes(k)));

/** The user lines of the streaming scenario, the second sent once the first has its result (as the program does). */
const STREAMED = ['one', 'two'].map((content) => JSON.stringify({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' }));

async function runCli(scenario: Scenario, flags: readonly string[]): Promise<{ lines: Record<string, unknown>[]; code: number | null; stderr: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-stream-json-'));
  const home = mkdtempSync(path.join(os.tmpdir(), 'cli-stream-json-home-'));
  scenario.setup?.(dir);
  const turns = scenario.turns({ dir, home });
  let next = 0;
  const serve = (request: RecordedRequest): ScriptedResponse => {
    const turn = turns[next] ?? { content: [{ type: 'text', text: '(no turn left)' }] };
    const response = typeof turn === 'function' ? turn(request) : turn;
    if (!response.errors?.[request.attempt]) next++;
    return response;
  };
  const server = await startScriptedServer(Array.from({ length: 100 }, () => serve));
  try {
    const streaming = typeof scenario.prompt !== 'string';
    const args = ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), '-p', ...(streaming ? [] : [scenario.prompt as string])];
    args.push('--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-6', '--cwd', dir, ...flags);
    const env = { PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: path.join(home, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url };
    const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let results = 0;
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (!streaming) return;
      const seen = stdout.split('\n').filter((l) => l.startsWith('{"type":"result"')).length;
      if (seen > results) {
        results = seen;
        if (results < STREAMED.length) child.stdin.write(`${STREAMED[results]}\n`);
        else child.stdin.end();
      }
    });
    if (streaming) child.stdin.write(`${STREAMED[0]}\n`);
    else child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines = stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { lines, code, stderr };
  } finally {
    await server.close();
    for (const d of [dir, home]) rmSync(d, { recursive: true, force: true });
  }
}

describe(`toolgate -p --output-format stream-json against the Agent SDK ${golden.agentSdkVersion}'s shapes`, { timeout: 120_000 }, () => {
  for (const scenario of SCENARIOS.filter((s) => FLAGS[s.name] !== undefined)) {
    it(`${scenario.name}: claude's lines, in the same order, with the same fields`, async () => {
      const run = await runCli(scenario, FLAGS[scenario.name]!);
      // A heartbeat for a call that takes over a second: timing, not shape (a loaded machine may add one).
      const lines = run.lines.filter((l) => l.type !== 'tool_progress').map(withoutCliOnly);
      expect(shapeDifferences(lines.map(shapeOf), golden.scenarios[scenario.name]!.messages), run.stderr).toEqual([]);
      // Every line carries the session; the exit code says whether the last result was an error.
      for (const line of lines) expect(line.session_id).toBe(lines[0]!.session_id);
      const last = lines.at(-1)!;
      expect(run.code).toBe(last.is_error ? 1 : 0);
    });
  }

  it('every scenario with a flag form is covered, and only those without one are left out', () => {
    const left = SCENARIOS.map((s) => s.name).filter((n) => FLAGS[n] === undefined);
    expect(left.sort()).toEqual(['allow-can-use-tool', 'deny-can-use-tool', 'deny-hook', 'deny-interrupt', 'sdk-mcp']);
  });
});
