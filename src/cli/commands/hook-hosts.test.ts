/**
 * The three hosts' documented JSON, in and out: Claude Code's hooks reference (PreToolUse, PermissionRequest), Gemini
 * CLI's hooks reference (BeforeTool, its tool names and parameters as 0.61.0 declares them), Codex's hooks docs and
 * output schema (0.171.0: PreToolUse deny only; allow and deny at PermissionRequest).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failClosedOutput, formatHookAnswer, parseHookRequest, patchFiles, type HookAnswer } from './hook-hosts.js';

const cwd = '/work/proj';

describe('Claude Code', () => {
  it('reads a PreToolUse request as documented (session, mode, tool_use_id, the input unchanged)', () => {
    const r = parseHookRequest(
      {
        session_id: 's1',
        transcript_path: '/t.jsonl',
        cwd,
        permission_mode: 'acceptEdits',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'npm test', description: 'run tests' },
        tool_use_id: 'toolu_1',
      },
      undefined,
      '/elsewhere',
    );
    expect(r).toMatchObject({ host: 'claude', event: 'PreToolUse', mode: 'acceptEdits', sessionId: 's1', toolUseId: 'toolu_1', cwd });
    expect(r.calls).toEqual([{ tool: 'Bash', input: { command: 'npm test', description: 'run tests' }, cwd }]);
  });

  it('answers PreToolUse with hookSpecificOutput.permissionDecision and its reason; nothing decided is {}', () => {
    for (const kind of ['allow', 'deny', 'ask'] as const) {
      expect(formatHookAnswer('claude', 'PreToolUse', { kind, reason: 'why' })).toEqual({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: kind, permissionDecisionReason: 'why' },
      });
    }
    expect(formatHookAnswer('claude', 'PreToolUse', { kind: 'none', reason: 'x' })).toEqual({});
  });

  it('answers PermissionRequest with decision.behavior (deny carries the message); an ask shows the host prompt', () => {
    expect(formatHookAnswer('claude', 'PermissionRequest', { kind: 'allow', reason: 'r' })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    expect(formatHookAnswer('claude', 'PermissionRequest', { kind: 'deny', reason: 'r' })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'r' } } });
    expect(formatHookAnswer('claude', 'PermissionRequest', { kind: 'ask', reason: 'r' })).toEqual({});
  });

  it('rejects what is not a tool event, and a relative cwd', () => {
    expect(() => parseHookRequest({ hook_event_name: 'Stop' }, undefined, cwd)).toThrow(/not a tool event/);
    expect(() => parseHookRequest({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: [] }, undefined, cwd)).toThrow(/tool_input/);
    expect(() => parseHookRequest({ hook_event_name: 'PreToolUse', tool_name: 'Bash', cwd: 'rel' }, undefined, cwd)).toThrow(/absolute/);
    expect(() => parseHookRequest([1], undefined, cwd)).toThrow(/not a JSON object/);
  });

  it('keeps a long reason within the host cap', () => {
    const out = formatHookAnswer('claude', 'PreToolUse', { kind: 'deny', reason: 'x'.repeat(50_000) }) as { hookSpecificOutput: { permissionDecisionReason: string } };
    expect(out.hookSpecificOutput.permissionDecisionReason.length).toBeLessThanOrEqual(2000);
  });
});

describe('Gemini CLI', () => {
  const req = (tool_name: string, tool_input: Record<string, unknown>) =>
    parseHookRequest({ session_id: 'g', transcript_path: '/t', cwd, hook_event_name: 'BeforeTool', timestamp: '2026-01-01T00:00:00Z', tool_name, tool_input }, undefined, '/x');

  it('is recognised by its event, and its tools map onto Claude Code tools with absolute paths', () => {
    expect(req('run_shell_command', { command: 'ls | head', description: 'list', dir_path: 'src' })).toMatchObject({
      host: 'gemini',
      event: 'PreToolUse',
      calls: [{ tool: 'Bash', input: { command: 'ls | head' }, cwd: path.join(cwd, 'src') }],
    });
    expect(req('read_file', { file_path: 'a/.env' }).calls).toEqual([{ tool: 'Read', input: { file_path: path.join(cwd, 'a/.env') }, cwd }]);
    expect(req('write_file', { file_path: '/tmp/x', content: 'y' }).calls[0]).toMatchObject({ tool: 'Write', input: { file_path: '/tmp/x', content: 'y' } });
    expect(req('replace', { file_path: 'b.ts', old_string: 'a', new_string: 'b' }).calls[0]).toMatchObject({ tool: 'Edit', input: { file_path: path.join(cwd, 'b.ts') } });
    expect(req('grep_search', { pattern: 'foo', dir_path: '/etc' }).calls[0]).toMatchObject({ tool: 'Grep', input: { pattern: 'foo', path: '/etc' } });
    expect(req('glob', { pattern: '**/*.ts' }).calls[0]).toMatchObject({ tool: 'Glob', input: { pattern: '**/*.ts' } });
    expect(req('list_directory', { dir_path: '/root' }).calls[0]).toMatchObject({ tool: 'Glob', input: { path: '/root' } });
    expect(req('web_fetch', { prompt: 'summarise https://a.example/x and http://b.example' }).calls.map((c) => c.input.url)).toEqual(['https://a.example/x', 'http://b.example']);
    expect(req('google_web_search', { query: 'q' }).calls[0]).toMatchObject({ tool: 'WebSearch' });
    expect(req('mcp__srv__do', { a: 1 }).calls[0]).toMatchObject({ tool: 'mcp__srv__do', input: { a: 1 } });
  });

  it('a tool without a counterpart: nothing to judge, unless its input names a command or path (then opaque)', () => {
    expect(req('write_todos', { todos: [] })).toMatchObject({ calls: [] });
    expect(req('write_todos', { todos: [] }).opaque).toBeUndefined();
    expect(req('some_new_tool', { command: 'curl x | sh' }).opaque).toMatch(/command/);
    expect(req('web_fetch', { prompt: 'no url here' }).opaque).toMatch(/URL/);
  });

  it('answers with the top-level decision: deny with reason, ask forcing the confirmation; an allow decides nothing', () => {
    expect(formatHookAnswer('gemini', 'PreToolUse', { kind: 'deny', reason: 'r' })).toEqual({ decision: 'deny', reason: 'r' });
    expect(formatHookAnswer('gemini', 'PreToolUse', { kind: 'ask', reason: 'r' })).toEqual({ decision: 'ask', reason: 'r', systemMessage: 'r' });
    expect(formatHookAnswer('gemini', 'PreToolUse', { kind: 'allow', reason: 'r' })).toEqual({});
  });
});

describe('Codex', () => {
  const req = (hook_event_name: string, tool_name: string, tool_input: Record<string, unknown>) =>
    parseHookRequest({ session_id: 'c', turn_id: 't', transcript_path: '/t', cwd, hook_event_name, model: 'gpt-5', permission_mode: 'default', tool_name, tool_use_id: 'call-1', tool_input }, 'codex', '/x');

  it('reads Bash (a string, or an argv array quoted back into one command) and apply_patch (the files it touches)', () => {
    expect(req('PreToolUse', 'Bash', { command: 'git status' }).calls).toEqual([{ tool: 'Bash', input: { command: 'git status' }, cwd }]);
    expect(req('PreToolUse', 'Bash', { command: ['bash', '-lc', "echo 'hi' > x"] }).calls[0]!.input.command).toBe(`bash -lc 'echo '\\''hi'\\'' > x'`);
    const patch = ['*** Begin Patch', '*** Add File: new.txt', '+hello', '*** Update File: src/a.ts', '@@', '-a', '+b', '*** Delete File: old.txt', '*** End Patch'].join('\n');
    const calls = req('PreToolUse', 'apply_patch', { command: patch }).calls;
    expect(calls.map((c) => [c.tool, c.input.file_path])).toEqual([
      ['Write', path.join(cwd, 'new.txt')],
      ['Edit', path.join(cwd, 'src/a.ts')],
      ['Edit', path.join(cwd, 'old.txt')],
    ]);
    expect(req('PreToolUse', 'apply_patch', { command: 'garbage' }).opaque).toMatch(/no file/);
  });

  it('PreToolUse: a deny with its reason; an ask becomes a deny that says so (Codex runs a call whose hook asked); an allow decides nothing', () => {
    expect(formatHookAnswer('codex', 'PreToolUse', { kind: 'deny', reason: 'r' })).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'r' } });
    const ask = formatHookAnswer('codex', 'PreToolUse', { kind: 'ask', reason: 'r' }) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(ask.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(ask.hookSpecificOutput.permissionDecisionReason).toMatch(/^r .*cannot ask/);
    expect(formatHookAnswer('codex', 'PreToolUse', { kind: 'allow', reason: 'r' })).toEqual({});
  });

  it('PermissionRequest: allow and deny as its schema has them', () => {
    expect(formatHookAnswer('codex', 'PermissionRequest', { kind: 'allow', reason: 'r' })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    expect(formatHookAnswer('codex', 'PermissionRequest', { kind: 'deny', reason: 'r' })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'r' } } });
  });
});

describe('fail closed', () => {
  it('an unreadable request is answered ask (Codex: deny), never {}', () => {
    const want: Record<string, HookAnswer['kind']> = { claude: 'ask', gemini: 'ask' };
    expect(failClosedOutput('claude', undefined, 'x')).toMatchObject({ hookSpecificOutput: { permissionDecision: want.claude } });
    expect(failClosedOutput('gemini', undefined, 'x')).toMatchObject({ decision: 'ask' });
    expect(failClosedOutput('codex', undefined, 'x')).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
  });

  it('patchFiles reads only the patch headers', () => {
    expect(patchFiles('*** Update File: a\n+*** Add File: not-a-header\n*** Move to: b')).toEqual([
      { file: 'a', added: false },
      { file: 'b', added: true },
    ]);
  });

  it('patchFiles trims lines as Codex does, and a header it cannot read makes the patch unreadable (ask)', () => {
    expect(patchFiles('*** Begin Patch\n  *** Add File: .git/hooks/x\n+y\n*** End of File\n*** End Patch')).toEqual([{ file: '.git/hooks/x', added: true }]);
    for (const header of ['***Add File: x', '*** add file: x', '*** Add  File: x', '*** Move to:', ' ***   Update File:x']) {
      expect([header, patchFiles(`*** Begin Patch\n*** Update File: a\n${header}\n*** End Patch`)]).toEqual([header, undefined]);
    }
    const r = parseHookRequest({ hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: { command: '*** Begin Patch\n***Add File: x\n*** End Patch' }, cwd: '/p' }, 'codex', '/p');
    expect(r.opaque).toMatch(/cannot read/);
  });

  it('an unknown tool with a command at any depth of its input is opaque (ask); one without is left to the host', () => {
    const opaque = (input: Record<string, unknown>) => parseHookRequest({ hook_event_name: 'BeforeTool', tool_name: 'custom_tool', tool_input: input, cwd: '/p' }, 'gemini', '/p').opaque;
    expect(opaque({ steps: [{ run: { cmd: 'rm -rf ~' } }] })).toMatch(/steps\[0\]\.run\.cmd/);
    expect(opaque({ title: 'x', tags: ['a'] })).toBeUndefined();
  });
});
