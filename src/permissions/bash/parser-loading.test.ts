/**
 * The bash parser loads on first need. Before it has loaded, nothing is allowed on a guess: every analysis that needs
 * it is "cannot analyse" (not cached), and the engine loads the parser itself before it judges a shell tool's call
 * that needs it. A plain command (simple-command.ts) needs no parser at all.
 * (Each test file runs in a fresh module graph, so here the parser starts unloaded.)
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { analyzeBashCommand, needsBashParser } from './analyze.js';
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
  it('plain commands are judged without it; others fail closed before, and the engine loads it for them', async () => {
    expect(isBashParserLoaded()).toBe(false);
    // Plain words only: parsed in JS, judged at once, and the engine has no reason to load the parser.
    expect(analyzeBashCommand('ls -la').ok).toBe(true);
    expect(isReadOnlyCommand('ls -la')).toBe(true);
    expect(needsBashParser('ls -la')).toBe(false);
    const plainCtx = createPermissionContext({ cwd: os.tmpdir(), rules: parseRules(['RemoteShell(rm:*)'], 'deny', 'projectSettings') });
    expect((await resolvePermission(Shell, { command: 'rm -rf x' }, plainCtx)).behavior).toBe('deny');
    expect((await resolvePermission(Shell, { command: 'ls -la' }, plainCtx)).behavior).toBe('allow');
    expect(isBashParserLoaded()).toBe(false);
    // Code a plain command runs counts too: `bash -c ls` is plain all through, `bash -c 'ls'` is not.
    expect(needsBashParser('bash -c ls')).toBe(false);
    // Plain commands joined by `|`, `&&`, `||`, `;` too.
    expect(needsBashParser('ls -la | head -5 && git status; echo done')).toBe(false);

    const early = analyzeBashCommand('ls -la "src" | head');
    expect(early.ok).toBe(false);
    expect(early.ok ? '' : early.reason).toMatch(/not loaded/);
    expect(isReadOnlyCommand('ls -la "src" | head')).toBe(false);
    expect(needsBashParser('ls -la "src" | head')).toBe(true);
    expect(needsBashParser("bash -c 'ls'")).toBe(true);

    const ctx = createPermissionContext({ cwd: os.tmpdir(), rules: parseRules(['RemoteShell(rm:*)'], 'deny', 'projectSettings') });
    // Deny rules read the parsed command: `echo 'ok'; rm -rf x` is denied through its second part.
    expect((await resolvePermission(Shell, { command: "echo 'ok'; rm -rf x" }, ctx)).behavior).toBe('deny');
    expect(isBashParserLoaded()).toBe(true);
    // The early failure was not remembered: the same command now analyses, and is read-only.
    expect(analyzeBashCommand('ls -la "src" | head').ok).toBe(true);
    expect(isReadOnlyCommand('ls -la "src" | head')).toBe(true);
    expect((await resolvePermission(Shell, { command: 'ls -la "src" | head' }, ctx)).behavior).toBe('allow');
    expect(needsBashParser("bash -c 'ls'")).toBe(false);
  });
});
