/**
 * `tool_result_meta` and init's `sandbox_enabled` as Claude Code prints them (decisions.json, recorded by record.ts):
 * the same single call through the real `toolgate -p --output-format stream-json`, decided by an allow rule, by nobody
 * (headless), by the mode (a read in the project), by a hook that allows or denies, by a deny rule for a Bash
 * subcommand, and a session with the sandbox on, gives the same decision in Claude Code's words.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClaudeCodeCalls } from '../../helpers/claude-code.js';
import { DECISION_CASES, DECISIONS_RECORDING, decisionShape, prepareDecisionCase, type DecisionShape } from './decisions.scenarios.js';

const recording = JSON.parse(fs.readFileSync(DECISIONS_RECORDING, 'utf8')) as { claudeCode: string; cases: Record<string, DecisionShape> };
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-decisions-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function toolgateBin(): string {
  const bin = path.join(scratch, 'toolgate');
  fs.writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(import.meta.resolve('tsx'))} ${JSON.stringify(path.join(repoRoot, 'src/cli/main.ts'))} "$@"\n`, { mode: 0o755 });
  return bin;
}

describe(`tool_result_meta as Claude Code ${recording.claudeCode} prints it`, () => {
  const bin = toolgateBin();
  it.each(DECISION_CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const tmp = path.join(scratch, name.replaceAll(' ', '-'));
    const dir = path.join(tmp, 'proj');
    const home = path.join(tmp, 'home');
    for (const d of [dir, path.join(home, '.claude')]) fs.mkdirSync(d, { recursive: true });
    const flags = prepareDecisionCase(c, dir, path.join(tmp, 'hooks'));
    const run = await runClaudeCodeCalls(bin, { cwd: dir, home, calls: [c.call], args: ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', '--max-turns', '4', ...flags] });
    expect(decisionShape(run.stdout), run.stderr).toEqual(recording.cases[name]);
  }, 120_000);
});
