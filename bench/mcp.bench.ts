/**
 * MCP both ways.
 * - mcp.serve_{read_small,edit,bash_echo}_ms: one call to `toolgate mcp serve` over stdio with the SDK client, server
 *   warm; baseline: the same call made in this process on a server object of the same kind (the pipeline alone).
 * - mcp.serve_start_ms: spawn to the first `tools/list` answer of `toolgate mcp serve` as installed (bin/toolgate.js
 *   and the CLI bundle), baseline `node -e 0`; mcp.serve_rss_mb: the server's RSS then.
 * - mcp.client_call_overhead_ms: server-everything's `echo` through toolgate's MCP tool; baseline: the bare SDK client.
 * - mcp.serve_{read_small,read_2000_lines,edit,write,bash_echo,grep}_vs_claude_ms: per call over stdio to `toolgate mcp
 *   serve` as installed (the CLI bundle), baseline the same call to Claude Code's `claude mcp serve` ($TOOLGATE_BENCH_
 *   CLAUDE, else installed outside the repository by test/helpers/claude-code.ts); target ratio ≤ 0.5. Without Claude
 *   Code only mcp.serve_bash_echo_vs_bare_sdk_ms, against the smallest MCP SDK server with a Bash tool
 *   (bench/fixtures/bare-bash-mcp-server.mjs). Calls alternate between the two servers, batch by batch, over ten
 *   rounds; which server goes first alternates.
 * - mcp.serve_*_vs_claude_cpu_ms: the same calls, the CPU time per call (user + system) of the server process and
 *   every process under it (toolgate's command launcher and its shells included), rounds 3-10: on a loaded machine the
 *   wall figures above are mostly time spent waiting for a core.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpClientManager } from '../src/mcp/manager.js';
import { ToolgateMcpServer } from '../src/mcp/server/tool-server.js';
import { EVERYTHING_SERVER, nodeServer, scoped } from '../src/mcp/test-helpers/servers.js';
import type { AssistantMessage } from '../src/tool/tool.js';
import { createToolUseContext } from '../src/tool/tool-use-context.js';
import { getEmptyToolPermissionContext } from '../src/tool/permission-types.js';
import { ensureClaudeCode } from '../test/helpers/claude-code.js';
import { ensureBuilt, median, timePerCallUs, type Benchmark, type BenchFigure } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLES = { warmup: 30, samples: 15, batch: 10 };

function project(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-mcp-'));
  mkdirSync(path.join(dir, 'p'));
  writeFileSync(path.join(dir, 'p', 'small.txt'), 'alpha\nbeta\ngamma\n');
  writeFileSync(path.join(dir, 'p', 'edit.txt'), 'value = one\n');
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The three calls, each a function of a caller (stdio client or in-process server). */
function calls(p: string) {
  let flip = false;
  return {
    read_small: ['Read', () => ({ file_path: path.join(p, 'small.txt') })] as const,
    edit: [
      'Edit',
      () => {
        flip = !flip;
        return { file_path: path.join(p, 'edit.txt'), old_string: flip ? 'one' : 'two', new_string: flip ? 'two' : 'one' };
      },
    ] as const,
    bash_echo: ['Bash', () => ({ command: 'echo hi' })] as const,
  };
}

async function serveFigures(): Promise<BenchFigure[]> {
  const { dir, cleanup } = project();
  const p = path.join(dir, 'p');
  const env = { ...process.env, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') } as Record<string, string>;
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), 'mcp', 'serve', '--cwd', p, '--permission-mode', 'acceptEdits', '--session-dir', path.join(dir, 's1')],
      env,
      stderr: 'ignore',
    }),
  );
  const local = await ToolgateMcpServer.create({ cwd: p, mode: 'acceptEdits', runtime: { settings: { sources: [] }, sessionDir: path.join(dir, 's2') } });
  const out: BenchFigure[] = [];
  try {
    // Edit needs the file read first, in each server's session.
    await client.callTool({ name: 'Read', arguments: { file_path: path.join(p, 'edit.txt') } });
    await local.call('Read', { file_path: path.join(p, 'edit.txt') }, 'toolu_warm', new AbortController().signal);
    let n = 0;
    for (const [key, [name, args]] of Object.entries(calls(p))) {
      const remote = await timePerCallUs(async () => {
        const r = await client.callTool({ name, arguments: args() });
        if (r.isError) throw new Error(`${name} failed over stdio: ${JSON.stringify(r.content)}`);
      }, SAMPLES);
      const inProcess = await timePerCallUs(async () => {
        const r = await local.call(name, args(), `toolu_b${++n}`, new AbortController().signal);
        if (r.isError) throw new Error(`${name} failed in process: ${JSON.stringify(r.content)}`);
      }, SAMPLES);
      out.push({ name: `mcp.serve_${key}_ms`, value: remote / 1000, unit: 'ms', baseline: inProcess / 1000 });
    }
  } finally {
    await client.close();
    await local.dispose();
    cleanup();
  }
  return out;
}

