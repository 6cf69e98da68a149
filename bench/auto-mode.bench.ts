/**
 * Auto mode's classifier, through the real SDK against the scripted server (in this process, over 127.0.0.1):
 * - permissions.classifier_decision_ms: one permission decision that goes to the classifier (a Bash call that asks,
 *   stage one allows at once): the engine, the transcript, the request and the reading of the answer (median
 *   of 40). Baseline: the bare `messages.create` round trip with the same request body — the model call alone.
 * - permissions.classifier_stage2_decision_ms: the same when stage one is unsure and stage two decides (two
 *   requests). Baseline: two bare round trips.
 * - auto.speculative_bash_call_ms: one Bash call (`touch`) through the pipeline with a PreToolUse hook that takes
 *   25 ms and a classifier model that takes 25 ms to answer, with the speculative start (median of 20). Baseline: the
 *   same calls without it — the saving is the hook's time overlapping the classifier's.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAutoModeClassifier } from '../src/agent/auto-classifier.js';
import { classifierRequestText, classifierSystemPrompt, classifierToolChoice, classifierVerdictTool } from '../src/agent/classifier-prompt.js';
import { runToolUse } from '../src/execution/pipeline.js';
import { createHookRunner } from '../src/hooks/hook-runner.js';
import type { PermissionClassifier } from '../src/permissions/auto-mode.js';
import { createCanUseTool } from '../src/permissions/can-use-tool.js';
import { createPermissionContext } from '../src/permissions/permission-context.js';
import { createSpeculativeClassifier } from '../src/permissions/speculative-classifier.js';
import { startScriptedServer, type ScriptedResponse } from '../src/testing/index.js';
import type { AssistantMessage, ToolUseBlock } from '../src/tool/tool.js';
import { createToolUseContext, type ToolUseContext } from '../src/tool/tool-use-context.js';
import { BashTool } from '../src/tools/bash/index.js';
import { median, type Benchmark } from './lib.js';
import { verdict } from '../test/helpers/classifier-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const msg: AssistantMessage = { role: 'assistant', content: [] };

async function withServer<T>(answerFor: (index: number) => Promise<ScriptedResponse> | ScriptedResponse, body: (client: Anthropic) => Promise<T>): Promise<T> {
  let n = 0;
  const server = await startScriptedServer(Array.from({ length: 2_000 }, () => () => answerFor(n++)));
  try {
    return await body(new Anthropic({ apiKey: 'bench', baseURL: server.url, maxRetries: 0 }));
  } finally {
    await server.close();
  }
}

function autoContext(dir: string, hooks?: ToolUseContext['services']['hooks']): ToolUseContext {
  const permissionContext = createPermissionContext({ cwd: dir, mode: 'auto' });
  return createToolUseContext({ tools: [BashTool], permissionContext, sessionDir: path.join(dir, '.session'), mainLoopModel: 'claude-sonnet-4-6', ...(hooks ? { services: { hooks } } : {}) });
}

async function decisionFigures(dir: string, stages: 1 | 2) {
  const said = (decision: 'allow' | 'unsure', reason: string): ScriptedResponse => ({ ...verdict(decision, reason), usage: { input_tokens: 200, output_tokens: 8 } });
  const answerFor = (i: number) => (stages === 1 ? said('allow', 'fine') : i % 2 === 0 ? said('unsure', 'look closer') : said('allow', 'fine'));
  return withServer(answerFor, async (client) => {
    const classifier = createAutoModeClassifier({ client });
    const canUse = createCanUseTool({ classifier });
    const times: number[] = [];
    const bare: number[] = [];
    let body: Anthropic.Messages.MessageCreateParamsNonStreaming | undefined;
    const capture: PermissionClassifier = (request) => {
      body ??= { model: 'claude-haiku-5-5', max_tokens: 256, system: classifierSystemPrompt(1), messages: [{ role: 'user', content: classifierRequestText(request) }], tools: [classifierVerdictTool(1)], tool_choice: classifierToolChoice(1) };
      return classifier(request);
    };
    const first = await createCanUseTool({ classifier: capture })(BashTool, { command: 'touch x' }, autoContext(dir), msg, 'warm');
    if (first.behavior !== 'allow') throw new Error(`the classifier did not allow: ${JSON.stringify(first.decisionReason)}`);
    // Interleaved, so both see the same machine load.
    for (let i = 0; i < 45; i++) {
      const context = autoContext(dir);
      let start = performance.now();
      const d = await canUse(BashTool, { command: `touch f${i}` }, context, msg, `t${i}`);
      if (d.behavior !== 'allow') throw new Error('no allow');
      const decided = performance.now() - start;
      start = performance.now();
      for (let s = 0; s < stages; s++) await client.messages.create(body!, { maxRetries: 0 });
      if (i >= 5) {
        times.push(decided);
        bare.push(performance.now() - start);
      }
    }
    return { value: median(times), baseline: median(bare) };
  });
}

async function speculativeFigure(dir: string) {
  const DELAY = 25;
  return withServer(
    async () => (await sleep(DELAY), { ...verdict('allow', 'fine'), usage: { input_tokens: 200, output_tokens: 8 } }),
    async (client) => {
      const classifier = createAutoModeClassifier({ client });
      const hooks = createHookRunner({
        config: {},
        callbacks: [{ event: 'PreToolUse', matcher: 'Bash', callback: async () => (await sleep(DELAY), {}) }],
        sessionDir: path.join(dir, '.session'),
      });
      const once = async (speculative: boolean, i: number) => {
        const speculation = speculative ? createSpeculativeClassifier({ classifier }) : undefined;
        const canUse = createCanUseTool({ classifier, ...(speculation ? { speculation } : {}) });
        const block = { type: 'tool_use', id: `toolu_${speculative ? 's' : 'n'}${i}`, name: 'Bash', input: { command: `touch f${i}` } } as ToolUseBlock;
        const start = performance.now();
        const outcome = await runToolUse(block, msg, canUse, autoContext(dir, hooks), speculation ? { startSpeculativeClassifier: speculation.start } : {});
        if (outcome.decision?.behavior !== 'allow') throw new Error(`not allowed: ${JSON.stringify(outcome.result)}`);
        return performance.now() - start;
      };
      const withIt: number[] = [];
      const without: number[] = [];
      for (let i = 0; i < 24; i++) {
        // Interleaved, so both see the same machine load.
        const a = await once(true, i);
        const b = await once(false, i);
        if (i >= 4) {
          withIt.push(a);
          without.push(b);
        }
      }
      return { value: median(withIt), baseline: median(without) };
    },
  );
}

export const benchmarks: Benchmark[] = [
  {
    group: 'auto',
    names: ['permissions.classifier_decision_ms', 'permissions.classifier_stage2_decision_ms', 'auto.speculative_bash_call_ms'],
    async run() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-auto-'));
      try {
        const one = await decisionFigures(dir, 1);
        const two = await decisionFigures(dir, 2);
        const spec = await speculativeFigure(dir);
        return [
          { name: 'permissions.classifier_decision_ms', value: one.value, unit: 'ms', baseline: one.baseline },
          { name: 'permissions.classifier_stage2_decision_ms', value: two.value, unit: 'ms', baseline: two.baseline },
          { name: 'auto.speculative_bash_call_ms', value: spec.value, unit: 'ms', baseline: spec.baseline },
        ];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
