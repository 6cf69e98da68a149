import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hooksFor, makeHookFixture, type HookFixture } from './test-helpers/hook-fixture.js';

let fx: HookFixture;
const signal = () => new AbortController().signal;

beforeEach(async () => {
  fx = await makeHookFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe('PostToolUse', () => {
  it('sends tool_response and reads decision:"block" with its reason and additionalContext', async () => {
    const s = await fx.script(
      'post.sh',
      `cat > "${fx.dir}/stdin.json"; echo '{"decision":"block","reason":"tests failed after edit","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"run pnpm test"}}'`,
    );
    const runner = fx.runner(hooksFor('PostToolUse', 'Edit', { command: s }));
    const e = { ...fx.event({ toolName: 'Edit', toolInput: { file_path: '/x.ts' } }), toolResponse: { filePath: '/x.ts', ok: true }, durationMs: 12 };
    const out = await runner.postToolUse(e, signal());
    expect(out.block).toEqual({ reason: 'tests failed after edit' });
    expect(out.additionalContext).toEqual(['run pnpm test']);
    const stdin = JSON.parse(await fx.read('stdin.json'));
    expect(stdin).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_response: { filePath: '/x.ts', ok: true }, duration_ms: 12 });
  });

  it('exit 2 blocks with stderr; exit 1 does not', async () => {
    const two = await fx.script('two.sh', `echo 'lint errors: 3' >&2; exit 2`);
    const one = await fx.script('one.sh', `echo 'oops' >&2; exit 1`);
    const e = { ...fx.event(), toolResponse: { stdout: 'hi' } };
    expect((await fx.runner(hooksFor('PostToolUse', 'Bash', { command: two })).postToolUse(e, signal())).block).toEqual({ reason: 'lint errors: 3' });
    const r1 = await fx.runner(hooksFor('PostToolUse', 'Bash', { command: one })).postToolUse(e, signal());
    expect(r1.block).toBeUndefined();
    expect(r1.nonBlockingErrors[0]).toContain('exit code 1 does not block');
  });

  it('updatedToolOutput replaces the output; the last hook in order wins; legacy updatedMCPToolOutput only for MCP', async () => {
    const a = await fx.script('a.sh', `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"[redacted-a]"}}}'`);
    const b = await fx.script('b.sh', `sleep 0.05; echo '{"hookSpecificOutput":{"updatedToolOutput":{"stdout":"[redacted-b]"}}}'`);
    const e = { ...fx.event(), toolResponse: { stdout: 'secret=1' } };
    const out = await fx.runner(hooksFor('PostToolUse', 'Bash', { command: b }, { command: a })).postToolUse(e, signal());
    expect(out.updatedToolOutput).toEqual({ stdout: '[redacted-a]' });

    const mcp = await fx.script('mcp.sh', `echo '{"hookSpecificOutput":{"updatedMCPToolOutput":[{"type":"text","text":"short"}]}}'`);
    const runner = fx.runner(hooksFor('PostToolUse', 'mcp__memory__.*|Bash', { command: mcp }));
    const onMcp = await runner.postToolUse({ ...fx.event({ toolName: 'mcp__memory__get' }), toolResponse: [] }, signal());
    expect(onMcp.updatedToolOutput).toEqual([{ type: 'text', text: 'short' }]);
    const onBash = await runner.postToolUse(e, signal());
    expect(onBash.updatedToolOutput).toBeUndefined();
    expect(onBash.nonBlockingErrors[0]).toContain('updatedMCPToolOutput applies to MCP tools only');
  });

  it('a hookSpecificOutput for another event is ignored and reported', async () => {
    const s = await fx.script('wrong.sh', `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedToolOutput":"x"}}'`);
    const out = await fx.runner(hooksFor('PostToolUse', 'Bash', { command: s })).postToolUse({ ...fx.event(), toolResponse: 1 }, signal());
    expect(out.updatedToolOutput).toBeUndefined();
    expect(out.nonBlockingErrors[0]).toContain('this is a PostToolUse hook');
  });
});

describe('PostToolUseFailure', () => {
  it('sends error (middle-truncated past 10,000 chars) and is_interrupt; reads additionalContext', async () => {
    const s = await fx.script('fail.sh', `cat > "${fx.dir}/stdin.json"; echo '{"hookSpecificOutput":{"additionalContext":"try --force"}}'`);
    const error = `Exit code 1\n${'e'.repeat(30_000)}`;
    const out = await fx
      .runner(hooksFor('PostToolUseFailure', 'Bash', { command: s }))
      .postToolUseFailure({ ...fx.event(), error, isInterrupt: false }, signal());
    expect(out.additionalContext).toEqual(['try --force']);
    const stdin = JSON.parse(await fx.read('stdin.json'));
    expect(stdin.hook_event_name).toBe('PostToolUseFailure');
    expect(stdin.is_interrupt).toBe(false);
    expect(stdin.error.length).toBeLessThanOrEqual(10_000);
    expect(stdin.error.startsWith('Exit code 1\n')).toBe(true);
    expect(stdin.error).toContain('characters truncated');
  });
});

describe('PermissionRequest', () => {
  it('reads decision allow with updatedInput and updatedPermissions; deny beats allow', async () => {
    const allow = await fx.script(
      'allow.sh',
      `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"npm test -- --ci"},"updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}'`,
    );
    const deny = await fx.script('deny.sh', `echo '{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"not on main","interrupt":true}}}'`);
    const e = fx.event({ toolInput: { command: 'npm test' } });
    const r1 = await fx.runner(hooksFor('PermissionRequest', 'Bash', { command: allow })).permissionRequest(e, signal());
    expect(r1.decision).toEqual({ behavior: 'allow', updatedInput: { command: 'npm test -- --ci' } });
    expect(r1.updatedPermissions).toEqual([{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]);
    const r2 = await fx.runner(hooksFor('PermissionRequest', 'Bash', { command: allow }, { command: deny })).permissionRequest(e, signal());
    expect(r2.decision).toEqual({ behavior: 'deny', message: 'not on main', interrupt: true });
    expect(r2.updatedPermissions).toBeUndefined();
  });

  it('exit 2 is not honoured (reported); failClosed still denies', async () => {
    const two = await fx.script('two.sh', `echo nope >&2; exit 2`);
    const r1 = await fx.runner(hooksFor('PermissionRequest', 'Bash', { command: two })).permissionRequest(fx.event(), signal());
    expect(r1.decision).toBeUndefined();
    expect(r1.nonBlockingErrors[0]).toContain('exit code 2 does not block PermissionRequest hooks');
    const r2 = await fx.runner(hooksFor('PermissionRequest', 'Bash', { command: two, failClosed: true })).permissionRequest(fx.event(), signal());
    expect(r2.decision?.behavior).toBe('deny');
  });
});

describe('PermissionDenied', () => {
  it('sends the reason and reads retry:true', async () => {
    const s = await fx.script(
      'retry.sh',
      `cat > "${fx.dir}/stdin.json"; echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true,"additionalContext":"ask the user"}}'`,
    );
    const out = await fx.runner(hooksFor('PermissionDenied', '', { command: s })).permissionDenied({ ...fx.event(), reason: 'classifier said no' }, signal());
    expect(out).toEqual({ retry: true, additionalContext: ['ask the user'], nonBlockingErrors: [] });
    expect(JSON.parse(await fx.read('stdin.json')).reason).toBe('classifier said no');
  });
});