/** The `toolgate` command as installed: bin/toolgate.js runs the CLI bundle that `npm ci` builds (rebuilt here if stale). */
function toolgateBin(): string {
  ensureBuilt();
  return path.join(root, 'bin/toolgate.js');
}

function timeSpawn(args: readonly string[], env: NodeJS.ProcessEnv, untilToolsList: boolean): Promise<{ ms: number; rssMb?: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [...args], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    child.once('error', reject);
    if (!untilToolsList) {
      child.once('exit', () => resolve({ ms: performance.now() - start }));
      return;
    }
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (const line of buffer.split('\n')) {
        if (!line.includes('"id":2')) continue;
        const ms = performance.now() - start;
        let rssMb: number | undefined;
        try {
          const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
          const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
          if (Number.isFinite(kb)) rssMb = kb / 1024;
        } catch {
          // not Linux: no RSS figure
        }
        child.kill();
        resolve({ ms, rssMb });
        return;
      }
    });
    const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  });
}

async function startFigures(): Promise<BenchFigure[]> {
  const bundle = toolgateBin();
  const { dir, cleanup } = project();
  const env = { ...process.env, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') };
  try {
    const serveArgs = [bundle, 'mcp', 'serve', '--cwd', path.join(dir, 'p'), '--session-dir', path.join(dir, 's')];
    await timeSpawn(serveArgs, env, true); // warm the file cache
    const starts: number[] = [];
    const rss: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await timeSpawn(serveArgs, env, true);
      starts.push(r.ms);
      if (r.rssMb !== undefined) rss.push(r.rssMb);
      bare.push((await timeSpawn(['-e', '0'], env, false)).ms);
    }
    const out: BenchFigure[] = [{ name: 'mcp.serve_start_ms', value: median(starts), unit: 'ms', baseline: median(bare) }];
    if (rss.length > 0) out.push({ name: 'mcp.serve_rss_mb', value: median(rss), unit: 'MB' });
    return out;
  } finally {
    cleanup();
  }
}

async function clientFigures(): Promise<BenchFigure[]> {
  const bare = new Client({ name: 'bare', version: '1' });
  await bare.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore' }));
  const manager = new McpClientManager({ cwd: os.tmpdir(), servers: scoped({ everything: nodeServer(EVERYTHING_SERVER, ['stdio']) }) });
  try {
    const echo = (await manager.getTools()).find((t) => t.name === 'mcp__everything__echo')!;
    const context = createToolUseContext({ tools: [echo], permissionContext: getEmptyToolPermissionContext(os.tmpdir()), sessionDir: os.tmpdir() });
    const parent: AssistantMessage = { role: 'assistant', content: [] };
    const canUse = async () => ({ behavior: 'allow' as const });
    const ours = await timePerCallUs(async () => {
      const r = await echo.call({ message: 'hi' }, context, canUse, parent);
      echo.mapToolResultToToolResultBlockParam(r.data, 'toolu_x');
    }, SAMPLES);
    const sdk = await timePerCallUs(() => bare.callTool({ name: 'echo', arguments: { message: 'hi' } }), SAMPLES);
    return [{ name: 'mcp.client_call_overhead_ms', value: ours / 1000, unit: 'ms', baseline: sdk / 1000 }];
  } finally {
    await bare.close();
    await manager.dispose();
  }
}

async function stdioClient(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'ignore' });
  await client.connect(transport);
  serverPids.set(client, transport.pid ?? undefined);
  return client;
}

const serverPids = new WeakMap<Client, number | undefined>();

/**
 * CPU time (user + system) the server process of `client` and every process under it have used so far, in ms: each
 * live process's own and that of the children it has reaped. toolgate's Bash commands are not the server's own
 * children — its command launcher (a Perl, src/tools/bash/launcher.ts) forks them and reaps them — so the server's
 * `cutime` alone missed them (and the launcher): Bash echo read 0.29x Claude Code's CPU while the wall time was
 * even, the rest was in the launcher's tree. A process that ends moves its time into its reaper's, which is in the
 * tree too, so the sum only grows. Undefined off Linux.
 */
