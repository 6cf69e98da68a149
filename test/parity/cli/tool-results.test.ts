/**
 * toolgate's tool_result texts equal Claude Code's, call by call: each scenario of tool-results.scenarios.ts runs
 * through a toolgate session (the scripted model makes the same calls on the same files, `--allowedTools` the same)
 * and the tool_result blocks the model got are compared with the recording of the real Claude Code
 * (tool-results.json; re-record with `npx tsx test/parity/cli/record.ts`). No Claude Code is needed here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { query } from '../../../src/agent-sdk/index.js';
import { startScriptedServer, type RecordedRequest } from '../../../src/testing/index.js';
import { ALLOWED_TOOLS, PERMISSION_MODE, SCENARIOS, concreteInput, makeProject, toolResultsOf, writeScenarioFiles, type ParityScenario, type RecordedResult } from './tool-results.scenarios.js';

const recording = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'tool-results.json'), 'utf8')) as { claudeCode: string; scenarios: Record<string, RecordedResult[]> };

async function runToolgate(scenario: ParityScenario): Promise<RecordedResult[]> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-parity-')));
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'home');
  makeProject(dir);
  writeScenarioFiles(dir, scenario);
  fs.mkdirSync(home);
  const calls = scenario.calls.map((c) => ({ name: c.name, input: concreteInput(c.input, dir) }));
  const turn = (request: RecordedRequest) => {
    const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
    const i = messages.filter((m) => m.role === 'assistant' && Array.isArray(m.content) && (m.content as { type: string }[]).some((b) => b.type === 'tool_use')).length;
    if (i >= calls.length) return { content: [{ type: 'text' as const, text: 'done' }] };
    return { content: [{ type: 'tool_use' as const, id: `toolu_call_${i}`, name: calls[i]!.name, input: calls[i]!.input }] };
  };
  const server = await startScriptedServer(Array.from({ length: calls.length + 2 }, () => turn));
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key', ...scenario.env };
    for await (const m of query({ prompt: 'run the calls', options: { cwd: dir, env, model: 'claude-sonnet-4-5', settingSources: [], allowedTools: ALLOWED_TOOLS, permissionMode: PERMISSION_MODE, maxTurns: calls.length + 5 } })) void m;
    return toolResultsOf(server.messageRequests, scenario.calls, dir, home);
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The calls whose texts still differ, each with why (docs/cli.md lists them). They are checked to differ, so one that
 * comes to match is taken off this list rather than staying here unnoticed. `extendsRecorded`: toolgate's text is
 * Claude Code's, unchanged, with lines of its own after it (checked too).
 */
const KNOWN_DIFFERENCES: readonly { scenario: string; input: Record<string, unknown>; why: string; extendsRecorded?: true }[] = [
  {
    // 240 KB: over the token cap, under the size cap.
    scenario: 'read',
    input: { file_path: '$DIR/tokens.txt' },
    why: 'Claude Code shows a first part of the file with no word that it is partial; toolgate ends its page with a PARTIAL-view note naming the next offset (the model must not answer from a page it takes for the file)',
  },
  {
    scenario: 'notebook',
    input: { notebook_path: '$DIR/missing.ipynb', cell_id: 'c1', new_source: 'q' },
    why: 'for a notebook that does not exist Claude Code says it "has not been read yet" (its read check comes first), sending the model to read a file that is not there; toolgate says the notebook does not exist',
  },
  {
    scenario: 'notebook',
    input: { notebook_path: '$DIR/a.txt', cell_id: 'c1', new_source: 'q' },
    why: 'Claude Code sends the model to "the FileEdit tool", a name no tool of its has; toolgate names the Edit tool',
  },
  {
    scenario: 'read',
    input: { file_path: '$DIR/src' },
    why: "a directory: toolgate sends Claude Code's EISDIR line and then a second one naming Bash ls and Glob, the tools that list a directory (src/tools/read/README.md)",
    extendsRecorded: true,
  },
];

const knownDifference = (scenario: string, input: Record<string, unknown>) =>
  KNOWN_DIFFERENCES.find((k) => k.scenario === scenario && JSON.stringify(k.input) === JSON.stringify(input));

describe(`tool_result texts as Claude Code ${recording.claudeCode} sends them to the model`, () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, async () => {
      const expected = recording.scenarios[scenario.name];
      expect(expected, `no recording of ${scenario.name}: run test/parity/cli/record.ts`).toBeDefined();
      const actual = await runToolgate(scenario);
      actual.forEach((result, i) => {
        const known = knownDifference(scenario.name, result.input);
        if (known !== undefined) {
          expect(result, `call ${i} is listed as differing (${known.why}) but now matches`).not.toEqual(expected![i]);
          if (known.extendsRecorded) {
            const recorded = expected![i]!;
            expect({ ...result, content: undefined }).toEqual({ ...recorded, content: undefined });
            expect(String(result.content).startsWith(`${String(recorded.content)}\n`), `call ${i} keeps Claude Code's text first`).toBe(true);
          }
        } else expect(result, `call ${i}: ${result.tool} ${JSON.stringify(result.input)}`).toEqual(expected![i]);
      });
      expect(actual).toHaveLength(expected!.length);
    }, 60_000);
  }
});
