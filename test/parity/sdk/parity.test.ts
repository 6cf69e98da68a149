/**
 * `toolgate/agent-sdk` gives the real Agent SDK's values on every parity scenario: the messages in order with their
 * texts and tool_result contents, when hooks run, the result's fields, whether the stream throws, what is written.
 * The reference is recordings.json, recorded from the real SDK by scripts/parity-record-sdk.ts (no SDK needed here).
 * Where toolgate differs on purpose, DIFFERENCES names the value and why (docs/agent-sdk.md lists them too); the
 * test checks that each such value really differs, so a difference that went away is taken off the list.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as toolgate from 'toolgate/agent-sdk';
import { runParityScenario, type ParityValues, type SdkModule } from './run.js';
import { PARITY_SCENARIOS } from './scenarios.js';

const recorded = JSON.parse(readFileSync(path.join(import.meta.dirname, 'recordings.json'), 'utf8')) as {
  agentSdkVersion: string;
  scenarios: Record<string, ParityValues>;
};

/** Values toolgate gives differently on purpose: scenario → [path of the value, why]. */
const DIFFERENCES: Record<string, readonly (readonly [string, string])[]> = {
  'deny-headless-bash': [['sessions.0.sequence.3.content.0.content', "toolgate's Bash checker is its own: its reason and the rule that would allow the command"]],
  'deny-can-use-tool-interrupt': [['sessions.0.result.errors', "the Agent SDK's text is an internal diagnostic ([ede_diagnostic] …); toolgate says what happened"]],
  'hook-throws': [['sessions.0.stderrLines', "the Agent SDK's stderr carries its process's debug lines; toolgate's says nothing here"]],
  'hook-continue-false': [
    ['sessions.0.sequence.4.content.0', 'safety: a hook that says stop is not followed by the call it came with (the Agent SDK still makes it)'],
    ['files', 'the call was not made (above)'],
  ],
  'agent-loose-definition': [['sessions.0.stderrLines', 'the slip is told once on stderr (the Agent SDK says nothing)']],
  'seed-read-state': [
    ['sessions.0.sequence.2.content.0.input', "Claude Code echoes Edit's input with its defaults filled in (replace_all: false); toolgate yields the model's input as sent"],
    ['sessions.0.sequence.3.content.0.content', "toolgate's Edit ends with Claude Code's 'file state is current' note, which Claude Code gives only after its own Read"],
  ],
  'seed-read-state-stale': [
    ['sessions.0.sequence.2.content.0.input', 'as in seed-read-state: the input as the model sent it'],
    ['sessions.0.sequence.3.content.0', 'safety: toolgate edits only a file the model has read (Claude Code 2.1.328 in the SDK edits an unread file); a seed older than the file does not count'],
    ['files', 'the Edit was refused (above)'],
  ],
  'mcp-mode-override': [['sessions.0.sequence.4.content.0.content', "the denial says the override asked and nobody could answer, not Claude Code's 'you haven't granted it yet'"]],
};

function at(value: unknown, where: string): { parent: Record<string, unknown>; key: string } {
  const keys = where.split('.');
  let parent = value as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) parent = parent[k] as Record<string, unknown>;
  return { parent, key: keys.at(-1)! };
}

describe(`toolgate/agent-sdk gives the Agent SDK ${recorded.agentSdkVersion}'s values (test/parity/sdk/recordings.json)`, () => {
  it('every scenario has a recording', () => {
    expect(Object.keys(recorded.scenarios).sort()).toEqual(PARITY_SCENARIOS.map((s) => s.name).sort());
  });
  for (const scenario of PARITY_SCENARIOS) {
    it(`${scenario.name}: ${scenario.about}`, async () => {
      const values = structuredClone(await runParityScenario(toolgate as unknown as SdkModule, scenario));
      const expected = structuredClone(recorded.scenarios[scenario.name]!);
      for (const [where, why] of DIFFERENCES[scenario.name] ?? []) {
        const ours = at(values, where);
        const theirs = at(expected, where);
        expect(ours.parent[ours.key], `${where} was listed as differing (${why}) but is now equal: take it off the list`).not.toEqual(theirs.parent[theirs.key]);
        ours.parent[ours.key] = theirs.parent[theirs.key] = `<differs: ${why}>`;
      }
      expect(values).toEqual(expected);
    });
  }
});
