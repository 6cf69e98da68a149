/**
 * `toolgate exec` killed by SIGKILL (no handler runs) while Bash runs a background task and a foreground tree with a
 * `setsid` child: the orphan watchdog ends every one of them. A normal exit ends the watchdog and nothing else; the
 * sandbox's own guarantee (bwrap `--die-with-parent` + PID namespace) is checked with the watchdog turned off.
 * Processes are found by their command line (a `sleep` duration no one else uses); every one is killed after each test.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../src/tools/bash/sandbox.js';
import { repoRoot } from './helpers/cli.js';
import { tempSession, type TempSession } from './helpers/execution.js';

const linux = process.platform === 'linux';
const sandbox = linux ? await detectSandbox() : { available: false as const, reason: 'not Linux' };
// Written reason for skipping: the sandbox case needs bubblewrap and socat (see src/tools/bash/sandbox.test.ts).
if (!sandbox.available) console.warn(`orphan-watchdog sandbox case skipped: ${sandbox.reason}`);

let session: TempSession;
let work: string;
const markers: string[] = [];
const children: ChildProcess[] = [];
beforeEach(() => {
  session = tempSession('toolgate-orphans-');
  work = path.join(session.dir, 'work');
  mkdirSync(work);
});
afterEach(() => {
  // A failing run must not leave its processes to the next test (or the machine).
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const marker of markers.splice(0)) for (const pid of pids(marker)) process.kill(pid, 'SIGKILL');
  session.cleanup();
});

function pids(pattern: string): number[] {
  const r = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).map(Number);
}

async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `sleep <marker>` (digits and one dot: a valid duration; `<marker>1`, `<marker>2` too). */
function newMarker(): string {
  const marker = `${Math.floor(Math.random() * 900_000) + 100_000}.${process.pid}`;
  markers.push(`^sleep ${marker}`);
  return marker;
}

/** Waits (in the command) until `$!` has left the command's process group: its leader's exit ends what is still in it. */
const untilDetached =
  'p=$!; while [ "$(ps -o pgid= -p $p | tr -d " ")" = "$(ps -o pgid= -p $$ | tr -d " ")" ]; do sleep 0.01; done';

function exec(blocks: unknown[], options: { sandboxed?: boolean; env?: NodeJS.ProcessEnv; settings?: Record<string, unknown> } = {}) {
  const settings = { permissions: { allow: ['Bash'] }, ...(options.sandboxed ? { sandbox: { enabled: true } } : {}), ...options.settings };
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'exec', '--json', '--cwd', work, '--session-dir', path.join(session.dir, 's'), '--settings', JSON.stringify(settings), '-'],
    { cwd: repoRoot, env: { ...process.env, HOME: session.dir, XDG_STATE_HOME: path.join(session.dir, 'state'), ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.resume();
  child.stdin.end(JSON.stringify(blocks));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout };
}

/** A background task and a foreground tree: `&`, a subshell, a pipeline, a `setsid` child (5 sleeps in all). */
function trees(marker: string) {
  return [
    { type: 'tool_use', id: 'toolu_bg', name: 'Bash', input: { command: `sleep ${marker}`, run_in_background: true } },
    { type: 'tool_use', id: 'toolu_fg', name: 'Bash', input: { command: `setsid sleep ${marker} & (sleep ${marker} &); sleep ${marker} | cat & sleep ${marker}` } },
  ];
}

const watchdogOf = (pid: number) => pids(`toolgate-watchdog ${pid} `);
const bridgesOf = (pid: number) =>
  spawnSync('pgrep', ['-P', String(pid), 'socat'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie waits for a reaper: it runs nothing any more.
  return !/\) Z /.test(spawnSync('cat', [`/proc/${pid}/stat`], { encoding: 'utf8' }).stdout);
}

