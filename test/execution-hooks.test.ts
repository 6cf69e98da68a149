/**
 * The pipeline with the real hook runner and real shell scripts: exit codes 0/2/1, JSON decisions, updatedInput,
 * additionalContext, timeouts, failClosed, parallel hooks, PostToolUse output rewrites, PostToolUseFailure,
 * PermissionRequest and PermissionDenied.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runToolUse } from '../src/execution/pipeline.js';
import { createHookRunner } from '../src/hooks/hook-runner.js';
import { parseHooksSettings } from '../src/hooks/parse-hooks-settings.js';
import { buildTool } from '../src/tool/build-tool.js';
import { createGrantWriter } from '../src/settings/grants.js';
import { BashTool } from '../src/tools/bash/index.js';
import type { AnyTool, CanUseToolFn } from '../src/tool/tool.js';
import {
  allowAll,
  assistantMessage,
  makeContext,
  scriptedCanUseTool,
  tempSession,
  textOf,
  toolUse,
  type TempSession,
} from './helpers/execution.js';

let session: TempSession;
beforeEach(() => {
  session = tempSession('toolgate-hooks-');
});
afterEach(() => session.cleanup());

const schema = z.strictObject({ file_path: z.string(), limit: z.number().optional() });

function recordingTool(calls: Record<string, unknown>[], behaviour: 'ok' | 'throw' = 'ok'): AnyTool {
  return buildTool<typeof schema, string>({
    name: 'FileTool',
    inputSchema: schema,
    maxResultSizeChars: 10_000,
    prompt: async () => '',
    call: async (input) => {
      calls.push(input);
      if (behaviour === 'throw') throw new Error('disk on fire');
      return { data: `read ${input.file_path}` };
    },
  });
}

/** Writes an executable script in the session dir and returns a hook handler running it. */
function script(name: string, body: string, extra: Record<string, unknown> = {}) {
  const file = path.join(session.dir, name);
  writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(file, 0o755);
  return { type: 'command', command: file, ...extra };
}

function contextWithHooks(tool: AnyTool, hooks: Record<string, unknown>) {
  const parsed = parseHooksSettings([{ source: 'projectSettings', file: path.join(session.dir, 'settings.json'), hooks }]);
  expect(parsed.errors).toEqual([]);
  const runner = createHookRunner({ config: parsed.config, sessionDir: session.dir });
  return makeContext([tool], session.dir, { services: { hooks: runner } });
}

async function call(tool: AnyTool, hooks: Record<string, unknown>, input: unknown = { file_path: '/a' }, canUseTool: CanUseToolFn = allowAll) {
  const context = contextWithHooks(tool, hooks);
  return runToolUse(toolUse('FileTool', input, 'toolu_hook'), assistantMessage, canUseTool, context);
}

