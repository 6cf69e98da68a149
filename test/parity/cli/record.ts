/**
 * Re-records test/parity/cli/tool-results.json from the real Claude Code (installed on demand into
 * ~/.cache/toolgate-test, never a dependency; or TOOLGATE_TEST_CLAUDE): each scenario on a fresh temp project, the
 * scripted model making its calls, the tool_result texts Claude Code sent back to the model, normalized.
 *
 *   npx tsx test/parity/cli/record.ts [scenario…]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLAUDE_CODE_VERSION, ensureClaudeCode, runClaudeCodeCalls } from '../../helpers/claude-code.js';
import { DECISION_CASES, DECISIONS_RECORDING, decisionShape, prepareDecisionCase, type DecisionShape } from './decisions.scenarios.js';
import { COMMAND_PROMPTS, COMMANDS_RECORDING, commandBlocks, makeCommandProject } from './commands.scenarios.js';
import { JSON_OUTPUT_CASES, JSON_OUTPUT_RECORDING, jsonOutputShape, type JsonOutputShape } from './json-output.scenarios.js';
import { REQUEST_ENV_CASES, REQUEST_ENV_RECORDING, requestShape, type RequestShape } from './request-env.scenarios.js';
import { STREAM_JSON_CALLS, STREAM_JSON_RECORDING, streamJsonShape } from './stream-json.shape.js';
import { ALLOWED_TOOLS, PERMISSION_MODE, SCENARIOS, concreteInput, makeProject, toolResultsOf, writeScenarioFiles, type RecordedResult } from './tool-results.scenarios.js';

export const RECORDING = path.join(import.meta.dirname, 'tool-results.json');

async function main(): Promise<void> {
  const claude = ensureClaudeCode();
  if ('skip' in claude) throw new Error(claude.skip);
  const only = process.argv.slice(2);
  const previous = fs.existsSync(RECORDING) ? (JSON.parse(fs.readFileSync(RECORDING, 'utf8')) as { scenarios: Record<string, RecordedResult[]> }).scenarios : {};
  const scenarios: Record<string, RecordedResult[]> = { ...previous };
  for (const scenario of SCENARIOS) {
    if (only.length > 0 && !only.includes(scenario.name)) continue;
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
    const dir = path.join(tmp, 'proj');
    const home = path.join(tmp, 'home');
    makeProject(dir);
    writeScenarioFiles(dir, scenario);
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    const calls = scenario.calls.map((c) => ({ name: c.name, input: concreteInput(c.input, dir) }));
    const run = await runClaudeCodeCalls(claude.bin, {
      cwd: dir,
      home,
      calls,
      ...(scenario.env ? { env: scenario.env } : {}),
      args: ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', '--max-turns', String(calls.length + 5), '--allowedTools', ALLOWED_TOOLS.join(','), '--permission-mode', PERMISSION_MODE],
    });
    scenarios[scenario.name] = toolResultsOf(run.requests, scenario.calls, dir, home);
    process.stderr.write(`${scenario.name}: ${scenarios[scenario.name]!.length} calls (exit ${run.code})\n`);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.writeFileSync(RECORDING, JSON.stringify({ claudeCode: CLAUDE_CODE_VERSION, scenarios }, null, 2) + '\n');
  if (only.length === 0 || only.includes('stream-json')) await recordStreamJson(claude.bin);
  if (only.length === 0 || only.includes('request-env')) await recordRequestEnv(claude.bin);
  if (only.length === 0 || only.includes('commands')) await recordCommands(claude.bin);
  if (only.length === 0 || only.includes('json-output')) await recordJsonOutput(claude.bin);
  if (only.length === 0 || only.includes('decisions')) await recordDecisions(claude.bin);
}

/** Each case of decisions.scenarios.ts through `claude -p --output-format stream-json`: its decisions. */
async function recordDecisions(bin: string): Promise<void> {
  const cases: Record<string, DecisionShape> = {};
  for (const c of DECISION_CASES) {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
    const dir = path.join(tmp, 'proj');
    const home = path.join(tmp, 'home');
    for (const d of [dir, path.join(home, '.claude')]) fs.mkdirSync(d, { recursive: true });
    const flags = prepareDecisionCase(c, dir, path.join(tmp, 'hooks'));
    const run = await runClaudeCodeCalls(bin, { cwd: dir, home, calls: [c.call], args: ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', '--max-turns', '4', ...flags] });
    cases[c.name] = decisionShape(run.stdout);
    process.stderr.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.writeFileSync(DECISIONS_RECORDING, JSON.stringify({ claudeCode: CLAUDE_CODE_VERSION, cases }, null, 2) + '\n');
}

/** Each case of json-output.scenarios.ts through `claude -p --output-format json`: its stdout's shape. */
async function recordJsonOutput(bin: string): Promise<void> {
  const cases: Record<string, JsonOutputShape> = {};
  for (const c of JSON_OUTPUT_CASES) {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
    const dir = path.join(tmp, 'proj');
    const home = path.join(tmp, 'home');
    for (const d of [dir, path.join(home, '.claude')]) fs.mkdirSync(d, { recursive: true });
    const run = await runClaudeCodeCalls(bin, { cwd: dir, home, calls: c.calls, args: ['--output-format', 'json', '--model', 'claude-sonnet-4-5', '--max-turns', '5', ...c.flags] });
    cases[c.name] = jsonOutputShape(run.stdout, dir);
    process.stderr.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.writeFileSync(JSON_OUTPUT_RECORDING, JSON.stringify({ claudeCode: CLAUDE_CODE_VERSION, cases }, null, 2) + '\n');
}

/** Each prompt of commands.scenarios.ts typed to `claude -p`: the command's blocks of its first main-loop request. */
async function recordCommands(bin: string): Promise<void> {
  const prompts: Record<string, string[]> = {};
  for (const prompt of COMMAND_PROMPTS) {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
    const dir = path.join(tmp, 'proj');
    const home = path.join(tmp, 'home');
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    makeCommandProject(dir);
    const run = await runClaudeCodeCalls(bin, { cwd: dir, home, calls: [], prompt, args: ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', '--max-turns', '2'] });
    const first = run.requests.find((r) => (r.body as { tools?: unknown[] } | undefined)?.tools?.length);
    if (!first) throw new Error(`${prompt}: Claude Code sent no main-loop request (exit ${run.code}): ${run.stderr}`);
    prompts[prompt] = commandBlocks(first.body as Parameters<typeof commandBlocks>[0], dir);
    process.stderr.write(`${prompt}: ${JSON.stringify(prompts[prompt])}\n`);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.writeFileSync(COMMANDS_RECORDING, JSON.stringify({ claudeCode: CLAUDE_CODE_VERSION, prompts }, null, 2) + '\n');
}

/** Each case of request-env.scenarios.ts: the first main-loop request Claude Code sent with those variables set. */
async function recordRequestEnv(bin: string): Promise<void> {
  const cases: Record<string, RequestShape> = {};
  for (const c of REQUEST_ENV_CASES) {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
    const dir = path.join(tmp, 'proj');
    const home = path.join(tmp, 'home');
    for (const d of [dir, path.join(home, '.claude')]) fs.mkdirSync(d, { recursive: true });
    const run = await runClaudeCodeCalls(bin, { cwd: dir, home, calls: STREAM_JSON_CALLS, env: c.env, args: ['--output-format', 'stream-json', '--verbose', '--model', c.model, '--max-turns', '4', '--allowedTools', 'Bash'] });
    const first = run.requests.find((r) => (r.body as { tools?: unknown[] } | undefined)?.tools?.length);
    if (!first) throw new Error(`${c.name}: Claude Code sent no main-loop request (exit ${run.code}): ${run.stderr}`);
    cases[c.name] = requestShape(first.body as Parameters<typeof requestShape>[0]);
    process.stderr.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.writeFileSync(REQUEST_ENV_RECORDING, JSON.stringify({ claudeCode: CLAUDE_CODE_VERSION, cases }, null, 2) + '\n');
}

/** The stream-json lines of one call with --include-partial-messages and --add-dir: each line's kind and keys. */
async function recordStreamJson(bin: string): Promise<void> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'home');
  const extra = path.join(tmp, 'extra');
  for (const d of [dir, extra, path.join(home, '.claude')]) fs.mkdirSync(d, { recursive: true });
  const run = await runClaudeCodeCalls(bin, {
    cwd: dir,
    home,
    calls: STREAM_JSON_CALLS,
    args: ['--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--model', 'claude-sonnet-4-5', '--allowedTools', 'Bash', '--add-dir', extra],
  });
  const lines = streamJsonShape(run.stdout, { dir, extra, home });
  fs.writeFileSync(STREAM_JSON_RECORDING, JSON.stringify({ claudeCode: CLAUDE_CODE_VERSION, lines }, null, 2) + '\n');
  fs.rmSync(tmp, { recursive: true, force: true });
}

await main();