function serverCpuMs(client: Client): number | undefined {
  const pid = serverPids.get(client);
  if (pid === undefined) return undefined;
  try {
    const stats = new Map<number, { ppid: number; ticks: number }>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let text: string;
      try {
        text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // ended meanwhile: its time is in its reaper's now
      }
      const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
      // ppid, then utime, stime, cutime, cstime, in clock ticks (USER_HZ: 100 on Linux).
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) });
    }
    if (!stats.has(pid)) return undefined;
    const children = new Map<number, number[]>();
    for (const [child, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), child]);
    let ticks = 0;
    const pending = [pid];
    while (pending.length > 0) {
      const next = pending.pop()!;
      ticks += stats.get(next)?.ticks ?? 0;
      pending.push(...(children.get(next) ?? []));
    }
    return ticks * 10;
  } catch {
    return undefined;
  }
}

/** A call to time against both servers: its arguments (each server has its own files) and a check of its answer. */
interface VersusCall {
  readonly tool: string;
  readonly args: (side: 'ours' | 'theirs') => Record<string, unknown>;
  readonly ok: (text: string) => boolean;
}

/** The calls of mcp.serve_*_vs_claude_ms; each server works on its own copy of the files it changes. */
function versusCalls(p: string): Record<string, VersusCall> {
  const flips = { ours: false, theirs: false };
  const writes = { ours: 0, theirs: 0 };
  return {
    read_small: { tool: 'Read', args: () => ({ file_path: path.join(p, 'small.txt') }), ok: (t) => t.includes('gamma') },
    read_2000_lines: { tool: 'Read', args: () => ({ file_path: path.join(p, 'long.txt') }), ok: (t) => t.includes('line 2000') },
    edit: {
      tool: 'Edit',
      args: (side) => {
        flips[side] = !flips[side];
        return { file_path: path.join(p, `edit-${side}.txt`), old_string: flips[side] ? 'one' : 'two', new_string: flips[side] ? 'two' : 'one' };
      },
      ok: (t) => !/error|fail/i.test(t),
    },
    write: { tool: 'Write', args: (side) => ({ file_path: path.join(p, `write-${side}.txt`), content: `written ${++writes[side]}\n` }), ok: (t) => !/error|fail/i.test(t) },
    bash_echo: { tool: 'Bash', args: () => ({ command: 'echo hi' }), ok: (t) => t.includes('hi') },
    grep: { tool: 'Grep', args: () => ({ pattern: 'beta', path: p, output_mode: 'content' }), ok: (t) => t.includes('beta') },
  };
}

/**
 * Each call of versusCalls per call over stdio to `toolgate mcp serve` as installed (the CLI bundle) against Claude
 * Code's `claude mcp serve` ($TOOLGATE_BENCH_CLAUDE, else the install test/helpers/claude-code.ts keeps in
 * ~/.cache/toolgate-test); without Claude Code, Bash echo alone against the smallest MCP SDK server with a Bash tool.
 * Calls alternate between the two servers, batch by batch, over ten rounds; which server goes first alternates.
 */
