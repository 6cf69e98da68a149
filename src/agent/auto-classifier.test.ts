/**
 * The built-in classifier through the real Anthropic SDK against the scripted server, as a runtime in auto mode uses
 * it: the verdicts it reads, and everything that is not a verdict (unreadable, unsure twice, refusal, API errors after
 * their retries, a timeout) going to a person — or denied headless — with the reason in the trace.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answer, classifierPayload, verdict, startModelAndClassifier, type ModelAndClassifier } from '../../test/helpers/classifier-server.js';
import { makeTestTool } from '../../test/helpers/tools.js';
import type { ClassifierTrace, PermissionDecision } from '../tool/permission-types.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../tool/tool.js';
import { DEFAULT_CLASSIFIER_FAST_MODEL } from './auto-classifier.js';
import { createToolRuntime } from './create-tool-runtime.js';
import type { RuntimePermissionRequest, ToolRuntime, ToolRuntimeOptions } from './types.js';

let dir: string;
let models: ModelAndClassifier | undefined;
const runtimes: ToolRuntime[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-classifier-'));
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  await models?.close();
  models = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function autoRuntime(classify: Parameters<typeof startModelAndClassifier>[1], options: ToolRuntimeOptions = {}): Promise<ToolRuntime> {
  models = await startModelAndClassifier([], classify);
  const rt = await createToolRuntime({
    cwd: dir,
    sessionDir: path.join(dir, '.session'),
    mode: 'auto',
    model: 'claude-sonnet-4-6',
    client: models.client,
    classifier: { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 } },
    ...options,
    settings: { sources: [], ...options.settings },
  });
  runtimes.push(rt);
  return rt;
}

let ids = 0;
const bash = (command: string): ToolUseBlock => ({ type: 'tool_use', id: `toolu_c${++ids}`, name: 'Bash', input: { command } }) as ToolUseBlock;
const text = (r: ToolResultBlockParam): string => (typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join(''));

async function decide(rt: ToolRuntime, command: string): Promise<{ decision: PermissionDecision; result: ToolResultBlockParam; classifier: ClassifierTrace | undefined }> {
  const run = await rt.run([bash(command)]);
  const outcome = run.outcomes[0]!;
  return { decision: outcome.decision!, result: outcome.result, classifier: outcome.decision?.decisionReason?.classifier };
}

describe('the built-in classifier', () => {
  it('stage one allow: the call runs; the trace names the classifier, its stage, model, tokens and cost', async () => {
    const rt = await autoRuntime(() => verdict('allow', 'creating a file in the project', { usage: { input_tokens: 120, output_tokens: 9 } }));
    const { decision, result, classifier } = await decide(rt, 'touch made-by-test');
    expect(result.is_error).not.toBe(true);
    expect(existsSync(path.join(dir, 'made-by-test'))).toBe(true);
    expect(decision).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'classifier' } });
    expect(classifier).toMatchObject({ outcome: 'allow', stage: 1, reason: 'creating a file in the project', models: [DEFAULT_CLASSIFIER_FAST_MODEL] });
    expect(classifier?.usage).toMatchObject({ input_tokens: 120, output_tokens: 9 });
    expect(classifier?.costUsd).toBeGreaterThan(0);
    // What it was asked: the call as the tool describes it, and why the rules did not settle it.
    const payload = classifierPayload(models!.classifierRequests[0]!);
    expect(payload.action).toEqual({ tool: 'Bash', input: 'touch made-by-test' });
    expect(payload.why_asked).not.toBe('');
    expect(models!.classifierRequests[0]!.body).toMatchObject({ model: DEFAULT_CLASSIFIER_FAST_MODEL });
    expect(models!.classifierRequests[0]!.body.thinking).toBeUndefined();
  });

  it('stage one block: the call does not run and the model is told the classifier blocked it, and why', async () => {
    const rt = await autoRuntime(() => verdict('block', 'deletes the project'));
    const { decision, result, classifier } = await decide(rt, 'touch should-not-exist');
    expect(existsSync(path.join(dir, 'should-not-exist'))).toBe(false);
    expect(decision).toMatchObject({ behavior: 'deny', decisionReason: { layer: 'classifier' } });
    expect(classifier).toMatchObject({ outcome: 'deny', stage: 1 });
    expect(text(result)).toMatch(/classifier blocked this call.*deletes the project/);
  });

  it('unsure goes to stage two: the session model with extended thinking decides, and both stages are counted', async () => {
    const rt = await autoRuntime((_req, i) =>
      i === 0 ? verdict('unsure', 'could be a cleanup', { usage: { input_tokens: 100, output_tokens: 5 } }) : verdict('allow', 'the user asked for it', { usage: { input_tokens: 300, output_tokens: 40 } }),
    );
    const { decision, classifier } = await decide(rt, 'touch after-thinking');
    expect(decision.behavior).toBe('allow');
    expect(existsSync(path.join(dir, 'after-thinking'))).toBe(true);
    const [one, two] = models!.classifierRequests;
    expect(one!.body.model).toBe(DEFAULT_CLASSIFIER_FAST_MODEL);
    expect(two!.body.model).toBe('claude-sonnet-4-6');
    expect(two!.body.thinking).toMatchObject({ type: 'enabled', budget_tokens: 2048 });
    expect(two!.body.max_tokens).toBeGreaterThan(2048);
    expect(classifier).toMatchObject({ outcome: 'allow', stage: 2, models: [DEFAULT_CLASSIFIER_FAST_MODEL, 'claude-sonnet-4-6'] });
    expect(classifier?.usage).toMatchObject({ input_tokens: 400, output_tokens: 45 });
  });

  it('still unsure after thinking is no verdict', async () => {
    const rt = await autoRuntime(() => verdict('unsure', 'cannot tell'));
    const { decision, classifier } = await decide(rt, 'touch x');
    expect(decision.behavior).toBe('deny');
    expect(classifier).toMatchObject({ outcome: 'unavailable', stage: 2 });
    expect(existsSync(path.join(dir, 'x'))).toBe(false);
  });

  const noVerdicts: [string, Parameters<typeof startModelAndClassifier>[1], RegExp][] = [
    ['an answer of prose', () => answer('Sure, that looks fine to me. ALLOW'), /the answer is text, not a call of record_verdict/],
    ['an empty answer', () => ({ content: [] }), /empty/],
    ['a refusal', () => ({ content: [], stopReason: 'refusal' }), /refused/],
    ['500 with its retries exhausted', () => ({ errors: [{ status: 500 }, { status: 500 }, { status: 500 }], content: verdict('allow', 'never served').content }), /500.*gave up after 3 attempts/],
    ['529 with its retries exhausted', () => ({ errors: [{ status: 529 }, { status: 529 }, { status: 529 }], content: verdict('allow', 'never served').content }), /529 overloaded_error.*gave up after 3 attempts/],
    ['a 400 (not retried)', () => ({ errors: [{ status: 400, message: 'bad model' }], content: [] }), /400.*bad model/],
  ];
  for (const [what, classify, reason] of noVerdicts) {
    it(`${what}: never an allow — denied headless, with the reason in the trace`, async () => {
      const rt = await autoRuntime(classify);
      const { decision, result, classifier } = await decide(rt, 'touch never');
      expect(existsSync(path.join(dir, 'never'))).toBe(false);
      expect(decision).toMatchObject({ behavior: 'deny', decisionReason: { layer: 'prompt' } });
      expect(classifier?.outcome).toBe('unavailable');
      expect(classifier?.reason).toMatch(reason);
      expect(decision.decisionReason?.reason).toMatch(/headless/);
      expect(text(result)).toMatch(/classifier gave no verdict/);
    });
  }

  it('a 529 that clears on retry gives a verdict (the retry is counted as a request)', async () => {
    const rt = await autoRuntime(() => ({ errors: [{ status: 529 }], content: verdict('allow', 'fine').content }));
    const { decision } = await decide(rt, 'touch retried');
    expect(decision.behavior).toBe('allow');
    expect(models!.classifierRequests).toHaveLength(2);
  });

  it('no verdict, interactive: a person decides, and sees why the classifier did not', async () => {
    const asked: RuntimePermissionRequest[] = [];
    const rt = await autoRuntime(() => answer('I would rather not say'), {
      onPermissionRequest: async (request) => (asked.push(request), { behavior: 'allow' }),
    });
    const { decision } = await decide(rt, 'touch by-a-person');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.ask.decisionReason?.classifier).toMatchObject({ outcome: 'unavailable' });
    expect(asked[0]!.ask.decisionReason?.reason).toMatch(/classifier gave no verdict/);
    expect(decision).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'prompt', classifier: { outcome: 'unavailable' } } });
    expect(existsSync(path.join(dir, 'by-a-person'))).toBe(true);
  });

  it('a timeout is no verdict', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const rt = await autoRuntime(async () => (await held, verdict('allow', 'too late')), { settings: { object: { toolgate: { autoMode: { timeoutMs: 200 } } } } });
    try {
      const { decision, classifier } = await decide(rt, 'touch too-late');
      expect(decision.behavior).toBe('deny');
      expect(classifier).toMatchObject({ outcome: 'unavailable' });
      expect(classifier?.reason).toMatch(/timeout/);
      expect(existsSync(path.join(dir, 'too-late'))).toBe(false);
    } finally {
      release();
    }
  });

  it("a tool whose toAutoClassifierInput is '' is never sent to the classifier: the normal prompt decides", async () => {
    const Silent = makeTestTool('Silent');
    const asked: string[] = [];
    const rt = await autoRuntime(() => verdict('allow', 'would allow anything'), {
      tools: [Silent],
      onPermissionRequest: async (request) => (asked.push(request.tool.name), { behavior: 'deny' }),
    });
    const run = await rt.run([{ type: 'tool_use', id: 'toolu_silent', name: 'Silent', input: {} } as ToolUseBlock]);
    expect(models!.classifierRequests).toHaveLength(0);
    expect(asked).toEqual(['Silent']);
    expect(run.outcomes[0]!.decision?.decisionReason?.classifier).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/nothing to judge/) });
  });

  it('without a client (and no classifier of its own) auto mode asks a person, and the trace says why', async () => {
    const rt = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), mode: 'auto', settings: { sources: [] } });
    runtimes.push(rt);
    expect(rt.permissionContext.isAutoModeAvailable).not.toBe(true);
    const { decision, classifier } = await decide(rt, 'touch nobody');
    expect(decision.behavior).toBe('deny');
    expect(classifier).toMatchObject({ outcome: 'skipped', reason: 'no classifier is configured' });
  });
});
