/**
 * The class: nothing a hook command starts outlives the hook — not a `cmd &` child left in its group, not a `setsid`
 * child, not a `nohup` double fork, not a daemon that double-forks into a new session — whether the hook exits on its
 * own, runs past its timeout or is aborted (Linux: the environment marker of process-marker.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hooksFor, makeHookFixture, type HookFixture } from './test-helpers/hook-fixture.js';

let fx: HookFixture;
let tag: string;
beforeEach(async () => {
  fx = await makeHookFixture();
  // A sleep duration nobody else uses: `sleep 94<n>.<i>` names this test's processes.
  tag = `94${process.pid % 1000}${Math.floor(Math.random() * 1e6)}`;
});
afterEach(async () => {
  for (const pid of sleepers()) process.kill(pid, 'SIGKILL');
  await fx.cleanup();
});

/** Live (non-zombie) `sleep <tag>.*` processes. */
function sleepers(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmdline[0] !== 'sleep' || !cmdline[1]?.startsWith(`${tag}.`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function waitFor(predicate: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every way to leave a process behind, each a `sleep <tag>.<i>`; the hook goes on once all four run. */
const leaveBehind = () =>
  `sleep ${tag}.1 & ` +
  `setsid sleep ${tag}.2 >/dev/null 2>&1 & ` +
  `(nohup sleep ${tag}.3 >/dev/null 2>&1 &); ` +
  `(setsid sh -c 'sleep ${tag}.4 & exit 0' >/dev/null 2>&1 &); ` +
  `while [ "$(pgrep -fc '^sleep ${tag}[.]')" -lt 4 ]; do sleep 0.02; done`;

describe.runIf(process.platform === 'linux')("a hook's children end with the hook", () => {
  it('when the hook exits on its own', async () => {
    const s = await fx.script('exits.sh', `${leaveBehind()}; echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`);
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s })).preToolUse(fx.event(), new AbortController().signal);
    expect(out.decision?.behavior).toBe('ask');
    await waitFor(() => sleepers().length === 0, 'every child of the hook to end');
  }, 40_000);

  it('when the hook runs past its timeout', async () => {
    const s = await fx.script('stalls.sh', `${leaveBehind()}; sleep ${tag}.5`);
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s, timeout: 3 })).preToolUse(fx.event(), new AbortController().signal);
    expect(out.nonBlockingErrors[0]).toMatch(/timed out/);
    await waitFor(() => sleepers().length === 0, 'every child of the hook to end');
  }, 40_000);

  it('when the call is aborted', async () => {
    const s = await fx.script('aborted.sh', `${leaveBehind()}; sleep ${tag}.5`);
    const ac = new AbortController();
    const pending = fx.runner(hooksFor('PreToolUse', 'Bash', { command: s })).preToolUse(fx.event(), ac.signal);
    await waitFor(() => sleepers().length === 5, 'the hook and its four children');
    ac.abort();
    expect((await pending).nonBlockingErrors[0]).toContain('cancelled');
    await waitFor(() => sleepers().length === 0, 'every child of the hook to end');
  }, 40_000);
});