describe('PreToolUse through shell scripts', () => {
  it('exit 2 blocks with stderr as the reason, and PermissionDenied hooks fire', async () => {
    const calls: Record<string, unknown>[] = [];
    const deniedLog = path.join(session.dir, 'denied.json');
    const outcome = await call(recordingTool(calls), {
      PreToolUse: [{ matcher: 'FileTool', hooks: [script('block.sh', 'echo "no reading of /a" >&2; exit 2')] }],
      PermissionDenied: [{ matcher: '*', hooks: [script('denied.sh', `cat > ${deniedLog}; echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}'`)] }],
    });
    expect(calls).toEqual([]);
    expect(outcome.isError).toBe(true);
    expect(outcome.decision?.decisionReason?.layer).toBe('hook');
    expect(textOf(outcome.result.content)).toContain('no reading of /a');
    expect(textOf(outcome.result.content)).toContain('may be retried');
    const denied = JSON.parse(readFileSync(deniedLog, 'utf8'));
    expect(denied).toMatchObject({ hook_event_name: 'PermissionDenied', tool_name: 'FileTool', tool_use_id: 'toolu_hook' });
    expect(denied.reason).toContain('no reading of /a');
  });

  it('receives the documented stdin fields and environment', async () => {
    const calls: Record<string, unknown>[] = [];
    const stdin = path.join(session.dir, 'stdin.json');
    const env = path.join(session.dir, 'env.txt');
    await call(recordingTool(calls), {
      PreToolUse: [{ hooks: [script('log.sh', `cat > ${stdin}; echo "$CLAUDE_PROJECT_DIR|$TOOLGATE_PROJECT_DIR" > ${env}`)] }],
    }, { file_path: '/a', limit: 2 });
    const input = JSON.parse(readFileSync(stdin, 'utf8'));
    expect(input).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'FileTool',
      tool_input: { file_path: '/a', limit: 2 },
      tool_use_id: 'toolu_hook',
      cwd: session.dir,
      permission_mode: 'default',
    });
    expect(typeof input.session_id).toBe('string');
    expect(readFileSync(env, 'utf8').trim()).toBe(`${session.dir}|${session.dir}`);
    expect(calls).toHaveLength(1);
  });

  it('a JSON deny decision blocks with its reason', async () => {
    const calls: Record<string, unknown>[] = [];
    const outcome = await call(recordingTool(calls), {
      PreToolUse: [{ hooks: [script('deny.sh', `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}'`)] }],
    });
    expect(calls).toEqual([]);
    expect(textOf(outcome.result.content)).toContain('policy says no');
  });

  it('exit 1 is a non-blocking error: the call runs and the error is reported to a person', async () => {
    const calls: Record<string, unknown>[] = [];
    const outcome = await call(recordingTool(calls), { PreToolUse: [{ hooks: [script('oops.sh', 'echo "linter crashed" >&2; exit 1')] }] });
    expect(calls).toHaveLength(1);
    expect(outcome.isError).toBe(false);
    expect(outcome.userNotices.join('\n')).toContain('linter crashed');
  });

  it('updatedInput is validated and call() runs with it; the permission engine sees it too', async () => {
    const calls: Record<string, unknown>[] = [];
    const gate = scriptedCanUseTool((_t, input) => ({ behavior: 'allow', updatedInput: input }));
    const rewrite = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":"/rewritten","limit":9}}}'`;
    const outcome = await call(recordingTool(calls), { PreToolUse: [{ hooks: [script('rw.sh', rewrite)] }] }, { file_path: '/a' }, gate);
    expect(outcome.isError).toBe(false);
    expect(calls).toEqual([{ file_path: '/rewritten', limit: 9 }]);
    expect(gate.calls[0]!.input).toEqual({ file_path: '/rewritten', limit: 9 });

    const bad = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":5}}}'`;
    const rejected = await call(recordingTool(calls), { PreToolUse: [{ hooks: [script('bad.sh', bad)] }] });
    expect(rejected.isError).toBe(true);
    expect(textOf(rejected.result.content)).toContain('The parameter `file_path` type is expected as `string` but provided as `number`');
    expect(calls).toHaveLength(1);
  });

  it('allow and ask go to the permission engine as forceDecision; additionalContext becomes a system reminder', async () => {
    const calls: Record<string, unknown>[] = [];
    const gate = scriptedCanUseTool((_t, input) => ({ behavior: 'allow', updatedInput: input }));
    const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"trusted","additionalContext":"remember the style guide"}}'`;
    const outcome = await call(recordingTool(calls), { PreToolUse: [{ hooks: [script('allow.sh', allow)] }] }, { file_path: '/a' }, gate);
    expect(gate.calls[0]!.forceDecision).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'hook' } });
    expect(JSON.stringify(outcome.newMessages)).toContain('remember the style guide');

    const ask = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"double-check"}}'`;
    const askGate = scriptedCanUseTool(() => ({ behavior: 'deny', message: 'headless: denied', decisionReason: { layer: 'prompt', reason: 'x' } }));
    const asked = await call(recordingTool(calls), { PreToolUse: [{ hooks: [script('ask.sh', ask)] }] }, { file_path: '/a' }, askGate);
    expect(askGate.calls[0]!.forceDecision).toMatchObject({ behavior: 'ask', message: 'double-check' });
    expect(asked.isError).toBe(true);
  });

  it('defer and continue:false stop the call without running it', async () => {
    const calls: Record<string, unknown>[] = [];
    const defer = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}'`;
    const deferred = await call(recordingTool(calls), { PreToolUse: [{ hooks: [script('defer.sh', defer)] }] });
    expect(deferred.deferred).toBe(true);
    const stop = await call(recordingTool(calls), { PreToolUse: [{ hooks: [script('stop.sh', `echo '{"continue":false,"stopReason":"budget exhausted"}'`)] }] });
    expect(stop.preventContinuation).toEqual({ stopReason: 'budget exhausted' });
    expect(calls).toEqual([]);
  });

  it('a timed-out hook decides nothing, unless it is failClosed', async () => {
    const calls: Record<string, unknown>[] = [];
    const slow = (name: string, extra = {}) => script(name, 'sleep 5', { timeout: 0.3, ...extra });
    const open = await call(recordingTool(calls), { PreToolUse: [{ hooks: [slow('slow.sh')] }] });
    expect(open.isError).toBe(false);
    expect(open.userNotices.join('\n')).toMatch(/time/i);
    const closed = await call(recordingTool(calls), { PreToolUse: [{ hooks: [slow('slow-closed.sh', { failClosed: true })] }] });
    expect(closed.isError).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('matching hooks run in parallel (each waits to see the other start)', async () => {
    const calls: Record<string, unknown>[] = [];
    const a = path.join(session.dir, 'a.started');
    const b = path.join(session.dir, 'b.started');
    const waitFor = (mine: string, other: string) =>
      `touch ${mine}; for i in $(seq 100); do [ -f ${other} ] && exit 0; sleep 0.05; done; echo "never saw ${other}" >&2; exit 1`;
    const outcome = await call(recordingTool(calls), { PreToolUse: [{ hooks: [script('a.sh', waitFor(a, b)), script('b.sh', waitFor(b, a))] }] });
    expect(outcome.userNotices).toEqual([]);
    expect(existsSync(a) && existsSync(b)).toBe(true);
  });

  it("a policy hook's `if` sees every spelling the engine sees: `env rm` through the real Bash tool is blocked, `ls` runs", async () => {
    const victim = path.join(session.dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const count = path.join(session.dir, 'policy-count');
    const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [script('policy.sh', `echo x >> ${count}; echo "no rm" >&2; exit 2`, { if: 'Bash(rm *)' })] }] };
    const context = contextWithHooks(BashTool, hooks);
    const run = (command: string) => runToolUse(toolUse('Bash', { command }, 'toolu_rm'), assistantMessage, allowAll, context);
    for (const command of ['env rm -f victim.txt', 'timeout 5 rm -f victim.txt', "bash -c 'rm -f victim.txt'", 'ls && /bin/rm -f victim.txt']) {
      const outcome = await run(command);
      expect(outcome.isError, command).toBe(true);
      expect(outcome.decision?.decisionReason?.rule, command).toContain('[if Bash(rm *) matched');
      expect(existsSync(victim), command).toBe(true);
    }
    expect(readFileSync(count, 'utf8').trim().split('\n')).toHaveLength(4);
    expect((await run('ls')).isError).toBe(false);
    expect(readFileSync(count, 'utf8').trim().split('\n')).toHaveLength(4);
  });
});

