/**
 * Scale-out: a no-op tool through the whole pipeline and executor, in this process (the baseline) and through the
 * Restate backend with a pool of 1, 2 and 4 `toolgate worker` processes, against a real Restate server from npm on
 * 127.0.0.1 — all in the same run.
 *
 * - scaleout.calls_per_s.inprocess / .workers_1 / .workers_2 / .workers_4: throughput with many calls in flight;
 * - scaleout.dispatch_overhead_ms: per call, one at a time, remote minus in-process (1 worker process);
 * - scaleout.dispatch_over_floor_ms: the same remote call less scaleout.restate_floor_ms, both of this run: what
 *   toolgate adds to a bare Restate service call (target ≤ 1 ms);
 * - scaleout.restate_floor_ms: per call, one at a time, a bare Restate handler (no journal step, no toolgate) in a
 *   process of its own, through the same server and the same kind of connection: what Restate itself costs on this
 *   machine at this moment. The overhead above it is toolgate's. Floor and remote calls alternate, pair by pair,
 *   while both the worker and the bare handler are up: on a loaded machine only figures timed together compare.
 * - scaleout.dispatch_cpu_ms (.coordinator, .worker): CPU time (user + system) per serial call through the worker —
 *   this process around the call plus the worker process — against the floor's (this process around the post plus
 *   the bare handler's process): toolgate's share of a dispatch without the waiting for a core that a loaded machine
 *   adds to the wall figures.
 *
 * Serial calls are turns of one session (one context), as an agent makes them; the throughput runs are one turn each.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDurableToolCallBackend } from '../src/distributed/durable-tool-call-backend.js';
import { startRestateServer, type RestateServer } from '../src/distributed/restate-server.js';
import type { DurableToolEngine } from '../src/distributed/remote-tool-call.js';
import { createRestateToolEngine } from '../src/distributed/restate-tool-engine.js';
import type { ToolCallBackend } from '../src/execution/backend.js';
import { StreamingToolExecutor } from '../src/execution/streaming-tool-executor.js';
import { getEmptyToolPermissionContext } from '../src/tool/permission-types.js';
import type { AssistantMessage, ToolUseBlock } from '../src/tool/tool.js';
import { createToolUseContext, type ToolUseContext } from '../src/tool/tool-use-context.js';
import { tools } from '../test/fixtures/distributed-tools.js';
import { median, type Benchmark, type BenchFigure } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const allow = async () => ({ behavior: 'allow' as const });
let session = 0;

let callNo = 0;

/**
 * A session's context, made once and used for every turn, as a runtime does (create-tool-runtime.ts): what a call
 * costs is measured, not making a session — a new context per call rebuilt the secret redactor over the whole
 * environment each time (~0.1 ms of CPU), which no real session pays per call.
 */
function newSession(workspace: string): ToolUseContext {
  return createToolUseContext({
    tools,
    permissionContext: { ...getEmptyToolPermissionContext(workspace), mode: 'bypassPermissions' },
    sessionDir: workspace,
    sessionId: `bench-${process.pid}-${++session}`,
  });
}

/**
 * `count` Noop calls as one assistant message (one turn of `context`'s session, a new session when absent),
 * `inFlight` at a time; resolves with the elapsed ms. Tool-use ids are unique in the process: the same id in the same
 * session is the same durable call, whose stored result Restate would return without running it.
 */
async function runCalls(backend: ToolCallBackend | undefined, workspace: string, count: number, inFlight: number, context = newSession(workspace)): Promise<number> {
  const blocks = Array.from({ length: count }, () => ({ type: 'tool_use', id: `toolu_${++callNo}`, name: 'Noop', input: { n: callNo } }) as ToolUseBlock);
  const message: AssistantMessage = { role: 'assistant', content: blocks };
  const start = performance.now();
  const executor = new StreamingToolExecutor(tools, allow, context, { backend, maxConcurrency: inFlight });
  for (const block of blocks) executor.addTool(block, message);
  let errors = 0;
  for await (const update of executor.getRemainingResults()) if (update.type === 'result' && update.outcome.isError) errors++;
  if (errors > 0) throw new Error(`${errors} of ${count} calls failed`);
  return performance.now() - start;
}

