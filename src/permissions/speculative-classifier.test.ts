/**
 * Early classification of shell calls (pipeline step 5): started only for a shell call (by trait) in auto mode that
 * the rules alone would ask about; taken by the classifier step when the call's description is unchanged; aborted
 * otherwise; its tokens still counted when it finished but was not needed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from '../tool/build-tool.js';
import type { PermissionMode } from '../tool/permission-types.js';
import type { AssistantMessage } from '../tool/tool.js';
import { createToolUseContext, type ToolUseContext } from '../tool/tool-use-context.js';
import type { ClassifierRequest, ClassifierVerdict } from './auto-mode.js';
import { isReadOnlyCommand } from './bash/index.js';
import { createCanUseTool } from './can-use-tool.js';
import { createPermissionContext, parseRules } from './permission-context.js';
import { createSpeculativeClassifier } from './speculative-classifier.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-spec-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const tool = (name: string, kind: 'shell' | 'other') =>
  buildTool({
    name,
    permissionTraits: { kind, commandField: 'command' },
    inputSchema: z.object({ command: z.string() }),
    maxResultSizeChars: 1000,
    prompt: async () => name,
    isReadOnly: (input) => kind === 'shell' && isReadOnlyCommand(input.command),
    toAutoClassifierInput: (input) => input.command,
    call: async ({ command }) => ({ data: command }),
  });
const Shell = tool('Shell', 'shell');
const NamedBash = tool('Bash', 'other'); // a tool merely named Bash: not a shell by trait
const msg: AssistantMessage = { role: 'assistant', content: [] };

function context(id: string, mode: PermissionMode = 'auto', allow: string[] = []): ToolUseContext {
  const permissionContext = createPermissionContext({ cwd: tmp, mode, rules: parseRules(allow, 'allow', 'userSettings') });
  return { ...createToolUseContext({ tools: [Shell, NamedBash], permissionContext, sessionDir: tmp }), toolUseId: id };
}

function recorder(verdict: ClassifierVerdict = { behavior: 'allow', reason: 'fine', usage: { input_tokens: 7, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, costUsd: 0.001 }) {
  const requests: ClassifierRequest[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const classifier = async (request: ClassifierRequest) => {
    requests.push(request);
    await Promise.race([gate, new Promise((resolve) => request.signal.addEventListener('abort', resolve))]);
    if (request.signal.aborted) throw new Error('aborted');
    return verdict;
  };
  return { classifier, requests, release };
}

describe('speculative classifier', () => {
  it('starts for a shell call that would ask; the classifier step takes its verdict instead of asking again', async () => {
    const { classifier, requests, release } = recorder();
    const speculation = createSpeculativeClassifier({ classifier });
    const ctx = context('s1');
    expect(speculation.start(Shell, { command: 'touch a' }, ctx)).toBeTypeOf('function');
    await expect.poll(() => requests.length).toBe(1);
    expect(requests[0]!.speculative).toBe(true);
    release();
    const d = await createCanUseTool({ classifier, speculation })(Shell, { command: 'touch a' }, ctx, msg, 's1');
    expect(d).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'classifier', classifier: { outcome: 'allow', speculative: true } } });
    expect(requests).toHaveLength(1);
    expect(speculation.pending).toBe(0);
  });

  it('is not started for a tool merely named Bash, outside auto mode, or without a tool_use id', () => {
    const { classifier } = recorder();
    const speculation = createSpeculativeClassifier({ classifier });
    expect(speculation.start(NamedBash, { command: 'touch a' }, context('n1'))).toBeUndefined();
    expect(speculation.start(Shell, { command: 'touch a' }, context('n2', 'default'))).toBeUndefined();
    expect(speculation.start(Shell, { command: 'touch a' }, { ...context('n3'), toolUseId: undefined })).toBeUndefined();
    expect(speculation.pending).toBe(0);
  });

  it('sends nothing for a call the rules settle (read-only, allowed)', async () => {
    const { classifier, requests } = recorder();
    const speculation = createSpeculativeClassifier({ classifier });
    speculation.start(Shell, { command: 'ls -la' }, context('r1'));
    speculation.start(Shell, { command: 'touch ok' }, context('r2', 'auto', ['Shell(touch ok)']));
    const canUse = createCanUseTool({ classifier, speculation });
    expect((await canUse(Shell, { command: 'ls -la' }, context('r1'), msg, 'r1')).decisionReason?.layer).toBe('readOnly');
    expect((await canUse(Shell, { command: 'touch ok' }, context('r2', 'auto', ['Shell(touch ok)']), msg, 'r2')).decisionReason?.layer).toBe('allowRule');
    expect(requests).toHaveLength(0);
    expect(speculation.pending).toBe(0);
  });

  it('a changed input (a hook rewrote it) is classified afresh; the early request is aborted', async () => {
    const { classifier, requests, release } = recorder();
    const speculation = createSpeculativeClassifier({ classifier });
    speculation.start(Shell, { command: 'touch before' }, context('c1'));
    await expect.poll(() => requests.length).toBe(1);
    const decided = createCanUseTool({ classifier, speculation })(Shell, { command: 'touch after' }, context('c1'), msg, 'c1');
    await expect.poll(() => requests.length).toBe(2);
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(requests[1]!.classifierInput).toBe('touch after');
    release();
    expect((await decided).decisionReason?.classifier).toMatchObject({ outcome: 'allow' });
    expect((await decided).decisionReason?.classifier?.speculative).toBeUndefined();
  });

  it('ended before the engine needed it: aborted; already finished: its tokens are reported as unused', async () => {
    const running = recorder();
    const speculation = createSpeculativeClassifier({ classifier: running.classifier });
    const end = speculation.start(Shell, { command: 'touch a' }, context('d1'))!;
    await expect.poll(() => running.requests.length).toBe(1);
    end();
    expect(running.requests[0]!.signal.aborted).toBe(true);
    expect(speculation.pending).toBe(0);

    const finished = recorder();
    finished.release();
    const other = createSpeculativeClassifier({ classifier: finished.classifier });
    other.start(Shell, { command: 'touch b' }, context('d2'));
    await expect.poll(() => finished.requests.length).toBe(1);
    await new Promise((r) => setImmediate(r)); // the verdict is a few microtasks away: all of them run before this
    expect(other.discard('d2')).toMatchObject({ outcome: 'unused', speculative: true, usage: { input_tokens: 7 }, costUsd: 0.001 });
  });
});
