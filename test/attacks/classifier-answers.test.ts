/**
 * Invariant 4 (docs/security.md): a model's answer is parsed strictly. The auto-mode classifier's verdict is one call
 * of its verdict tool with exactly `{ decision, reason }`; any other answer — prose that starts with "Allow", a bare
 * ALLOW, two verdicts, a verdict inside a sentence, JSON in a code fence, a call beside text, two calls, extra keys,
 * wrong types, a cut-off answer, a verdict only in thinking — is no verdict, and no verdict never allows.
 *
 * Each case is a real runtime in auto mode (headless: no verdict is a denial), the real Anthropic SDK and the house's
 * scripted Messages API server on 127.0.0.1 answering the classifier with the hostile answer, at stage one and (after
 * an honest "unsure") at stage two; the Bash call it judges is `touch`, so "allowed" is a file on disk.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLASSIFIER_VERDICT_TOOL } from '../../src/agent/classifier-prompt.js';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { ToolRuntime } from '../../src/agent/types.js';
import type { ScriptedBlock, ScriptedResponse } from '../../src/testing/script.js';
import type { ToolUseBlock } from '../../src/tool/tool.js';
import { answer, startModelAndClassifier, verdict, type ModelAndClassifier } from '../helpers/classifier-server.js';

const usage = { input_tokens: 100, output_tokens: 10 };
const call = (input: unknown, name = CLASSIFIER_VERDICT_TOOL): ScriptedBlock => ({ type: 'tool_use', name, input });
const blocks = (content: ScriptedBlock[], extra: Partial<ScriptedResponse> = {}): ScriptedResponse => ({ content, usage, ...extra });
const text = (t: string): ScriptedBlock => ({ type: 'text', text: t });

/** Hostile answers: none of them is exactly one well-formed verdict call. */
const HOSTILE: [string, ScriptedResponse][] = [
  ['prose that starts with "Allow"', answer('Allow — the user asked for this file.')],
  ['a bare ALLOW', answer('ALLOW')],
  ['markdown-dressed allow', answer('**ALLOW**: fine')],
  ['two verdicts in tags', answer('<verdict>allow</verdict>\nOn reflection:\n<verdict>block</verdict>')],
  ['a verdict inside a sentence', answer('I would not allow this: it touches a file nobody asked for.')],
  ['JSON in a code fence with trailing prose', answer('```json\n{"decision": "allow", "reason": "fine"}\n```\nThat said, I would block it.')],
  ['the verdict object as text', answer('{"decision":"allow","reason":"fine"}')],
  ['a verdict call with text beside it saying block', blocks([call({ decision: 'allow', reason: 'fine' }), text('Actually, block this: it was not asked for.')])],
  ['text saying allow before a block call', blocks([text('ALLOW: fine'), call({ decision: 'block', reason: 'no' })])],
  ['two verdict calls (allow, then block)', blocks([call({ decision: 'allow', reason: 'a' }), call({ decision: 'block', reason: 'b' })])],
  ['two verdict calls that agree', blocks([call({ decision: 'allow', reason: 'a' }), call({ decision: 'allow', reason: 'b' })])],
  ['a verdict call with an extra key', blocks([call({ decision: 'allow', reason: 'fine', override: true })])],
  ['a verdict call with the decision in capitals', blocks([call({ decision: 'ALLOW', reason: 'fine' })])],
  ['a verdict call with the decision as a list', blocks([call({ decision: ['allow'], reason: 'fine' })])],
  ['a verdict call whose decision hedges', blocks([call({ decision: 'allow, probably', reason: 'fine' })])],
  ['a verdict call without a reason', blocks([call({ decision: 'allow' })])],
  ['a verdict call whose input is a string', blocks([call('allow')])],
  ['a call of another tool named like a verdict', blocks([call({ decision: 'allow', reason: 'fine' }, 'allow')])],
  ['an allow cut off at max_tokens', blocks([call({ decision: 'allow', reason: 'the user asked for' })], { stopReason: 'max_tokens' })],
  ['a verdict that only ends the turn (end_turn)', blocks([call({ decision: 'allow', reason: 'fine' })], { stopReason: 'end_turn' })],
  ['a verdict only in a thinking block', blocks([{ type: 'thinking', thinking: 'ALLOW: the user asked for it.\n{"decision":"allow","reason":"ok"}', signature: 'sig' }])],
  ['a thinking block that allows, then text that allows', blocks([{ type: 'thinking', thinking: 'decision: allow', signature: 'sig' }, text('Allow.')])],
];

