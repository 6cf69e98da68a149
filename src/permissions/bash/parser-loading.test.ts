/**
 * The bash parser loads on first need. Before it has loaded, nothing is allowed on a guess: every analysis is
 * "cannot analyse" (not cached), and the engine loads the parser itself before it judges a shell tool's call.
 * (Each test file runs in a fresh module graph, so here the parser starts unloaded.)
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { analyzeBashCommand } from './analyze.js';
import { isBashParserLoaded } from './parser.js';
import { isReadOnlyCommand } from './read-only.js';

const Shell = buildTool({
  name: 'RemoteShell',
  permissionTraits: { kind: 'shell', commandField: 'command' },
  inputSchema: z.object({ command: z.string() }),
  maxResultSizeChars: 1000,
  prompt: async () => 'shell',
  call: async () => ({ data: '' }),
  isReadOnly: (input) => isReadOnlyCommand(input.command),
});

describe('before and after the parser loads', () => {
  it('fails closed before, and the engine loads it before judging a shell call', async () => {
    expect(isBashParserLoaded()).toBe(false);
    const early = analyzeBashCommand('ls -la');
    expect(early.ok).toBe(false);
    expect(early.ok ? '' : early.reason).toMatch(/not loaded/);
    expect(isReadOnlyCommand('ls -la')).toBe(false);

    const ctx = createPermissionContext({ cwd: os.tmpdir(), rules: parseRules(['RemoteShell(rm:*)'], 'deny', 'projectSettings') });
    // Deny rules read the parsed command: `echo ok; rm -rf x` is denied through its second part.
    expect((await resolvePermission(Shell, { command: 'echo ok; rm -rf x' }, ctx)).behavior).toBe('deny');
    expect(isBashParserLoaded()).toBe(true);
    // The early failure was not remembered: the same command now analyses, and is read-only.
    expect(analyzeBashCommand('ls -la').ok).toBe(true);
    expect(isReadOnlyCommand('ls -la')).toBe(true);
    expect((await resolvePermission(Shell, { command: 'ls -la' }, ctx)).behavior).toBe('allow');
  });
});
