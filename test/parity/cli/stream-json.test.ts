/**
 * stream-json lines as Claude Code prints them (stream-json.json, recorded by record.ts from the real `claude -p
 * --output-format stream-json --include-partial-messages --add-dir DIR`): the same call through the real `toolgate -p`
 * (from the sources, driven like `claude` against the same scripted model) gives the same kinds of line, each with no
 * key Claude Code's lacks, the same values where they do not depend on the run (stream-json.shape.ts COMPARED:
 * folders, the init's constants, the permission decision behind a tool result, the result's counts…), times as numbers
 * in the order they happen, and the keys it still lacks are exactly the ones listed (MISSING).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClaudeCodeCalls } from '../../helpers/claude-code.js';
import { MISSING, STREAM_JSON_CALLS, STREAM_JSON_RECORDING, streamJsonShape, type LineShape } from './stream-json.shape.js';

const recording = JSON.parse(fs.readFileSync(STREAM_JSON_RECORDING, 'utf8')) as { claudeCode: string; lines: LineShape[] };
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-stream-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** `toolgate` from the sources, as a program a script runs (what the helper runs `claude` as). */
function toolgateBin(): string {
  const bin = path.join(scratch, 'toolgate');
  fs.writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(import.meta.resolve('tsx'))} ${JSON.stringify(path.join(repoRoot, 'src/cli/main.ts'))} "$@"\n`, { mode: 0o755 });
  return bin;
}

async function toolgateLines(): Promise<{ lines: LineShape[]; result: Record<string, number> }> {
  const [dir, extra, home] = ['proj', 'extra', 'home'].map((d) => path.join(scratch, d)) as [string, string, string];
  for (const d of [dir, extra, path.join(home, '.claude')]) fs.mkdirSync(d, { recursive: true });
  const run = await runClaudeCodeCalls(toolgateBin(), {
    cwd: dir,
    home,
    calls: STREAM_JSON_CALLS,
    args: ['--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--model', 'claude-sonnet-4-5', '--allowedTools', 'Bash', '--add-dir', extra],
  });
  expect(run.code, run.stderr).toBe(0);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  return { lines: streamJsonShape(run.stdout, { dir, extra, home }), result };
}

describe(`stream-json lines as Claude Code ${recording.claudeCode} prints them`, () => {
  it('the same kinds of line; no key Claude Code lacks; the same values; times in order; the missing keys as listed', async () => {
    const { lines: ours, result: r } = await toolgateLines();
    if (process.env.FC_DUMP) fs.writeFileSync('/tmp/fc-tg-stream.json', JSON.stringify(ours, null, 2));
    expect(ours.map((l) => l.kind)).toEqual(recording.lines.map((l) => l.kind));
    const missing: Record<string, string[]> = {};
    ours.forEach((line, i) => {
      const theirs = recording.lines[i]!;
      expect(line.keys.filter((k) => !theirs.keys.includes(k)), `${line.kind}: keys Claude Code does not print`).toEqual([]);
      const lacking = theirs.keys.filter((k) => !line.keys.includes(k));
      if (lacking.length > 0) missing[line.kind] = [...new Set([...(missing[line.kind] ?? []), ...lacking])];
      // Every value compared that both print (what toolgate lacks is in MISSING).
      const shared = (v: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(v ?? {}).filter(([k]) => line.keys.includes(k)));
      expect(line.values ?? {}, `${line.kind} #${i}: values`).toEqual(shared(theirs.values));
      expect(line.types ?? {}, `${line.kind} #${i}: times`).toEqual(theirs.types ?? {});
    });
    expect(missing).toEqual(MISSING);
    // The times are measured: each step after the one before it, all within the turn.
    expect(r.time_to_request_ms).toBeGreaterThanOrEqual(0);
    expect(r.ttft_stream_ms).toBeGreaterThanOrEqual(r.time_to_request_ms!);
    expect(r.first_content_frame_ms).toBeGreaterThanOrEqual(r.ttft_stream_ms!);
    expect(r.ttft_ms).toBeGreaterThanOrEqual(r.first_content_frame_ms!);
    expect(r.duration_ms).toBeGreaterThanOrEqual(r.ttft_ms!);
  }, 120_000);
});
