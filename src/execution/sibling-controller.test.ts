/**
 * The executor's child controller (the one a failing call aborts to cancel its siblings): made when a tool starts,
 * let go when none runs — without an abort — and kept once cancelled, so calls that start later are cancelled too.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from '../tool/build-tool.js';
import { makeTestTool } from '../../test/helpers/tools.js';
import { allowAll, assistantMessage, makeContext, tempSession, textOf, toolUse, type TempSession } from '../../test/helpers/execution.js';
import { StreamingToolExecutor, type ExecutorUpdate } from './streaming-tool-executor.js';

let session: TempSession;
beforeEach(() => {
  session = tempSession();
});
afterEach(() => session.cleanup());

async function results(executor: StreamingToolExecutor): Promise<Extract<ExecutorUpdate, { type: 'result' }>[]> {
  const out: Extract<ExecutorUpdate, { type: 'result' }>[] = [];
  for await (const update of executor.getRemainingResults()) if (update.type === 'result') out.push(update);
  return out;
}

it('leaves nothing listening on the turn once its tools are done, and aborts nothing to get there', async () => {
  let seen: AbortSignal | undefined;
  const read = makeTestTool('Read', {
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async (_input, context) => {
      seen = context.abortController.signal;
      return { data: 'ok' };
    },
  });
  const ctx = makeContext([read], session.dir);
  const turn = ctx.abortController.signal;
  const before = getEventListeners(turn, 'abort').length;
  const ex = new StreamingToolExecutor(ctx.options.tools, allowAll, ctx);
  ex.addTool(toolUse('Read', { value: 'a' }), assistantMessage);
  ex.addTool(toolUse('Read', { value: 'b' }), assistantMessage);
  const out = await results(ex);
  expect(out.map((r) => r.outcome.isError)).toEqual([false, false]);
  expect(getEventListeners(turn, 'abort').length).toBe(before);
  expect(seen?.aborted).toBe(false); // the tool's signal was not aborted on the way out
  // A later call on the same executor links afresh and still hears the turn.
  ex.addTool(toolUse('Read', { value: 'c' }), assistantMessage);
  expect((await results(ex)).map((r) => r.outcome.isError)).toEqual([false]);
  expect(getEventListeners(turn, 'abort').length).toBe(before);
});

it('a sibling error by a call with nothing running cancels the calls that start after it', async () => {
  const started: string[] = [];
  const schema = z.object({ command: z.string() });
  // A rule that cancels on any failure, so that a call refused before it ran (nothing running yet) cancels too.
  const tool = buildTool<typeof schema, string>({
    name: 'Bash',
    permissionTraits: { kind: 'shell', commandField: 'command' },
    inputSchema: schema,
    maxResultSizeChars: 1_000,
    prompt: async () => '',
    isReadOnly: () => false,
    call: async (input) => {
      started.push(input.command);
      return { data: 'ok' };
    },
  });
  const ctx = makeContext([tool], session.dir);
  const denyFirst: typeof allowAll = async (_tool, input) =>
    input.command === 'first' ? { behavior: 'deny', message: 'no', decisionReason: { layer: 'prompt', reason: 'headless' } } : { behavior: 'allow', updatedInput: input };
  const ex = new StreamingToolExecutor(ctx.options.tools, denyFirst, ctx, { cancelsSiblingsOnError: () => true });
  ex.addTool(toolUse('Bash', { command: 'first' }), assistantMessage);
  ex.addTool(toolUse('Bash', { command: 'second' }), assistantMessage);
  const out = await results(ex);
  expect(out[0]!.outcome.stage).toBe('permission');
  expect(textOf(out[1]!.outcome.result.content)).toContain('Bash(first) was denied');
  expect(started).toEqual([]);
  expect(ctx.abortController.signal.aborted).toBe(false);
});