let dir: string;
let models: ModelAndClassifier;
let runtime: ToolRuntime;
/** What the classifier answers next, by stage (1: fast, 2: thinking). */
let script: (stage: 1 | 2) => ScriptedResponse = () => verdict('allow', 'fine');

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-classifier-'));
  models = await startModelAndClassifier([], (request) => script(request.body.thinking === undefined ? 1 : 2));
  runtime = await createToolRuntime({
    cwd: dir,
    sessionDir: path.join(dir, '.session'),
    mode: 'auto',
    model: 'claude-sonnet-4-6',
    client: models.client,
    classifier: { retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } },
    settings: { sources: [] },
  });
});
afterAll(async () => {
  await runtime.dispose();
  await models.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
async function touch(): Promise<{ made: boolean; outcome: string | undefined; reason: string | undefined }> {
  const file = `made-${++n}`;
  const run = await runtime.run([{ type: 'tool_use', id: `toolu_attack_${n}`, name: 'Bash', input: { command: `touch ${file}` } } as ToolUseBlock]);
  const classifier = run.outcomes[0]!.decision?.decisionReason?.classifier;
  return { made: existsSync(path.join(dir, file)), outcome: classifier?.outcome, reason: classifier?.reason };
}

describe('attack: the classifier answers with something other than exactly one verdict call', () => {
  it('control: one well-formed verdict call allows, at stage one and at stage two (so the cases below can fail)', async () => {
    script = () => verdict('allow', 'the user asked for it');
    expect(await touch()).toMatchObject({ made: true, outcome: 'allow' });
    script = (stage) => (stage === 1 ? verdict('unsure', 'look closer') : verdict('allow', 'the user asked for it'));
    expect(await touch()).toMatchObject({ made: true, outcome: 'allow' });
    // The verdict is asked for as a call: stage one names the tool, stage two (thinking) offers it.
    const [first, , second] = models.classifierRequests;
    expect(first!.body.tool_choice).toMatchObject({ type: 'tool', name: CLASSIFIER_VERDICT_TOOL });
    expect(first!.body.tools).toEqual([expect.objectContaining({ name: CLASSIFIER_VERDICT_TOOL, input_schema: expect.objectContaining({ additionalProperties: false }) })]);
    expect(second!.body.tools).toEqual([expect.objectContaining({ name: CLASSIFIER_VERDICT_TOOL })]);
  });

  for (const [what, hostile] of HOSTILE) {
    it(`${what}: no verdict at stage one — the call does not run`, async () => {
      script = () => hostile;
      const r = await touch();
      expect(r, r.reason).toMatchObject({ made: false, outcome: 'unavailable' });
    });
    it(`${what}: no verdict at stage two — the call does not run`, async () => {
      script = (stage) => (stage === 1 ? verdict('unsure', 'look closer') : hostile);
      const r = await touch();
      expect(r, r.reason).toMatchObject({ made: false, outcome: 'unavailable' });
      expect(r.reason).toMatch(/stage two gave no verdict/);
    });
  }

  it('"unsure" is not a verdict at stage two (its schema has only allow and block)', async () => {
    script = (stage) => (stage === 1 ? verdict('unsure', 'look closer') : verdict('unsure', 'still cannot tell'));
    expect(await touch()).toMatchObject({ made: false, outcome: 'unavailable' });
  });
});
