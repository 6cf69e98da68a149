/** The executor decides by traits too: a failing call of any tool declaring `kind: 'shell'` cancels its siblings. */
import { expect, it } from 'vitest';
import { defaultCancelsSiblingsOnError } from '../src/execution/streaming-tool-executor.js';
import type { ToolUseOutcome } from '../src/execution/outcome.js';
import { makeTestTool } from './helpers/tools.js';

it('cancels siblings after a failing shell call of a custom tool, not after other tools', () => {
  const failed = { stage: 'call' } as ToolUseOutcome;
  const Shell = makeTestTool('mcp__box__exec', { permissionTraits: { kind: 'shell', commandField: 'cmd' } } as never);
  expect(defaultCancelsSiblingsOnError(Shell, { cmd: 'make' }, failed)).toBe(true);
  expect(defaultCancelsSiblingsOnError(makeTestTool('Deploy'), {}, failed)).toBe(false);
  expect(defaultCancelsSiblingsOnError(Shell, { cmd: 'make' }, { stage: 'validation' } as ToolUseOutcome)).toBe(false);
});
