/**
 * stream-json lines as Claude Code prints them (stream-json.json, recorded by record.ts from the real `claude -p
 * --output-format stream-json --include-partial-messages --add-dir DIR`): the same call through toolgate's encoder
 * (what `toolgate -p --output-format stream-json` prints) gives the same kinds of line, each with no key Claude Code's
 * lacks, init's folders with the same values, and the keys it still lacks are exactly the ones listed below.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { query } from '../../../src/agent-sdk/index.js';
import { startScriptedServer, type RecordedRequest } from '../../../src/testing/index.js';
import { MISSING, STREAM_JSON_CALLS, STREAM_JSON_RECORDING, streamJsonShape, type LineShape } from './stream-json.shape.js';

const recording = JSON.parse(fs.readFileSync(STREAM_JSON_RECORDING, 'utf8')) as { claudeCode: string; lines: LineShape[] };

async function toolgateLines(): Promise<LineShape[]> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
  const [dir, extra, home] = ['proj', 'extra', 'home'].map((d) => path.join(tmp, d)) as [string, string, string];
  for (const d of [dir, extra, home]) fs.mkdirSync(d);
  const turn = (request: RecordedRequest) => {
    const done = (request.body as { messages: { role: string }[] }).messages.some((m) => m.role === 'assistant');
    return done ? { content: [{ type: 'text' as const, text: 'done' }] } : { content: [{ type: 'tool_use' as const, id: 'toolu_call_0', ...STREAM_JSON_CALLS[0]! }] };
  };
  const server = await startScriptedServer([turn, turn]);
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key' };
    const options = { cwd: dir, env, model: 'claude-sonnet-4-5', settingSources: [], allowedTools: ['Bash'], additionalDirectories: [extra], includePartialMessages: true };
    const out: string[] = [];
    for await (const m of query({ prompt: 'run the calls', options })) out.push(JSON.stringify(m));
    return streamJsonShape(out.join('\n'), { dir, extra, home });
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

describe(`stream-json lines as Claude Code ${recording.claudeCode} prints them`, () => {
  it('the same kinds of line; each with no key Claude Code lacks; init\'s folders the same; the missing keys as listed', async () => {
    const ours = await toolgateLines();
    if (process.env.FC_DUMP) fs.writeFileSync('/tmp/fc-tg-stream.json', JSON.stringify(ours, null, 2));
    expect(ours.map((l) => l.kind)).toEqual(recording.lines.map((l) => l.kind));
    const missing: Record<string, string[]> = {};
    ours.forEach((line, i) => {
      const theirs = recording.lines[i]!;
      expect(line.keys.filter((k) => !theirs.keys.includes(k)), `${line.kind}: keys Claude Code does not print`).toEqual([]);
      const lacking = theirs.keys.filter((k) => !line.keys.includes(k));
      if (lacking.length > 0) missing[line.kind] = [...new Set([...(missing[line.kind] ?? []), ...lacking])];
    });
    expect(ours[0]!.values).toEqual(recording.lines[0]!.values);
    expect(missing).toEqual(MISSING);
  }, 60_000);
});
