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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitDead(pid: number, ms = 2_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !isAlive(pid);
}

/** A hook that starts a long child (recording its pid), then waits on it: only a process-group kill ends both. */
async function stallingHook(name: string): Promise<string> {
  return fx.script(name, `sleep 30 & echo $! > "${fx.dir}/${name}.pid"; wait`);
}

describe('hook lifecycle', () => {
  it('runs all matching hooks in parallel: each sees the other running', async () => {
    // Each hook marks that it started, then waits (10 s at most) for the other's mark. Run one after the other, the
    // first would never see the second: order, not elapsed time, is what the test checks.
    const meet = (me: string, other: string) =>
      `touch "${fx.dir}/${me}.started"; for i in $(seq 200); do [ -e "${fx.dir}/${other}.started" ] && { echo met > "${fx.dir}/${me}.met"; exit 0; }; sleep 0.05; done`;
    const a = await fx.script('a.sh', meet('a', 'b'));
    const b = await fx.script('b.sh', meet('b', 'a'));
    const runner = fx.runner(hooksFor('PreToolUse', 'Bash', { command: a }, { command: b }));
    const out = await runner.preToolUse(fx.event(), signal());
    expect(out.nonBlockingErrors).toEqual([]);
    expect((await fx.read('a.met')).trim()).toBe('met');
    expect((await fx.read('b.met')).trim()).toBe('met');
  });

  it('runs an identical command once, even when several settings files define it', async () => {
    const counter = await fx.script('count.sh', `echo x >> "${fx.dir}/count"`);
    const other = await fx.script('other.sh', `echo y >> "${fx.dir}/count"`);
    const hooks = hooksFor('PreToolUse', 'Bash', { command: counter }, { command: counter }, { command: other });
    const runner = fx.runner(hooks, {
      more: [{ source: 'userSettings', hooks: hooksFor('PreToolUse', 'Bash|Edit', { command: counter, timeout: 5 }) }],
    });
    await runner.preToolUse(fx.event(), signal());
    expect((await fx.read('count')).trim().split('\n').sort()).toEqual(['x', 'y']);
  });

  it('a hook past its timeout is killed with its whole process group and reported; no decision', async () => {
    const s = await stallingHook('stall.sh');
    const runner = fx.runner(hooksFor('PreToolUse', 'Bash', { command: s, timeout: 0.3 }));
    const t0 = performance.now();
    const out = await runner.preToolUse(fx.event(), signal());
    // The hook's child sleeps 30 s: returning well before that proves the kill, on any machine load.
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect(out.decision).toBeUndefined();
    expect(out.nonBlockingErrors).toHaveLength(1);
    expect(out.nonBlockingErrors[0]).toMatch(/stall\.sh.*timed out after 300 ms; killed/);
    const child = Number(await fx.read('stall.sh.pid'));
    expect(await waitDead(child)).toBe(true);
  });

  it('failClosed turns exit 1, a timeout or a missing script into deny; exit 0 stays undecided', async () => {
    const one = await fx.script('one.sh', `echo 'cannot reach policy server' >&2; exit 1`);
    const slow = await fx.script('slow.sh', 'sleep 5');
    const ok = await fx.script('ok.sh', 'exit 0');
    const run = (h: Record<string, unknown>) => fx.runner(hooksFor('PreToolUse', 'Bash', { failClosed: true, ...h })).preToolUse(fx.event(), signal());

    const r1 = await run({ command: one });
    expect(r1.decision?.behavior).toBe('deny');
    expect(r1.decision?.reason).toMatch(/fail-closed hook .*one\.sh.*status code 1: cannot reach policy server/);
    const r2 = await run({ command: slow, timeout: 0.2 });
    expect(r2.decision?.behavior).toBe('deny');
    expect(r2.decision?.reason).toContain('timed out');
    const r3 = await run({ command: `${fx.dir}/missing.sh` });
    expect(r3.decision?.behavior).toBe('deny');
    expect((await run({ command: ok })).decision).toBeUndefined();
    // Without failClosed the same exit 1 lets the call through.
    const open = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: one })).preToolUse(fx.event(), signal());
    expect(open.decision).toBeUndefined();
  });

  it('failClosed on any copy of a deduplicated command applies to the single run', async () => {
    const one = await fx.script('one.sh', 'exit 1');
    const runner = fx.runner(hooksFor('PreToolUse', 'Bash', { command: one }), {
      more: [{ source: 'policySettings', hooks: hooksFor('PreToolUse', '*', { command: one, failClosed: true }) }],
    });
    expect((await runner.preToolUse(fx.event(), signal())).decision?.behavior).toBe('deny');
  });

  it('aborting the signal kills running hooks and resolves at once', async () => {
    const s = await stallingHook('stall.sh');
    const runner = fx.runner(hooksFor('PreToolUse', 'Bash', { command: s }));
    const ac = new AbortController();
    const pending = runner.preToolUse(fx.event(), ac.signal);
    // Abort once the hook has really started (its child's pid file exists).
    const end = Date.now() + 3_000;
    while (Date.now() < end) {
      if (await fx.read('stall.sh.pid').then((t) => t.trim() !== '', () => false)) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const t0 = performance.now();
    ac.abort();
    const out = await pending;
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect(out.nonBlockingErrors[0]).toContain('cancelled');
    expect(await waitDead(Number(await fx.read('stall.sh.pid')))).toBe(true);
  });

  it('does not wait for a background grandchild that keeps stdout open, and ends it with the hook', async () => {
    const s = await fx.script('bg.sh', `(sleep 30 & echo $! > "${fx.dir}/bg.pid"); echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`);
    const t0 = performance.now();
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s })).preToolUse(fx.event(), signal());
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect(out.decision?.behavior).toBe('ask');
    expect(await waitDead(Number(await fx.read('bg.pid')))).toBe(true);
  });

  it('an async hook runs in the background and cannot decide', async () => {
    // The hook finishes only after the test lets it (the `go` file, created after preToolUse returned): had
    // preToolUse waited for it, it would have seen it time out instead, and `async.txt` would say so.
    const s = await fx.script(
      'async.sh',
      `for i in $(seq 200); do [ -e "${fx.dir}/go" ] && { echo done > "${fx.dir}/async.txt"; exit 2; }; sleep 0.05; done; echo waited > "${fx.dir}/async.txt"`,
    );
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s, async: true })).preToolUse(fx.event(), signal());
    expect(out.decision).toBeUndefined();
    expect(await fx.read('async.txt').catch(() => 'absent')).toBe('absent');
    await fx.script('go', 'true');
    const end = Date.now() + 15_000;
    let text = '';
    while (Date.now() < end && text === '') {
      text = await fx.read('async.txt').catch(() => '');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(text.trim()).toBe('done');
  });

  it('hasHooks is a cheap pre-check per event and tool', () => {
    const runner = fx.runner(hooksFor('PreToolUse', 'Edit|Write', { command: 'true' }));
    expect(runner.hasHooks('PreToolUse', 'Edit')).toBe(true);
    expect(runner.hasHooks('PreToolUse', 'Bash')).toBe(false);
    expect(runner.hasHooks('PostToolUse', 'Edit')).toBe(false);
    // Handler types toolgate does not run do not count.
    const prompt = fx.runner({ PreToolUse: [{ hooks: [{ type: 'prompt', prompt: 'judge $ARGUMENTS' }] }] });
    expect(prompt.hasHooks('PreToolUse', 'Bash')).toBe(false);
  });
});
