/** The executor decides by traits too: a failing call of any tool declaring `kind: 'shell'` cancels its siblings. */
import { expect, it } from 'vitest';
import { defaultCancelsSiblingsOnError } from '../src/execution/streaming-tool-executor.js';
import type { ToolUseOutcome } from '../src/execution/outcome.js';
import { permissionTraitsOf } from '../src/permissions/tool-traits.js';
import { getAllBaseTools } from '../src/registry/base-tools.js';
import { makeTestTool } from './helpers/tools.js';

it('every built-in declares its traits itself: the engine gives nothing by name', async () => {
  const declared = Object.fromEntries((await getAllBaseTools()).map((t) => [t.name, t.permissionTraits]));
  expect(declared.Bash).toEqual({ kind: 'shell', commandField: 'command' });
  for (const name of ['Read']) expect(declared[name]).toEqual({ kind: 'read', pathField: 'file_path' });
  for (const name of ['Edit', 'Write']) expect(declared[name]).toEqual({ kind: 'write', pathField: 'file_path' });
  expect(declared.NotebookEdit).toEqual({ kind: 'write', pathField: 'notebook_path' });
  expect(declared.Glob).toMatchObject({ kind: 'search', pathField: 'path' });
  expect(declared.Grep).toMatchObject({ kind: 'search', pathField: 'path' });
  expect(declared.WebFetch).toMatchObject({ kind: 'fetch', urlField: 'url' });
  // A copy under another name is treated exactly alike: what counts is the declaration.
  const Renamed = { ...(await getAllBaseTools()).find((t) => t.name === 'Bash')!, name: 'Shell' };
  expect(permissionTraitsOf(Renamed).kind).toBe('shell');
});

it('cancels siblings after a failing shell call of a custom tool, not after other tools', () => {
  const failed = { stage: 'call' } as ToolUseOutcome;
  const Shell = makeTestTool('mcp__box__exec', { permissionTraits: { kind: 'shell', commandField: 'cmd' } } as never);
  expect(defaultCancelsSiblingsOnError(Shell, { cmd: 'make' }, failed)).toBe(true);
  expect(defaultCancelsSiblingsOnError(makeTestTool('Deploy'), {}, failed)).toBe(false);
  expect(defaultCancelsSiblingsOnError(Shell, { cmd: 'make' }, { stage: 'validation' } as ToolUseOutcome)).toBe(false);
});
