/**
 * Invariant 7 (docs/security.md): an MCP client that goes away takes its calls with it. `toolgate mcp serve` (the
 * real CLI, a child process over stdio): when the client ends its input, or its end of stdout is gone (EPIPE), while
 * a call runs, every call in flight is cancelled, every process it started is ended — background tasks, a process
 * that ignores SIGTERM and one that left its process group (setsid) included — and the server exits 0. What is
 * checked is the moment of the exit: not one process carrying the server's marker (TOOLGATE_PGROUP,
 * src/hooks/process-marker.ts) is alive then, read from /proc with no waiting. How long it took is printed, never
 * asserted (a loaded machine must not fail the test).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let root: string;
let project: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-client-gone-'));
  project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  mkdirSync(path.join(root, 'home'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Served {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Record<string, unknown>[];
  stderr: string;
  /** Exit code and when it came (performance.now()). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number; leftovers: number[] }>;
  send(message: unknown): void;
  answer(id: number): Promise<Record<string, unknown>>;
  /** The marker prefix of the server's processes (its process token), read from a command's environment. */
  marker?: string;
}

const running: Served[] = [];
afterEach(() => {
  for (const s of running.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
});

/** Live processes (zombies aside) whose environment carries TOOLGATE_PGROUP starting with `prefix`. */
function marked(prefix: string): number[] {
  const needle = Buffer.from(`TOOLGATE_PGROUP=${prefix}`);
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      const env = readFileSync(`/proc/${entry}/environ`);
      for (let at = env.indexOf(needle); at !== -1; at = env.indexOf(needle, at + 1)) {
        if (at === 0 || env[at - 1] === 0) {
          out.push(Number(entry));
          break;
        }
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** Live processes whose command line is exactly `sleep <arg>`. */
function sleeping(arg: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') !== `sleep\0${arg}\0`) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

/** Milliseconds from `start` until no process carries the marker (measured for the report, never asserted). */
async function goneAfter(marker: string, start: number): Promise<number> {
  while (marked(`${marker}.`).length > 0) await new Promise((r) => setTimeout(r, 5));
  return performance.now() - start;
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function serve(): Promise<Served> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'mcp', 'serve', '--cwd', project, '--permission-mode', 'bypassPermissions', '--session-dir', path.join(root, `s-${running.length}`)],
    { cwd: repoRoot, env: { ...process.env, HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state'), NODE_NO_WARNINGS: '' } },
  );
  child.stdin.on('error', () => {});
  const messages: Record<string, unknown>[] = [];
  let buffer = '';
  const served: Served = {
    child,
    messages,
    stderr: '',
    // Read /proc the moment the exit is known, before anything else runs: what is alive then was left behind.
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now(), leftovers: served.marker ? marked(`${served.marker}.`) : [] })),
    ),
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    async answer(id) {
      for (;;) {
        const found = messages.find((m) => m.id === id && ('result' in m || 'error' in m));
        if (found) return found;
        if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before answering ${id}; stderr: ${served.stderr}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() !== '') messages.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (served.stderr += chunk));
  running.push(served);
  served.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'goes-away', version: '1' } } });
  await served.answer(0);
  served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return served;
}

const text = (m: Record<string, unknown>) => ((m.result as { content?: { text?: string }[] } | undefined)?.content ?? []).map((c) => c.text ?? '').join('');

/**
 * A server with work in flight: a background task (a child that ignores SIGTERM, one that left its group, one that
 * writes `bg-<tag>` after 3 s) and a foreground call (two sleeps, one child that writes `fg-<tag>` after 3 s) still
 * running. Resolves once every process is there. A file written means a call outlived its client.
 */
async function busyServer(tag: string): Promise<Served> {
  const s = await serve();
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'printf %s "$TOOLGATE_PGROUP"' } } });
  const own = text(await s.answer(1)).trim();
  expect(own).toMatch(/^[0-9a-f]+\.[^.]+\.\S+$/);
  s.marker = own.split('.')[0]!;
  s.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'Bash', arguments: { command: `(trap '' TERM; sleep ${tag}1) & setsid sleep ${tag}2 & (sleep 3; touch bg-${tag}) & wait`, run_in_background: true, description: 'background sleeps' } },
  });
  expect(text(await s.answer(2))).toMatch(/background/i);
  s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'Bash', arguments: { command: `(sleep 3; touch fg-${tag}) & sleep ${tag}3 & sleep ${tag}4; wait` } } });
  await until(() => [1, 2, 3, 4].every((i) => sleeping(`${tag}${i}`).length === 1), 'every sleep to start');
  expect(marked(`${s.marker}.`).length).toBeGreaterThanOrEqual(4);
  return s;
}

describe('attack: the MCP client goes away while calls run', () => {
  const tag = `7${process.pid % 1000}${Math.floor(Math.random() * 1e5)}`;

  it('its input ends: the call in flight is answered as interrupted, every process of every call and task is gone when the server exits 0', async () => {
    const s = await busyServer(`${tag}1`);
    const start = performance.now();
    s.child.stdin.end();
    const allGone = goneAfter(s.marker!, start);
    const exit = await s.exited;
    console.log(`client input ended -> every marked process gone in ${Math.round(await allGone)} ms, server exited in ${Math.round(exit.at - start)} ms`);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.leftovers, `left alive at exit: ${exit.leftovers.join(' ')}`).toEqual([]);
    expect(readdirSync(project).filter((f) => f.endsWith(`-${tag}1`))).toEqual([]);
    const answer = s.messages.find((m) => m.id === 3);
    expect(answer, JSON.stringify(s.messages)).toBeDefined();
    expect(JSON.stringify(answer)).toMatch(/interrupt|abort|cancel/i);
    expect(s.stderr).not.toMatch(/Unhandled|throw er/);
  });

  it('its end of stdout is gone (EPIPE on the next write) while stdin stays open: the same, without waiting for its input to end', async () => {
    const s = await busyServer(`${tag}2`);
    s.child.stdout.destroy();
    const start = performance.now();
    // Something to answer into the closed pipe: the write fails with EPIPE.
    s.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    const allGone = goneAfter(s.marker!, start);
    const exit = await s.exited;
    console.log(`client stdout gone -> every marked process gone in ${Math.round(await allGone)} ms, server exited in ${Math.round(exit.at - start)} ms`);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.leftovers, `left alive at exit: ${exit.leftovers.join(' ')}`).toEqual([]);
    expect(readdirSync(project).filter((f) => f.endsWith(`-${tag}2`))).toEqual([]);
    expect(s.stderr).toMatch(/the client's end of the connection is gone/);
    expect(s.stderr).not.toMatch(/Unhandled|throw er|Error: write EPIPE/);
  });

  it('control: a client that stays keeps its calls (the background task and the call run on, and write their files)', async () => {
    const s = await busyServer(`${tag}3`);
    await until(() => readdirSync(project).filter((f) => f.endsWith(`-${tag}3`)).length === 2, 'both files');
    expect(sleeping(`${tag}33`)).toHaveLength(1);
    expect(sleeping(`${tag}31`)).toHaveLength(1);
    expect(s.messages.some((m) => m.id === 3)).toBe(false);
    s.child.stdin.end();
    expect((await s.exited).code).toBe(0);
  });
});