describe.runIf(linux)('toolgate killed by SIGKILL', () => {
  it('the watchdog ends the background task, the foreground tree and its setsid child, then itself', async () => {
    const marker = newMarker();
    const run = exec(trees(marker));
    await until(() => pids(`^sleep ${marker}`).length >= 5, 'the sleeps to start');
    const watchdog = watchdogOf(run.child.pid!);
    expect(watchdog).toHaveLength(1);
    run.child.kill('SIGKILL');
    await run.exited;
    await until(() => pids(`^sleep ${marker}`).length === 0, 'every sleep to end');
    await until(() => watchdogOf(run.child.pid!).length === 0, 'the watchdog to end');
  }, 120_000);

  it('without the watchdog, the same trees are left running (what it is for)', async () => {
    const marker = newMarker();
    const run = exec(trees(marker), { env: { TOOLGATE_ORPHAN_WATCHDOG: '0' } });
    await until(() => pids(`^sleep ${marker}`).length >= 5, 'the sleeps to start');
    expect(watchdogOf(run.child.pid!)).toEqual([]);
    run.child.kill('SIGKILL');
    await run.exited;
    // Nothing would end them: they are still all there once exec is gone (afterEach kills them).
    expect(pids(`^sleep ${marker}`).length).toBe(5);
  }, 120_000);

  it('a hook command running at that moment is ended too (its process group)', async () => {
    const marker = newMarker();
    const hook = { type: 'command', command: `sleep ${marker} & sleep ${marker}`, timeout: 600 };
    const run = exec([{ type: 'tool_use', id: 'toolu_hooked', name: 'Bash', input: { command: 'echo after the hook' } }], {
      settings: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook] }] } },
    });
    await until(() => pids(`^sleep ${marker}`).length === 2, 'the hook to run');
    run.child.kill('SIGKILL');
    await run.exited;
    await until(() => pids(`^sleep ${marker}`).length === 0, 'the hook’s sleeps to end');
  }, 120_000);

  it.runIf(sandbox.available)('under the sandbox, bwrap (--die-with-parent, PID namespace) ends the tree without the watchdog', async () => {
    const marker = newMarker();
    const run = exec(trees(marker), { sandboxed: true, env: { TOOLGATE_ORPHAN_WATCHDOG: '0' } });
    await until(() => pids(`^sleep ${marker}`).length >= 5, 'the sandboxed sleeps to start');
    // The runtime's host-side bridges are toolgate's children, not the sandbox's: with the watchdog off, nothing ends
    // them (the next test shows the watchdog does), so this test does.
    const bridges = bridgesOf(run.child.pid!);
    try {
      run.child.kill('SIGKILL');
      await run.exited;
      await until(() => pids(`^sleep ${marker}`).length === 0, 'every sandboxed sleep to end');
    } finally {
      for (const pid of bridges) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 120_000);
});

describe.runIf(linux && sandbox.available)('toolgate killed by SIGKILL, sandboxed', () => {
  it('the watchdog ends the sandbox runtime’s host-side bridges (socat, children of toolgate)', async () => {
    const marker = newMarker();
    const run = exec(trees(marker), { sandboxed: true });
    await until(() => pids(`^sleep ${marker}`).length >= 5, 'the sandboxed sleeps to start');
    const bridges = bridgesOf(run.child.pid!);
    expect(bridges.length).toBeGreaterThan(0);
    run.child.kill('SIGKILL');
    await run.exited;
    try {
      await until(() => bridges.every((pid) => !alive(pid)), 'the bridges to end');
      await until(() => pids(`^sleep ${marker}`).length === 0, 'every sandboxed sleep to end');
    } finally {
      for (const pid of bridges) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 120_000);
});

describe.runIf(linux)('toolgate exiting normally', () => {
  it('the watchdog exits, an unrelated process stays, a detached daemon ends with the session', async () => {
    const marker = newMarker();
    const bystander = spawn('sleep', [`${marker}2`], { stdio: 'ignore' });
    children.push(bystander);
    const go = path.join(work, 'go');
    const run = exec([
      // A finished command that left a daemon: it runs on until the session ends.
      { type: 'tool_use', id: 'toolu_daemon', name: 'Bash', input: { command: `setsid sleep ${marker}1 >/dev/null 2>&1 & ${untilDetached}` } },
      { type: 'tool_use', id: 'toolu_wait', name: 'Bash', input: { command: 'while [ ! -e go ]; do sleep 0.05; done; echo went' } },
    ]);
    await until(() => pids(`^sleep ${marker}1`).length === 1 && watchdogOf(run.child.pid!).length === 1, 'the daemon and the watchdog');
    writeFileSync(go, '');
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('went');
    await until(() => watchdogOf(run.child.pid!).length === 0, 'the watchdog to end');
    await until(() => pids(`^sleep ${marker}1`).length === 0, 'the daemon to end');
    expect(bystander.exitCode).toBe(null);
    expect(pids(`^sleep ${marker}2`)).toEqual([bystander.pid]);
    expect(existsSync(go)).toBe(true);
  }, 120_000);
});
