/**
 * `toolgate exec --backend restate=URL` with 20 calls while worker processes are killed with SIGKILL mid-call. Whether
 * a call may run again after a crash is decided once, by the coordinator (which has the Bash parser loaded), and
 * travels with the call: a worker process that has not loaded the parser yet must not judge `sleep 6; cat f` a write,
 * journal a `begin` marker, and leave its retry on a warm process with a journal that does not match (the call then
 * never gets an answer). Which process runs a call is found through /proc (the `sleep` of its command and its
 * ancestors), never by timing.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestateServer } from '../src/distributed/restate-server.js';
import { repoRoot } from './helpers/cli.js';
import { poolProcessesRunning, startTestRestate, startWorkerPool, tempWorkspace, waitFor, type WorkerPool } from './helpers/restate.js';

interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly is_error?: boolean;
  readonly content: string | readonly { type: string; text?: string }[];
}

const text = (b: ToolResultBlock) => (typeof b.content === 'string' ? b.content : b.content.map((c) => c.text ?? '').join(''));

describe('toolgate exec on Restate, worker processes killed mid-call', () => {
  let server: RestateServer;
  let pool: WorkerPool;
  const ws = tempWorkspace();

  beforeAll(async () => {
    server = await startTestRestate();
    // Fresh processes: none of them has loaded the Bash parser when the first calls arrive.
    pool = await startWorkerPool(server, { processes: 2, workspace: ws.dir, markers: ws.markers, extraArgs: ['--pool', 'exec'] });
  }, 240_000);

  afterAll(async () => {
    await pool?.stop();
    await server?.stop();
    ws.cleanup();
  }, 60_000);

  it('answers every one of 20 calls once, in order: read-only calls cut off are run again, a write cut off is answered as interrupted', async () => {
    writeFileSync(path.join(ws.dir, 'r.txt'), 'read me\n');
    const bash = (id: string, command: string) => ({ type: 'tool_use', id: `toolu_${id}`, name: 'Bash', input: { command } });
    const reads = ['01', '02', '03', '04', '05', '06'];
    const blocks = [
      // Read-only, in parallel: the first process to be killed is running some of them.
      ...reads.map((n) => bash(`e${n}`, `sleep 6.${n}; cat r.txt`)),
      ...['07', '08', '09', '10', '11'].map((n) => bash(`e${n}`, 'cat r.txt')),
      ...['12', '13', '14', '15'].map((n) => ({ type: 'tool_use', id: `toolu_e${n}`, name: 'Read', input: { file_path: path.join(ws.dir, 'r.txt') } })),
      bash('e16', 'echo quick >> q.txt'),
      ...['17', '18', '19'].map((n) => ({ type: 'tool_use', id: `toolu_e${n}`, name: 'Glob', input: { pattern: '*.txt' } })),
      // A write, last (a write that fails cancels the calls issued after it): the process running it is killed
      // during its sleep.
      bash('e20', 'echo start >> w.txt; sleep 6.5; echo end >> w.txt'),
    ];
    expect(blocks).toHaveLength(20);

    let finished = false;
    const exec = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'exec', '--json', '--cwd', ws.dir, '--mode', 'bypassPermissions', '--backend', `restate=${server.ingressUrl}`],
        // Generous: the calls take ~15 s; without the fix a journal mismatch keeps exec waiting for minutes.
        { cwd: repoRoot, env: { ...process.env, TOOLGATE_RESTATE_ADMIN: server.adminUrl, TOOLGATE_RESTATE_POOL: 'exec' }, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
      child.stdin?.end(JSON.stringify(blocks));
    }).finally(() => (finished = true));

    // Kill 1: the process running read-only calls (the one running the most of them).
    const readSleeps = reads.map((n) => `sleep 6.${n}`);
    const firstVictim = await waitFor('a read-only call running on a worker process', () => {
      if (finished) return null;
      const running = readSleeps.flatMap((command) => poolProcessesRunning(pool.processPids(), command));
      if (running.length === 0) return undefined;
      const counts = new Map<number, number>();
      for (const pid of running) counts.set(pid, (counts.get(pid) ?? 0) + 1);
      return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    });
    const cutReads = firstVictim === null ? [] : reads.filter((n) => poolProcessesRunning([firstVictim], `sleep 6.${n}`).length > 0);
    if (firstVictim !== null) process.kill(firstVictim, 'SIGKILL');

    // Kill 2: the process running the write, while it sleeps (it has written "start", not "end"). It starts only once
    // every call before it has been answered (a write runs alone): if exec ends first, the assertions below say what
    // went wrong.
    const secondVictim = await waitFor('the write running on a worker process', () => (finished ? null : poolProcessesRunning(pool.processPids(), 'sleep 6.5')[0]), 200_000);
    if (secondVictim !== null) process.kill(secondVictim, 'SIGKILL');

    const out = await exec;
    expect(out.code, `exec did not finish (a call without an answer?): ${out.stderr}`).toBe(0);
    expect(secondVictim).toBeTypeOf('number');
    const message = JSON.parse(out.stdout) as { role: string; content: ToolResultBlock[] };
    expect(message.role).toBe('user');
    // Exactly one answer per call, in call order.
    expect(message.content.map((b) => b.tool_use_id)).toEqual(blocks.map((b) => b.id));
    const byId = new Map(message.content.map((b) => [b.tool_use_id.slice('toolu_'.length), b]));

    expect(cutReads.length).toBeGreaterThan(0);
    for (const n of reads) {
      const b = byId.get(`e${n}`)!;
      expect(b.is_error ?? false, `e${n}: ${text(b)}`).toBe(false);
      expect(text(b)).toContain('read me');
    }
    const write = byId.get('e20')!;
    expect(write.is_error).toBe(true);
    expect(text(write)).toMatch(/not safe to run twice.*may or may not have taken effect/s);
    // It ran once and was cut off: it was not run again.
    expect(readFileSync(path.join(ws.dir, 'w.txt'), 'utf8')).toBe('start\n');
    for (const [id, b] of byId) if (id !== 'e20') expect(b.is_error ?? false, `${id}: ${text(b)}`).toBe(false);
    expect(readFileSync(path.join(ws.dir, 'q.txt'), 'utf8')).toBe('quick\n');
  }, 300_000);

  it('a call goes on to its end on the worker when the exec process itself is killed', async () => {
    const block = { type: 'tool_use', id: 'toolu_k1', name: 'Bash', input: { command: 'echo begin-k >> k.txt; sleep 5; echo end-k >> k.txt' } };
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'exec', '--json', '--cwd', ws.dir, '--mode', 'bypassPermissions', '--backend', `restate=${server.ingressUrl}`],
      { cwd: repoRoot, env: { ...process.env, TOOLGATE_RESTATE_ADMIN: server.adminUrl, TOOLGATE_RESTATE_POOL: 'exec' } },
    );
    child.stdin?.end(JSON.stringify([block]));
    const file = path.join(ws.dir, 'k.txt');
    const read = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
    await waitFor('the call running', () => (read().includes('begin-k') ? true : undefined));
    child.kill('SIGKILL');
    // Nobody waits for it any more; the call is Restate's and runs to its end, once.
    await waitFor('the call to end', () => (read().includes('end-k') ? true : undefined), 60_000);
    expect(read()).toBe('begin-k\nend-k\n');

    // A new exec is a new session (its calls get new idempotency keys): the same input runs the call again.
    const again = await new Promise<number | null>((resolve) => {
      const rerun = execFile(
        process.execPath,
        ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'exec', '--json', '--cwd', ws.dir, '--mode', 'bypassPermissions', '--backend', `restate=${server.ingressUrl}`],
        { cwd: repoRoot, env: { ...process.env, TOOLGATE_RESTATE_ADMIN: server.adminUrl, TOOLGATE_RESTATE_POOL: 'exec' } },
        (error) => resolve(error ? (typeof error.code === 'number' ? error.code : null) : 0),
      );
      rerun.stdin?.end(JSON.stringify([block]));
    });
    expect(again).toBe(0);
    expect(read()).toBe('begin-k\nend-k\nbegin-k\nend-k\n');
  }, 120_000);
});
