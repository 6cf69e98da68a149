import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
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

describe('PreToolUse through real shell hooks', () => {
  it('sends Claude Code’s stdin JSON, runs in cwd with CLAUDE_PROJECT_DIR and TOOLGATE_PROJECT_DIR', async () => {
    const s = await fx.script(
      'record.sh',
      `cat > "${fx.dir}/stdin.json"; printf '%s\\n%s\\n%s\\n' "$CLAUDE_PROJECT_DIR" "$TOOLGATE_PROJECT_DIR" "$PWD" > "${fx.dir}/env.txt"`,
    );
    const e = fx.event({ toolInput: { command: 'echo hi', timeout: 5 }, permissionMode: 'acceptEdits' });
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s })).preToolUse(e, signal());
    expect(out).toEqual({ additionalContext: [], systemMessages: [], nonBlockingErrors: [] });
    expect(JSON.parse(await fx.read('stdin.json'))).toEqual({
      session_id: 'sess-1',
      transcript_path: e.transcriptPath,
      cwd: e.cwd,
      permission_mode: 'acceptEdits',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo hi', timeout: 5 },
      tool_use_id: 'toolu_01',
    });
    expect((await fx.read('env.txt')).split('\n').slice(0, 3)).toEqual([e.projectDir, e.projectDir, e.cwd]);
  });

  it('reads a JSON deny with its reason and names the hook that decided', async () => {
    const s = await fx.script(
      'deny.sh',
      `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm here"}}'`,
    );
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s })).preToolUse(fx.event(), signal());
    expect(out.decision).toMatchObject({ behavior: 'deny', reason: 'no rm here' });
    expect(out.decision?.source).toContain('deny.sh');
    expect(out.decision?.source).toContain('hooks.PreToolUse[0].hooks[0]');
  });

  it('exit 2 denies with stderr as the reason, even when stdout JSON says allow', async () => {
    const s = await fx.script(
      'block.sh',
      `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo 'Use rg instead of grep' >&2; exit 2`,
    );
    const out = await fx.runner(hooksFor('PreToolUse', '', { command: s })).preToolUse(fx.event(), signal());
    expect(out.decision).toMatchObject({ behavior: 'deny', reason: 'Use rg instead of grep' });
  });

  it('exit 1 does not block: a non-blocking error with a warning about exit 2', async () => {
    const s = await fx.script('one.sh', `echo 'policy says no' >&2; exit 1`);
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s })).preToolUse(fx.event(), signal());
    expect(out.decision).toBeUndefined();
    expect(out.nonBlockingErrors).toHaveLength(1);
    expect(out.nonBlockingErrors[0]).toContain('Failed with non-blocking status code 1: policy says no');
    expect(out.nonBlockingErrors[0]).toContain('exit code 1 does not block');
  });

  it('any other exit with schema-valid JSON on stdout: the JSON decides', async () => {
    const s = await fx.script('three.sh', `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'; exit 3`);
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s })).preToolUse(fx.event(), signal());
    expect(out.decision?.behavior).toBe('ask');
    expect(out.nonBlockingErrors).toEqual([]);
  });

  it('a missing script (exit 127) is reported, not silently ignored', async () => {
    const out = await fx
      .runner(hooksFor('PreToolUse', 'Bash', { command: `${fx.dir}/nope.sh` }))
      .preToolUse(fx.event(), signal());
    expect(out.decision).toBeUndefined();
    expect(out.nonBlockingErrors[0]).toMatch(/status code 127: .*nope\.sh/);
  });

  it('precedence across hooks is deny > defer > ask > allow', async () => {
    const say = (d: string) => fx.script(`${d}.sh`, `echo '{"hookSpecificOutput":{"permissionDecision":"${d}","permissionDecisionReason":"${d} says"}}'`);
    const [allow, ask, defer, deny] = await Promise.all(['allow', 'ask', 'defer', 'deny'].map(say));
    const run = (cmds: string[]) =>
      fx.runner(hooksFor('PreToolUse', 'Bash', ...cmds.map((command) => ({ command })))).preToolUse(fx.event(), signal());
    expect((await run([allow!, ask!]))?.decision?.behavior).toBe('ask');
    expect((await run([allow!, defer!, ask!]))?.decision?.behavior).toBe('defer');
    const all = await run([allow!, deny!, defer!, ask!]);
    expect(all.decision).toMatchObject({ behavior: 'deny', reason: 'deny says' });
    expect(all.decision?.source).toContain('deny.sh');
    expect((await run([allow!]))?.decision).toMatchObject({ behavior: 'allow', reason: 'allow says' });
  });

  it('legacy top-level decision approve/block map to allow/deny', async () => {
    const approve = await fx.script('approve.sh', `echo '{"decision":"approve","reason":"fine"}'`);
    const block = await fx.script('block.sh', `echo '{"decision":"block","reason":"legacy no"}'`);
    const r1 = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: approve })).preToolUse(fx.event(), signal());
    expect(r1.decision).toMatchObject({ behavior: 'allow', reason: 'fine' });
    const r2 = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: block })).preToolUse(fx.event(), signal());
    expect(r2.decision).toMatchObject({ behavior: 'deny', reason: 'legacy no' });
  });

  it('updatedInput: one hook replaces the input; with several, later hooks win key by key', async () => {
    const a = await fx.script('a.sh', `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -1","timeout":1000}}}'`);
    const b = await fx.script('b.sh', `echo '{"hookSpecificOutput":{"updatedInput":{"command":"ls -1 --color=never"}}}'`);
    const one = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: a })).preToolUse(fx.event(), signal());
    expect(one.updatedInput).toEqual({ command: 'ls -1', timeout: 1000 });
    const two = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: a }, { command: b })).preToolUse(fx.event(), signal());
    expect(two.updatedInput).toEqual({ command: 'ls -1 --color=never', timeout: 1000 });
    expect(two.decision?.behavior).toBe('allow');
  });

  it('collects additionalContext, systemMessage and continue:false with stopReason', async () => {
    const s = await fx.script(
      'ctx.sh',
      `echo '{"continue":false,"stopReason":"budget spent","systemMessage":"heads up","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"repo uses pnpm"}}'`,
    );
    const t = await fx.script('ctx2.sh', `echo '{"hookSpecificOutput":{"additionalContext":"second note"}}'`);
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s }, { command: t })).preToolUse(fx.event(), signal());
    expect(out.additionalContext).toEqual(['repo uses pnpm', 'second note']);
    expect(out.systemMessages).toEqual(['heads up']);
    expect(out.preventContinuation).toEqual({ stopReason: 'budget spent' });
    expect(out.decision).toBeUndefined();
  });

  it('plain stdout is ignored; broken or mistyped JSON is reported and changes nothing', async () => {
    const plain = await fx.script('plain.sh', `echo 'just logging'`);
    const broken = await fx.script('broken.sh', `echo '{"hookSpecificOutput": {'`);
    const typo = await fx.script('typo.sh', `echo '{"hookSpecificOutput":{"permissionDecision":"Deny"}}'`);
    const out = await fx
      .runner(hooksFor('PreToolUse', 'Bash', { command: plain }, { command: broken }, { command: typo }))
      .preToolUse(fx.event(), signal());
    expect(out.decision).toBeUndefined();
    expect(out.nonBlockingErrors).toHaveLength(2);
    expect(out.nonBlockingErrors[0]).toMatch(/broken\.sh.*not valid JSON/);
    expect(out.nonBlockingErrors[1]).toMatch(/typo\.sh.*permissionDecision must be "allow", "deny", "ask" or "defer" \(got "Deny"\)/);
  });

  it('the `if` filter runs a hook only for matching calls; every subcommand is checked', async () => {
    const s = await fx.script('count.sh', `echo x >> "${fx.dir}/count"; exit 2`);
    const runner = fx.runner(hooksFor('PreToolUse', 'Bash', { command: s, if: 'Bash(git push *)' }));
    expect((await runner.preToolUse(fx.event({ toolInput: { command: 'ls' } }), signal())).decision).toBeUndefined();
    const hit = await runner.preToolUse(fx.event({ toolInput: { command: 'cd repo && git push origin main' } }), signal());
    expect(hit.decision?.behavior).toBe('deny');
    // The decision says which rule let the hook run, and on what.
    expect(hit.decision?.source).toContain('[if Bash(git push *) matched: git push origin main]');
    expect((await fx.read('count')).trim().split('\n')).toHaveLength(1);
  });

  it('`if` by name only: without the tool object a content rule cannot be ruled out (the hook runs), another tool\'s rule can', async () => {
    const s = await fx.script('deny.sh', 'exit 2');
    const runner = fx.runner(hooksFor('PreToolUse', undefined, { command: s, if: 'Bash(git push *)' }));
    const bare = fx.event({ toolName: 'Bash', toolInput: { command: 'ls' }, tool: undefined });
    const ran = await runner.preToolUse(bare, signal());
    expect(ran.decision?.behavior).toBe('deny');
    expect(ran.decision?.source).toContain('[if Bash(git push *) could not be ruled out]');
    expect((await runner.preToolUse(fx.event({ toolName: 'Edit', toolInput: { file_path: '/x' } }), signal())).decision).toBeUndefined();
  });

  it('exec form (args): no shell, args verbatim, ${CLAUDE_PROJECT_DIR} expanded', async () => {
    const s = await fx.script('args.sh', `printf '%s|' "$@" > "${fx.dir}/args.txt"`);
    const hooks = hooksFor('PreToolUse', 'Bash', { command: s, args: ['a b', '$HOME', '${CLAUDE_PROJECT_DIR}/x'] });
    const e = fx.event();
    await fx.runner(hooks).preToolUse(e, signal());
    expect(await fx.read('args.txt')).toBe(`a b|$HOME|${e.projectDir}/x|`);
  });

  it('a missing cwd is named in the error', async () => {
    const s = await fx.script('ok.sh', 'exit 0');
    const out = await fx
      .runner(hooksFor('PreToolUse', 'Bash', { command: s }))
      .preToolUse(fx.event({ cwd: join(fx.dir, 'gone') }), signal());
    expect(out.nonBlockingErrors[0]).toContain(`working directory does not exist: ${join(fx.dir, 'gone')}`);
  });

  it('output over 10,000 characters is persisted under <sessionDir>/hook-outputs with a preview', async () => {
    const s = await fx.script('big.sh', `head -c 25000 /dev/zero | tr '\\0' 'a' >&2; exit 2`);
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s })).preToolUse(fx.event(), signal());
    const reason = out.decision?.reason ?? '';
    expect(out.decision?.behavior).toBe('deny');
    expect(reason.length).toBeLessThan(3_000);
    expect(reason).toContain('<persisted-output>');
    expect(reason).toContain('25,000 characters');
    const files = await readdir(join(fx.sessionDir, 'hook-outputs'));
    expect(files).toHaveLength(1);
    expect(reason).toContain(join(fx.sessionDir, 'hook-outputs', files[0]!));
    expect(await readFile(join(fx.sessionDir, 'hook-outputs', files[0]!), 'utf8')).toBe('a'.repeat(25_000));
  });
});
