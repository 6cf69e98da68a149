/**
 * The bash parser loads on first need, so the first shell calls of a process reach the executor before it is there.
 * They must not be run one by one just because "is it read-only?" could not be answered yet: the executor waits for
 * the parser (keeping call order) and then decides as usual. This file starts with the parser unloaded.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as z from 'zod';
import { allowAll, assistantMessage, makeContext, tempSession, type TempSession } from '../../test/helpers/execution.js';
import { isBashParserLoaded } from '../permissions/bash/parser.js';
import { isReadOnlyCommand } from '../permissions/bash/read-only.js';
import { buildTool } from '../tool/build-tool.js';
import type { ToolUseBlock } from '../tool/tool.js';
import { StreamingToolExecutor } from './streaming-tool-executor.js';

let session: TempSession;
beforeAll(() => {
  session = tempSession('toolgate-parser-wait-');
});
afterAll(() => session.cleanup());

it('read-only shell calls that arrive before the parser still run together, results in call order', async () => {
  let running = 0;
  let most = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const Shell = buildTool({
    name: 'Shell',
    permissionTraits: { kind: 'shell', commandField: 'command' },
    inputSchema: z.object({ command: z.string() }),
    maxResultSizeChars: 1000,
    prompt: async () => 'shell',
    isReadOnly: (input) => isReadOnlyCommand(input.command),
    isConcurrencySafe: (input) => isReadOnlyCommand(input.command),
    call: async ({ command }) => {
      most = Math.max(most, ++running);
      // All three must be running at once for any to finish: run one by one, this would wait for ever (test timeout).
      if (most === 3) release();
      await gate;
      running--;
      return { data: command };
    },
  });
  expect(isBashParserLoaded()).toBe(false);
  const executor = new StreamingToolExecutor([Shell], allowAll, makeContext([Shell], session.dir));
  // Not plain commands (a quote, a pipe, a glob): these need the wasm parser, which is not loaded yet.
  const commands = ["ls 'a dir'", 'cat a.txt | head', 'grep -r x *.txt'];
  commands.forEach((command, i) => executor.addTool({ type: 'tool_use', id: `t${i}`, name: 'Shell', input: { command } } as ToolUseBlock, assistantMessage));
  const results: string[] = [];
  for await (const update of executor.getRemainingResults()) if (update.type === 'result') results.push(update.toolUseId);
  expect(results).toEqual(['t0', 't1', 't2']);
  expect(most).toBe(3);
  expect(isBashParserLoaded()).toBe(true);
});
