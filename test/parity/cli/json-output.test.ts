/**
 * `toolgate -p --output-format json` against the real `claude -p --output-format json` (json-output.json, recorded
 * by record.ts): the same scripted calls and flags give one line on stdout, a result object with no key Claude Code's
 * lacks, the keys it still lacks exactly those listed (the result line's of stream-json.test.ts), and the same
 * values (subtype, result text, turns, stop and terminal reasons, permission denials).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClaudeCodeCalls } from '../../helpers/claude-code.js';
import { JSON_OUTPUT_CASES, JSON_OUTPUT_RECORDING, jsonOutputShape, type JsonOutputShape } from './json-output.scenarios.js';
import { MISSING } from './stream-json.shape.js';

/** The result keys Claude Code prints under json that toolgate lacks: stream-json's result line's (none now). */
const JSON_MISSING = MISSING['result/success'] ?? [];

const recording = JSON.parse(fs.readFileSync(JSON_OUTPUT_RECORDING, 'utf8')) as { claudeCode: string; cases: Record<string, JsonOutputShape> };
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-json-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** `toolgate` from the sources, as a program a script runs (what the helper runs `claude` as). */
function toolgateBin(): string {
  const bin = path.join(scratch, 'toolgate');
  fs.writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(import.meta.resolve('tsx'))} ${JSON.stringify(path.join(repoRoot, 'src/cli/main.ts'))} "$@"\n`, { mode: 0o755 });
  return bin;
}

describe(`--output-format json as Claude Code ${recording.claudeCode} prints it`, () => {
  const bin = toolgateBin();
  it.each(JSON_OUTPUT_CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const theirs = recording.cases[name]!;
    const dir = path.join(scratch, name.replaceAll(' ', '-'), 'proj');
    const home = path.join(path.dirname(dir), 'home');
    for (const d of [dir, home]) fs.mkdirSync(d, { recursive: true });
    const run = await runClaudeCodeCalls(bin, { cwd: dir, home, calls: c.calls, args: ['--output-format', 'json', '--model', 'claude-sonnet-4-5', '--max-turns', '5', ...c.flags] });
    const ours = jsonOutputShape(run.stdout, dir);
    expect(ours.lines).toBe(theirs.lines);
    expect(ours.keys.filter((k) => !theirs.keys.includes(k)), 'keys Claude Code does not print').toEqual([]);
    expect(theirs.keys.filter((k) => !ours.keys.includes(k))).toEqual([...JSON_MISSING].sort());
    expect(ours.values).toEqual(theirs.values);
    // Claude Code prints nothing on stderr here; the SDK's notice that claude-sonnet-4-5 is deprecated is not passed on.
    expect(run.stderr).not.toMatch(/is deprecated/);
  }, 120_000);
});