describe('PostToolUse, PostToolUseFailure and PermissionRequest through shell scripts', () => {
  it('updatedToolOutput replaces what the model sees; a wrong type is rejected visibly', async () => {
    const calls: Record<string, unknown>[] = [];
    const redact = `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"[redacted]"}}'`;
    const outcome = await call(recordingTool(calls), { PostToolUse: [{ hooks: [script('redact.sh', redact)] }] });
    expect(outcome.result.content).toBe('[redacted]');

    const wrong = `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"not":"a string"}}}'`;
    const rejected = await call(recordingTool(calls), { PostToolUse: [{ hooks: [script('wrong.sh', wrong)] }] });
    expect(rejected.result.content).toBe('read /a');
    expect(JSON.stringify(rejected.newMessages)).toContain("updatedToolOutput was rejected");
    expect(rejected.userNotices.join('\n')).toContain('updatedToolOutput rejected');
  });

  it('receives tool_response; decision block puts the reason next to the result, which the model still sees', async () => {
    const calls: Record<string, unknown>[] = [];
    const stdin = path.join(session.dir, 'post.json');
    const block = `cat > ${stdin}; echo '{"decision":"block","reason":"output mentions a secret"}'`;
    const outcome = await call(recordingTool(calls), { PostToolUse: [{ hooks: [script('post.sh', block)] }] });
    expect(JSON.parse(readFileSync(stdin, 'utf8'))).toMatchObject({ hook_event_name: 'PostToolUse', tool_response: 'read /a' });
    expect(outcome.result.content).toBe('read /a');
    expect(JSON.stringify(outcome.newMessages)).toContain('output mentions a secret');
  });

  it('PostToolUseFailure fires with the error of a thrown call()', async () => {
    const calls: Record<string, unknown>[] = [];
    const stdin = path.join(session.dir, 'fail.json');
    const hook = `cat > ${stdin}; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"try a smaller file"}}'`;
    const outcome = await call(recordingTool(calls, 'throw'), { PostToolUseFailure: [{ hooks: [script('fail.sh', hook)] }] });
    expect(outcome.isError).toBe(true);
    expect(JSON.parse(readFileSync(stdin, 'utf8'))).toMatchObject({ hook_event_name: 'PostToolUseFailure', error: 'disk on fire' });
    expect(JSON.stringify(outcome.newMessages)).toContain('try a smaller file');
  });

  it('PermissionRequest hooks answer the prompt the engine would show', async () => {
    const calls: Record<string, unknown>[] = [];
    // An engine that asks through the prompt handler, as createCanUseTool does when a handler exists.
    const asking: CanUseToolFn = async (tool, input, context, _m, toolUseID) => {
      const handler = context.ui?.requestPermission;
      if (!handler) return { behavior: 'deny', message: 'headless', decisionReason: { layer: 'prompt', reason: 'no handler' } };
      return handler({ tool, input, toolUseID, ask: { behavior: 'ask', message: 'FileTool wants /a' }, signal: context.abortController.signal, risk: { level: 'writes-in-project', destructive: false, summary: 'changes files in the project' } });
    };
    const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`;
    const allowed = await call(recordingTool(calls), { PermissionRequest: [{ hooks: [script('pr.sh', allow)] }] }, { file_path: '/a' }, asking);
    expect(allowed.isError).toBe(false);
    const deny = `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on Fridays"}}}'`;
    const denied = await call(recordingTool(calls), { PermissionRequest: [{ hooks: [script('prd.sh', deny)] }] }, { file_path: '/a' }, asking);
    expect(textOf(denied.result.content)).toContain('not on Fridays');
    expect(calls).toHaveLength(1);
  });

  it('a PermissionRequest hook\'s updatedPermissions apply to the session at once and are written through the grant writer', async () => {
    const calls: Record<string, unknown>[] = [];
    const asking: CanUseToolFn = async (tool, input, context, _m, toolUseID) =>
      context.ui!.requestPermission!({ tool, input, toolUseID, ask: { behavior: 'ask', message: 'FileTool wants /a' }, signal: context.abortController.signal, risk: { level: 'writes-in-project', destructive: false, summary: 'changes files in the project' } });
    const updates = JSON.stringify([
      { type: 'addRules', rules: [{ toolName: 'FileTool' }], behavior: 'allow', destination: 'session' },
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make deploy' }], behavior: 'allow', destination: 'localSettings' },
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'x' }], behavior: 'allow', destination: 'the moon' },
    ]);
    const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":${updates}}}}'`;
    const tool = recordingTool(calls);
    const parsed = parseHooksSettings([{ source: 'projectSettings', file: path.join(session.dir, 'settings.json'), hooks: { PermissionRequest: [{ hooks: [script('pru.sh', allow)] }] } }]);
    const runner = createHookRunner({ config: parsed.config, sessionDir: session.dir });
    const project = path.join(session.dir, 'proj');
    const context = makeContext([tool], session.dir, { services: { hooks: runner, permissionUpdates: createGrantWriter({ projectDir: project, homeDir: session.dir }) } });
    const outcome = await runToolUse(toolUse('FileTool', { file_path: '/a' }, 'toolu_pru'), assistantMessage, asking, context);
    expect(outcome.isError).toBe(false);
    const rules = context.getAppState().toolPermissionContext.alwaysAllowRules.map((r) => [r.source, r.ruleValue.toolName, r.ruleValue.ruleContent]);
    expect(rules).toEqual([
      ['session', 'FileTool', undefined],
      ['localSettings', 'Bash', 'make deploy'],
    ]);
    const written = JSON.parse(readFileSync(path.join(project, '.claude', 'settings.local.json'), 'utf8'));
    expect(written).toEqual({ permissions: { allow: ['Bash(make deploy)'] } });
    expect(JSON.stringify(outcome)).toContain('updatedPermissions[2].destination');
  });
});