async function withPool<T>(server: RestateServer, workspace: string, processes: number, fn: (pid: number | undefined) => Promise<T>): Promise<T> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), 'worker', '--restate', server.ingressUrl, '--admin', server.adminUrl,
      '--processes', String(processes), '--workspace', workspace, '--tools', path.join(root, 'test/fixtures/distributed-tools.ts')],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return serving(child, fn);
}

/** A process serving one bare Restate handler (`BenchEcho/call` returns its input), registered with `server`. */
async function withEcho<T>(server: RestateServer, fn: (pid: number | undefined) => Promise<T>): Promise<T> {
  const source = [
    "import * as restate from '@restatedev/restate-sdk';",
    `import { registerDeployment, startToolWorkerEndpoint } from ${JSON.stringify(path.join(root, 'src/distributed/tool-worker.ts'))};`,
    "const echo = restate.service({ name: 'BenchEcho', handlers: { call: async (_ctx, input) => input } });",
    'const endpoint = await startToolWorkerEndpoint({ services: [echo] });',
    'await registerDeployment(process.env.BENCH_ADMIN, endpoint.url);',
    "process.stderr.write('serving on\\n');",
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
    cwd: root,
    env: { ...process.env, BENCH_ADMIN: server.adminUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return serving(child, fn);
}

async function serving<T>(child: ChildProcess, fn: (pid: number | undefined) => Promise<T>): Promise<T> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    while (!stderr.includes('serving on')) {
      if (child.exitCode !== null) throw new Error(`worker exited: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return await fn(child.pid);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/** CPU time (user + system) process `pid` has used so far, in ms; NaN off Linux (no figure then). */
function processCpuMs(pid: number | undefined): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
    // utime, stime in clock ticks (USER_HZ: 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** One request on a kept-alive connection, as the Restate engine sends a call. */
function post(agent: http.Agent, url: string, key: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'idempotency-key': key, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`BenchEcho answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const benchmarks: Benchmark[] = [
  {
    group: 'scaleout',
    names: ['scaleout.calls_per_s', 'scaleout.dispatch_overhead_ms', 'scaleout.dispatch_over_floor_ms', 'scaleout.restate_floor_ms', 'scaleout.dispatch_cpu_ms'],
    async run(): Promise<BenchFigure[]> {
      const workspace = mkdtempSync(path.join(os.tmpdir(), 'toolgate-scaleout-'));
      const server = await startRestateServer({ env: { RESTATE_WORKER__INVOKER__HTTP2_STREAMS_PER_CONNECTION_LIMIT: '8' } });
      let engine: DurableToolEngine | undefined;
      try {
        engine = createRestateToolEngine({ ingressUrl: server.ingressUrl, adminUrl: server.adminUrl });
        const backend = createDurableToolCallBackend({ engine });
        const CALLS = 2_000;
        const IN_FLIGHT = 64;
        await runCalls(undefined, workspace, 500, IN_FLIGHT);
        const local = CALLS / ((await runCalls(undefined, workspace, CALLS, IN_FLIGHT)) / 1000);
        const localSerial: number[] = [];
        const localSession = newSession(workspace);
        for (let i = 0; i < 200; i++) localSerial.push(await runCalls(undefined, workspace, 1, 1, localSession));

        const remoteSerial: number[] = [];
        const floor: number[] = [];
        // The floor and the call through the worker in pairs, one after the other, which goes first alternating: timed
        // apart (the floor after the pool), a load that moved in between read as toolgate's — +20 to +112 ms on this
        // 2-core machine, where the paired figure is ~1-2 ms.
        // CPU per serial call (user + system): this process around each call, plus the process that served it (the
        // worker, or the bare handler's process) over the whole loop. Steadier than wall time on a loaded machine.
        const cpu = { remote: 0, floor: 0 };
        let serverCpu = { worker: 0, echo: 0 };
        const one = await withPool(server, workspace, 1, (workerPid) =>
          withEcho(server, async (echoPid) => {
            const agent = new http.Agent({ keepAlive: true });
            const url = `${server.ingressUrl}/BenchEcho/call`;
            await runCalls(backend, workspace, 200, IN_FLIGHT); // warm-up: connections, JIT
            const remoteSession = newSession(workspace);
            for (let i = 0; i < 200; i++) await post(agent, url, `warm-${process.pid}-${i}`, '{"n":0}');
            const bare = async (i: number) => {
              const used = process.cpuUsage();
              const start = performance.now();
              await post(agent, url, `floor-${process.pid}-${i}`, '{"n":0}');
              floor.push(performance.now() - start);
              cpu.floor += cpuMs(process.cpuUsage(used));
            };
            const servedBefore = { worker: processCpuMs(workerPid), echo: processCpuMs(echoPid) };
            for (let i = 0; i < 200; i++) {
              if (i % 2 === 0) await bare(i);
              const used = process.cpuUsage();
              remoteSerial.push(await runCalls(backend, workspace, 1, 1, remoteSession));
              cpu.remote += cpuMs(process.cpuUsage(used));
              if (i % 2 === 1) await bare(i);
            }
            serverCpu = { worker: processCpuMs(workerPid) - servedBefore.worker, echo: processCpuMs(echoPid) - servedBefore.echo };
            agent.destroy();
            return CALLS / ((await runCalls(backend, workspace, CALLS, IN_FLIGHT)) / 1000);
          }),
        );
        const two = await withPool(server, workspace, 2, async () => {
          await runCalls(backend, workspace, 200, IN_FLIGHT);
          return CALLS / ((await runCalls(backend, workspace, CALLS, IN_FLIGHT)) / 1000);
        });
        const four = await withPool(server, workspace, 4, async () => {
          await runCalls(backend, workspace, 200, IN_FLIGHT);
          return CALLS / ((await runCalls(backend, workspace, CALLS, IN_FLIGHT)) / 1000);
        });
        return [
          { name: 'scaleout.calls_per_s.inprocess', value: local, unit: 'calls/s' },
          { name: 'scaleout.calls_per_s.workers_1', value: one, unit: 'calls/s', baseline: local },
          { name: 'scaleout.calls_per_s.workers_2', value: two, unit: 'calls/s', baseline: one },
          { name: 'scaleout.calls_per_s.workers_4', value: four, unit: 'calls/s', baseline: one },
          { name: 'scaleout.dispatch_overhead_ms', value: median(remoteSerial) - median(localSerial), unit: 'ms', baseline: median(localSerial) },
          { name: 'scaleout.dispatch_over_floor_ms', value: median(remoteSerial) - median(floor), unit: 'ms', baseline: median(floor) },
          { name: 'scaleout.restate_floor_ms', value: median(floor), unit: 'ms' },
          ...(Number.isFinite(serverCpu.worker) && Number.isFinite(serverCpu.echo)
            ? [
                { name: 'scaleout.dispatch_cpu_ms', value: (cpu.remote + serverCpu.worker) / remoteSerial.length, unit: 'ms', baseline: (cpu.floor + serverCpu.echo) / floor.length },
                { name: 'scaleout.dispatch_cpu_ms.coordinator', value: cpu.remote / remoteSerial.length, unit: 'ms', baseline: cpu.floor / floor.length },
                { name: 'scaleout.dispatch_cpu_ms.worker', value: serverCpu.worker / remoteSerial.length, unit: 'ms', baseline: serverCpu.echo / floor.length },
              ]
            : []),
        ];
      } finally {
        await engine?.close?.();
        await server.stop();
        rmSync(workspace, { recursive: true, force: true });
      }
    },
  },
];