async function versusClaudeFigures(): Promise<BenchFigure[]> {
  const bundle = toolgateBin();
  const { dir, cleanup } = project();
  const p = path.join(dir, 'p');
  writeFileSync(path.join(p, 'long.txt'), Array.from({ length: 2000 }, (_, i) => `line ${i + 1} of a file long enough to page`).join('\n') + '\n');
  for (const side of ['ours', 'theirs']) {
    writeFileSync(path.join(p, `edit-${side}.txt`), 'value = one\n');
    writeFileSync(path.join(p, `write-${side}.txt`), 'written 0\n');
  }
  const env = { ...process.env, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') } as Record<string, string>;
  const installed = ensureClaudeCode();
  const claude = 'bin' in installed ? installed.bin : undefined;
  if (!claude) process.stderr.write(`mcp: Claude Code not available (${'skip' in installed ? installed.skip : ''}): Bash echo against the bare MCP SDK server only\n`);
  // Claude Code's server asks nobody before an edit: acceptEdits is toolgate's same ground (edits in the folder allowed).
  const ours = await stdioClient(process.execPath, [bundle, 'mcp', 'serve', '--cwd', p, '--permission-mode', 'acceptEdits', '--session-dir', path.join(dir, 's')], env, p);
  const theirs = claude
    ? await stdioClient(claude, ['mcp', 'serve'], env, p)
    : await stdioClient(process.execPath, [path.join(root, 'bench/fixtures/bare-bash-mcp-server.mjs')], env, p);
  const out: BenchFigure[] = [];
  try {
    const all = versusCalls(p);
    // Edit and Write change files that are there: each server reads them first, as a model would.
    for (const [client, side] of [[ours, 'ours'], [theirs, 'theirs']] as const) {
      if (!claude && side === 'theirs') continue;
      for (const f of [`edit-${side}.txt`, `write-${side}.txt`]) await client.callTool({ name: 'Read', arguments: { file_path: path.join(p, f) } });
    }
    const theirTools = new Set((await theirs.listTools()).tools.map((t) => t.name));
    for (const [key, call] of Object.entries(all)) {
      if (!claude && key !== 'bash_echo') continue;
      if (!theirTools.has(call.tool)) {
        process.stderr.write(`mcp: ${claude ? 'claude mcp serve' : 'the bare server'} has no ${call.tool} tool: no mcp.serve_${key} figure\n`);
        continue;
      }
      const made = { ours: 0, theirs: 0 };
      const cpuCalls = { ours: 0, theirs: 0 };
      const cpu = { ours: 0, theirs: 0 };
      const timed = (client: Client, side: 'ours' | 'theirs') => async () => {
        made[side]++;
        const r = await client.callTool({ name: call.tool, arguments: call.args(side) });
        const text = JSON.stringify(r.content);
        if (r.isError || !call.ok(text)) throw new Error(`${call.tool} (${key}) failed on ${side}: ${text.slice(0, 300)}`);
      };
      const a: number[] = [];
      const b: number[] = [];
      // Ten rounds, and which server goes first alternates: with five, ours always first, one run of a build could
      // read 0.43 and the next 0.53 on this machine.
      for (let round = 0; round < 10; round++) {
        // CPU from the third round on (the first two warm up: JIT, caches, the first shell).
        const metered = async (client: Client, side: 'ours' | 'theirs', into: number[]) => {
          const before = serverCpuMs(client);
          const calls = made[side];
          into.push(await timePerCallUs(timed(client, side), { warmup: round < 2 ? 10 : 2, samples: 5, batch: 5 }));
          const after = serverCpuMs(client);
          if (round >= 2 && before !== undefined && after !== undefined) {
            cpu[side] += after - before;
            if (side === 'ours') cpuCalls.ours += made[side] - calls;
            else cpuCalls.theirs += made[side] - calls;
          }
        };
        const timeOurs = () => metered(ours, 'ours', a);
        const timeTheirs = () => metered(theirs, 'theirs', b);
        if (round % 2 === 0) {
          await timeOurs();
          await timeTheirs();
        } else {
          await timeTheirs();
          await timeOurs();
        }
      }
      const versus = claude ? 'claude' : 'bare_sdk';
      out.push({ name: `mcp.serve_${key}_vs_${versus}_ms`, value: median(a) / 1000, unit: 'ms', baseline: median(b) / 1000 });
      if (cpuCalls.ours > 0 && cpuCalls.theirs > 0) {
        out.push({ name: `mcp.serve_${key}_vs_${versus}_cpu_ms`, value: cpu.ours / cpuCalls.ours, unit: 'ms', baseline: cpu.theirs / cpuCalls.theirs });
      }
    }
    return out;
  } finally {
    await ours.close();
    await theirs.close();
    cleanup();
  }
}

export const benchmarks: Benchmark[] = [
  { group: 'mcp', names: ['mcp.serve_read_small_ms', 'mcp.serve_edit_ms', 'mcp.serve_bash_echo_ms'], run: serveFigures },
  { group: 'mcp', names: ['mcp.serve_start_ms', 'mcp.serve_rss_mb'], run: startFigures },
  { group: 'mcp', names: ['mcp.client_call_overhead_ms'], run: clientFigures },
  {
    group: 'mcp',
    names: [
      ...['read_small', 'read_2000_lines', 'edit', 'write', 'bash_echo', 'grep'].flatMap((k) => [`mcp.serve_${k}_vs_claude_ms`, `mcp.serve_${k}_vs_claude_cpu_ms`]),
      'mcp.serve_bash_echo_vs_bare_sdk_ms',
      'mcp.serve_bash_echo_vs_bare_sdk_cpu_ms',
    ],
    run: versusClaudeFigures,
  },
];
