/**
 * `toolgate exec` killed by SIGTERM (`kill`, `timeout`) or SIGHUP (a closed terminal) while Bash runs trees of
 * `sleep`: every tool_use still gets its one result, no process is left behind, and the exit code is 128 + n.
 * Processes are found by a marker in their command line (a `sleep` duration no one else uses).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/cli.js';
import { tempSession, type TempSession } from './helpers/execution.js';

let session: TempSession;
let work: string;
beforeEach(() => {
  session = tempSession('toolgate-exec-signals-');
  work = path.join(session.dir, 'work');
  mkdirSync(work);
});
const markers: string[] = [];
afterEach(() => {
  // A failing run must not leave its sleeps to the next test (or the machine).
  for (const marker of markers.splice(0)) for (const pid of pids(`sleep ${marker}`)) process.kill(pid, 'SIGKILL');
  session.cleanup();
});

function pids(marker: string): number[] {
  const r = spawnSync('pgrep', ['-f', marker], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map(Number);
}

async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Killed {
  code: number | null;
  /** Set when the process died of a signal instead of exiting (what to look at when `code` is null). */
  diedOf: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  marker: string;
}

async function killedWith(signal: 'SIGTERM' | 'SIGHUP' | 'SIGINT'): Promise<Killed> {
  const marker = `${Math.floor(Math.random() * 900_000) + 100_000}.${process.pid}`;
  markers.push(marker);
  const blocks = [
    { type: 'tool_use', id: 'toolu_bg', name: 'Bash', input: { command: `sleep ${marker}`, run_in_background: true } },
    // A tree: a subshell with its own sleep, a pipeline, and the foreground sleep.
    { type: 'tool_use', id: 'toolu_tree', name: 'Bash', input: { command: `(sleep ${marker} &) ; sleep ${marker} | cat & sleep ${marker}` } },
    { type: 'tool_use', id: 'toolu_after', name: 'Read', input: { file_path: path.join(work, 'none.txt') } },
  ];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'exec', '--json', '--cwd', work, '--session-dir', path.join(session.dir, 's'), '--settings', '{"permissions":{"allow":["Bash"]}}', '-'],
    { cwd: repoRoot, env: { ...process.env, HOME: session.dir, XDG_STATE_HOME: path.join(session.dir, 'state') }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(JSON.stringify(blocks));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, sig) => resolve([code, sig])));
  // The foreground tree (3 sleeps) and the background task (1) are all running.
  await until(() => pids(`sleep ${marker}`).length >= 4, 'the sleep trees to start');
  child.kill(signal);
  const [code, diedOf] = await exited;
  return { code, diedOf, stdout, stderr, marker };
}

describe('toolgate exec under termination signals', () => {
  for (const [signal, expected] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal}: every call answered, no process left, exit ${expected}`, async () => {
      const { code, diedOf, stdout, stderr, marker } = await killedWith(signal);
      expect({ code, diedOf }, `stderr: ${stderr}`).toEqual({ code: expected, diedOf: null });
      const message = JSON.parse(stdout) as { content: { type: string; tool_use_id: string; is_error?: boolean }[] };
      const results = message.content.filter((b) => b.type === 'tool_result');
      expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_bg', 'toolu_tree', 'toolu_after']);
      expect(results[1]!.is_error).toBe(true);
      expect(results[2]!.is_error).toBe(true);
      // Process groups are ended before exec exits; give the kernel a moment to reap.
      await until(() => pids(`sleep ${marker}`).length === 0, 'no sleep left', 10_000).catch(() => undefined);
      expect(pids(`sleep ${marker}`)).toEqual([]);
    }, 180_000);
  }
});
