/**
 * toolgate/agent-sdk against the real Claude Agent SDK, in one run, on the same scripted two-turn session (the model
 * reads a file with Read, then answers), both through their `query()` against toolgate/testing's server on 127.0.0.1:
 * - agentsdk.first_message_ms: from `query()` to the first message (system/init), median of sequential sessions.
 * - agentsdk.session_ms: from `query()` to the end of the stream (the result read), same sessions.
 * - agentsdk.memory_per_session_mb: sessions held at once at their second model request; the resident memory of this
 *   process and every process under it, less what it was before, per session. The Agent SDK with 10 at once (each is
 *   a Claude Code process); toolgate with 100 at once, because 10 of its sessions move the process's resident memory
 *   less than the garbage collector does (the figure came out negative). The scripted model server shares the process
 *   and keeps no request (three request bodies of ~45 KB per session were a third of the figure before).
 * - agentsdk.sessions_1000_*, agentsdk.sessions_10000_*: 1,000 and 10,000 concurrent sessions through toolgate alone
 *   (the Agent SDK's child processes would need ~180 GB): how many succeeded, sessions per second, resident memory per
 *   session while all are held (the 10,000's against the Agent SDK's per session). For concurrent sessions the model
 *   server runs in a process of its own, left out of the memory figures: in this one its end of each socket would
 *   take a second descriptor a session (10,000 sessions: 20,000, this machine's limit), which a real server never does.
 * `baseline` is the Agent SDK's figure, so `ratio` is toolgate's share (targets: ≤ 0.01, ≤ 0.05, ≤ 0.01).
 *
 * The Agent SDK is not a dependency: it is taken from TOOLGATE_AGENT_SDK_DIR, ~/.cache/toolgate-bench or
 * /tmp/scratch-sdk, and installed into ~/.cache/toolgate-bench (`npm install --prefix`) when missing; when it cannot be
 * had, a line on stderr says so and only toolgate's figures are printed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { query as toolgateQuery } from '../src/agent-sdk/query.js';
import { fork } from 'node:child_process';
import { loadRealAgentSdk, realAgentSdkEntry } from '../test/helpers/agent-sdk-scenarios.js';
import { modelServer } from './agentsdk-model.js';
import { median, type BenchFigure, type Benchmark } from './lib.js';

const AGENT_SDK_VERSION = '0.3.328';
const CACHE = path.join(os.homedir(), '.cache', 'toolgate-bench');
const MODEL = 'claude-sonnet-4-6';

type Message = Record<string, unknown>;
type QueryFn = (params: { prompt: string; options: Record<string, unknown> }) => AsyncIterable<Message>;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

interface Run {
  readonly firstMs: number;
  readonly totalMs: number;
}

/** One session: its folder and file, the options both SDKs get, the timing, and a check that it really succeeded. */
async function session(q: QueryFn, server: { readonly url: string }, root: string, i: number, extra: Record<string, unknown> = {}): Promise<Run> {
  const dir = path.join(root, `s${i}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
  const home = path.join(root, `home${i}`);
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-bench',
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    // Only 127.0.0.1 is reachable here: keep the Agent SDK's process from waiting on anything else.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  const options = { cwd: dir, env, model: MODEL, allowedTools: ['Read'], settingSources: [], ...extra };
  const start = performance.now();
  let firstMs = -1;
  let result: Message | undefined;
  let read = false;
  for await (const m of q({ prompt: `read ${path.join(dir, 'a.txt')} and tell me what it says`, options })) {
    if (firstMs < 0) firstMs = performance.now() - start;
    if (m.type === 'user' && JSON.stringify(m.message).includes('hello')) read = true;
    if (m.type === 'result') result = m;
  }
  const totalMs = performance.now() - start;
  if (result?.subtype !== 'success' || result.result !== 'It says hello.' || !read) {
    throw new Error(`session ${i} did not go as scripted: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return { firstMs, totalMs };
}

async function sequential(q: QueryFn, runs: number): Promise<{ first: number; total: number }> {
  const server = await modelServer();
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-agentsdk-'));
  try {
    await session(q, server, root, -1); // warm: module loading, file cache
    const all: Run[] = [];
    for (let i = 0; i < runs; i++) all.push(await session(q, server, root, i));
    return { first: median(all.map((r) => r.firstMs)), total: median(all.map((r) => r.totalMs)) };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Resident memory of this process and all its descendants but `leaveOut` (and its own), in MB (Linux /proc). */
function treeRssMb(leaveOut: number): number {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (tree.has(pid) || !tree.has(ppid) || pid === leaveOut) continue;
      tree.add(pid);
      grew = true;
    }
  }
  let kb = 0;
  for (const pid of tree) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

/** The model server in a process of its own (fixtures/agentsdk-model-server.ts): its URL, hold on/off, its pid. */
async function modelServerProcess(sessions: number, onSecond: (n: number) => void) {
  const child = fork(path.join(import.meta.dirname, 'fixtures/agentsdk-model-server.ts'), [String(sessions)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let acked: (() => void) | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the model server process ended (${code})`)));
    child.on('message', (m: { url?: string; second?: number; held?: boolean }) => {
      if (m.url) resolve(m.url);
      if (m.second) onSecond(m.second);
      if (m.held !== undefined) acked?.();
    });
  });
  return {
    url,
    pid: child.pid!,
    hold: (on: boolean) => new Promise<void>((resolve) => ((acked = resolve), child.send({ hold: on }))),
    close: () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.send({ close: true })))),
  };
}

/**
 * `count` sessions at once, all held at their second request while memory is read; then released to finish. The model
 * server runs in a process of its own, left out of the memory figure.
 */
export async function concurrent(q: QueryFn, count: number): Promise<{ ok: number; perSessionMb: number; wallMs: number }> {
  let held = false;
  let arrived = 0;
  let allArrived!: () => void;
  const all = new Promise<void>((r) => (allArrived = r));
  // A session counts once it is held at its second request, or once it has failed (it will not get there).
  const arrive = (n = 1) => {
    if (held && (arrived += n) === count) allArrived();
  };
  const server = await modelServerProcess(count, arrive);
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-agentsdk-'));
  try {
    await session(q, server, root, -1); // warm: module loading, file cache
    held = true;
    await server.hold(true);
    gc();
    const before = treeRssMb(server.pid);
    const start = performance.now();
    const runs = Array.from({ length: count }, (_, i) =>
      session(q, server, root, i).then(
        () => true,
        (error: unknown) => {
          if (count - arrived < 3) process.stderr.write(`agentsdk: a concurrent session failed: ${error instanceof Error ? error.message : String(error)}\n`);
          arrive();
          return false;
        },
      ),
    );
    await all;
    const pausedAt = performance.now();
    gc();
    const during = treeRssMb(server.pid);
    const paused = performance.now() - pausedAt;
    held = false;
    await server.hold(false);
    const ok = (await Promise.all(runs)).filter(Boolean).length;
    // The pause to read memory is the bench's, not the sessions'.
    return { ok, perSessionMb: (during - before) / count, wallMs: performance.now() - start - paused };
  } finally {
    held = false;
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The real Agent SDK's query(), installing it outside the repository when it is missing; undefined (and why) if not. */
async function realQuery(): Promise<{ query?: QueryFn; why?: string }> {
  if (!realAgentSdkEntry()) {
    try {
      mkdirSync(CACHE, { recursive: true });
      execFileSync('npm', ['install', '--prefix', CACHE, '--no-audit', '--no-fund', '--no-save', `@anthropic-ai/claude-agent-sdk@${AGENT_SDK_VERSION}`], { stdio: 'ignore', timeout: 300_000 });
    } catch (error) {
      return { why: `could not install @anthropic-ai/claude-agent-sdk@${AGENT_SDK_VERSION} into ${CACHE}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
    }
  }
  const sdk = await loadRealAgentSdk().catch((error: unknown) => ({ error }));
  if (!sdk || 'error' in sdk) return { why: `the Claude Agent SDK could not be loaded${sdk && 'error' in sdk ? `: ${String(sdk.error)}` : ''}` };
  return { query: sdk.query as unknown as QueryFn };
}

export const ours = toolgateQuery as unknown as QueryFn;

export const benchmarks: Benchmark[] = [
  {
    group: 'agentsdk',
    names: ['agentsdk.first_message_ms', 'agentsdk.session_ms', 'agentsdk.memory_per_session_mb', 'agentsdk.sessions_1000_ok', 'agentsdk.sessions_1000_per_s', 'agentsdk.sessions_1000_memory_per_session_mb', 'agentsdk.sessions_10000_ok', 'agentsdk.sessions_10000_per_s', 'agentsdk.sessions_10000_memory_per_session_mb'],
    async run() {
      const real = await realQuery();
      let baseline: { first: number; total: number; memory: number } | undefined;
      if (real.query) {
        try {
          const seq = await sequential(real.query, 5);
          const mem = await concurrent(real.query, 10);
          if (mem.ok !== 10) throw new Error(`${10 - mem.ok} of its 10 concurrent sessions failed`);
          baseline = { first: seq.first, total: seq.total, memory: mem.perSessionMb };
        } catch (error) {
          real.why = `the Claude Agent SDK did not run the session: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
      if (!baseline) process.stderr.write(`agentsdk: skipping the Agent SDK baseline (${real.why}); toolgate's figures only\n`);
      const seq = await sequential(ours, 30);
      const mem = await concurrent(ours, 100);
      const many = await concurrent(ours, 1_000);
      const most = await concurrent(ours, 10_000);
      const figures: BenchFigure[] = [
        { name: 'agentsdk.first_message_ms', value: seq.first, unit: 'ms', ...(baseline ? { baseline: baseline.first } : {}) },
        { name: 'agentsdk.session_ms', value: seq.total, unit: 'ms', ...(baseline ? { baseline: baseline.total } : {}) },
        { name: 'agentsdk.memory_per_session_mb', value: mem.perSessionMb, unit: 'MB', ...(baseline ? { baseline: baseline.memory } : {}) },
        { name: 'agentsdk.sessions_1000_ok', value: many.ok, unit: 'sessions' },
        { name: 'agentsdk.sessions_1000_per_s', value: (many.ok / many.wallMs) * 1000, unit: 'sessions/s' },
        { name: 'agentsdk.sessions_1000_memory_per_session_mb', value: many.perSessionMb, unit: 'MB' },
        { name: 'agentsdk.sessions_10000_ok', value: most.ok, unit: 'sessions' },
        { name: 'agentsdk.sessions_10000_per_s', value: (most.ok / most.wallMs) * 1000, unit: 'sessions/s' },
        // Against the Agent SDK's memory per session: the target is ≤ 1/100.
        { name: 'agentsdk.sessions_10000_memory_per_session_mb', value: most.perSessionMb, unit: 'MB', ...(baseline ? { baseline: baseline.memory } : {}) },
      ];
      return figures;
    },
  },
];
