/**
 * The agent loop's own cost, through the real SDK and the scripted server (in this process, over 127.0.0.1):
 * - agent.tool_start_after_block_stop_ms: from the moment the server wrote a tool_use block's content_block_stop to
 *   the tool's call() (median over 40 turns).
 * - agent.turn_overhead_ms: per turn, from the end of the model's response (message_stop written) to the next request
 *   arriving at the server, with the turn's tool finishing inside the response (the server holds the stream until it
 *   has): the loop's work between model and model — results, transcript, next request (median). Baseline: the same
 *   turns driven by the smallest hand-written loop over the same SDK (stream, call the function, send the result),
 *   so the SDK's and the HTTP round's share of the figure shows, and `ratio` is toolgate's loop against it.
 * - agent.session_overhead_ms: a two-turn session (a Read, then the answer) through query() on a runtime made once and
 *   reused (as a server does), less a bare SDK loop that makes the same two requests and reads the file by hand.
 *   "The same" is byte for byte: the bare loop takes the model, max_tokens, system prompt, tools array (19 tools,
 *   ~35 KB) and first user message from the request toolgate sent (the first request is the same in every pair), moves the cache breakpoint to the
 *   last message as toolgate does and formats the file as Read does, and the bench fails if any request body differs
 *   from toolgate's — so the figure is toolgate's own work, not the size of what it sends. Each loop is handed an SDK
 *   client made before its clock starts, as query() is, and the event loop settles before each leg. Median of 100
 *   paired sessions after 10 warm-up pairs, each session on its own scripted server; which of the pair runs first
 *   alternates, as the first pays for what the last pair left behind. agent.session_overhead_vs_one_tool_ms: the same sessions
 *   against the earlier baseline, a bare loop sending one small Read tool and no system prompt (kept so figures from
 *   before the same-bytes baseline stay comparable; that loop no longer makes its client inside its clock, ~0.1 ms).
 *   agent.session_ms: the query() session itself (baseline: the same-bytes loop's).
 * - agent.first_session_overhead_ms: the session a script that runs one query() and exits pays (the common case):
 *   toolgate/agent-sdk's query() from dist/ in a fresh process, less the same two requests by hand on the bare SDK in
 *   another fresh process (bench/fixtures/first-session.mjs; every body checked to be toolgate's byte for byte), each
 *   clock from the call that starts the session to the answer, after the imports; median of paired differences, which
 *   of the pair runs first alternating. agent.first_session_cpu_overhead_ms: the same pairs in CPU time (user + system
 *   of the process inside the clock), steadier than wall time on a loaded machine. agent.first_session_ms: toolgate's
 *   (baseline: the bare loop's).
 * - cli.cold_start_ratio: `toolgate run --help` and `toolgate check Bash …` (the bundled CLI, built if missing) against
 *   `node -e 0`, median of 7 starts each; the value is the worse of the two ratios.
 */
import Anthropic from '@anthropic-ai/sdk';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as z from 'zod';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import { startScriptedServer, type RecordedRequest, type ScriptedTurn, type WireEvent } from '../src/testing/index.js';
import { buildTool } from '../src/tool/build-tool.js';
import { ensureBuilt, median, type Benchmark } from './lib.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const TURNS = 40;

async function loopFigures() {
  const callAt = new Map<string, number>();
  const doneAt = new Map<string, number>();
  const Probe = buildTool({
    name: 'Probe',
    inputSchema: z.object({ n: z.number() }),
    maxResultSizeChars: 1_000,
    prompt: async () => 'Records when it was called.',
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    call: async ({ n }) => {
      callAt.set(String(n), performance.now());
      doneAt.set(String(n), performance.now());
      return { data: 'ok' };
    },
  });
  const stopAt = new Map<string, number>();
  const endAt: number[] = [];
  const requestAt: number[] = [];
  const turns: ScriptedTurn[] = [];
  for (let i = 0; i < TURNS; i++) {
    turns.push(() => {
      requestAt.push(performance.now());
      return { content: [{ type: 'text', text: 'probe' }, { type: 'tool_use', name: 'Probe', id: `toolu_probe_${i}`, input: { n: i } }, { type: 'wait', until: () => doneAt.has(String(i)), pollMs: 1 }] };
    });
  }
  turns.push(() => {
    requestAt.push(performance.now());
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const onEvent = (event: WireEvent) => {
    if (event.type === 'content_block_stop' && event.data.index === 1) stopAt.set(String(stopAt.size), event.at);
    if (event.type === 'message_stop') endAt.push(event.at);
  };
  const server = await startScriptedServer(turns, { onEvent });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-agent-'));
  const runtime = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, 'session'), tools: [Probe], rules: { allow: ['Probe'] }, settings: { sources: [] } });
  try {
    const client = new Anthropic({ apiKey: 'bench', baseURL: server.url });
    for await (const event of query({ runtime, client, prompt: 'go', model: 'claude-sonnet-4-6', maxTurns: TURNS + 1 })) {
      if (event.type === 'result' && event.result.stopReason !== 'end_turn') throw new Error(`bench loop ended with ${event.result.stopReason}: ${event.result.error}`);
    }
  } finally {
    await runtime.dispose();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const startDelays = [...stopAt.entries()].map(([n, at]) => callAt.get(n)! - at);
  // Skip the first turns: module loading and JIT warm-up are not the loop's steady cost.
  const overheads = endAt.slice(0, TURNS).map((end, i) => requestAt[i + 1]! - end);
  return { start: median(startDelays.slice(5)), overhead: median(overheads.slice(5)) };
}

/** The same turns through the smallest loop a person could write on the SDK: what the SDK and HTTP cost alone. */
async function bareLoopOverhead(): Promise<number> {
  const endAt: number[] = [];
  const requestAt: number[] = [];
  const done = new Set<number>();
  const turns: ScriptedTurn[] = [];
  for (let i = 0; i < TURNS; i++) {
    turns.push(() => {
      requestAt.push(performance.now());
      return { content: [{ type: 'text', text: 'probe' }, { type: 'tool_use', name: 'Probe', id: `toolu_probe_${i}`, input: { n: i } }, { type: 'wait', until: () => done.has(i), pollMs: 1 }] };
    });
  }
  turns.push(() => {
    requestAt.push(performance.now());
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const server = await startScriptedServer(turns, { onEvent: (e) => e.type === 'message_stop' && endAt.push(e.at) });
  try {
    const client = new Anthropic({ apiKey: 'bench', baseURL: server.url });
    const tools: Anthropic.Tool[] = [{ name: 'Probe', description: 'Records when it was called.', input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'go' }];
    for (let turn = 0; turn <= TURNS; turn++) {
      const stream = client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 1024, tools, messages });
      // Like the real loop, the call starts when its block is complete, not at the end of the message.
      stream.on('contentBlock', (block) => block.type === 'tool_use' && done.add((block.input as { n: number }).n));
      const message = await stream.finalMessage();
      const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      if (uses.length === 0) break;
      messages.push({ role: 'assistant', content: message.content });
      messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: 'ok' })) });
    }
  } finally {
    await server.close();
  }
  const overheads = endAt.slice(0, TURNS).map((end, i) => requestAt[i + 1]! - end);
  return median(overheads.slice(5));
}

// A 0.1 ms change needs many pairs: one pair's difference spreads over ±0.5 ms on a 2-core machine.
const SESSIONS = 100;
const WARMUP_SESSIONS = 10;

function twoTurnScript(file: string, id: string): ScriptedTurn[] {
  return [
    () => ({ content: [{ type: 'tool_use', name: 'Read', id, input: { file_path: file } }] }),
    () => ({ content: [{ type: 'text', text: 'It says hello.' }] }),
  ];
}

async function sessionFigures() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-session-'));
  const file = path.join(dir, 'notes.txt');
  writeFileSync(file, 'hello\n');
  const runtime = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, 'session'), settings: { sources: [] } });
  const ours: number[] = [];
  const same: number[] = [];
  const oneTool: number[] = [];
  // The first request is the same in every pair (the tool_use id is in the second): the bare loop takes it from the
  // last pair's, so that it can also run first.
  let template: SameRequestTemplate | undefined;
  try {
    for (let i = 0; i < SESSIONS + WARMUP_SESSIONS; i++) {
      // One tool_use id per pair: the bare loop's second request can then be toolgate's byte for byte.
      const id = `toolu_s${i}`;
      const a = await startScriptedServer(twoTurnScript(file, id));
      const b = await startScriptedServer(twoTurnScript(file, id));
      const c = await startScriptedServer(twoTurnScript(file, id));
      try {
        const legOurs = async () => {
          const client = new Anthropic({ apiKey: 'bench', baseURL: a.url });
          await settle();
          const t = performance.now();
          for await (const event of query({ runtime, client, prompt: 'What does notes.txt say?', model: 'claude-sonnet-4-6', maxTurns: 3 })) {
            if (event.type === 'result' && event.result.stopReason !== 'end_turn') throw new Error(`session ended with ${event.result.stopReason}: ${event.result.error}`);
          }
          const q = performance.now() - t;
          template = a.messageRequests[0]!.body as SameRequestTemplate;
          return q;
        };
        const legSame = async () => {
          // Each loop is handed its client, as query() is: making one is not part of a session.
          const sameClient = new Anthropic({ apiKey: 'bench', baseURL: b.url });
          await settle();
          const t = performance.now();
          await bareSameTwoTurns(sameClient, template!);
          return performance.now() - t;
        };
        // Which leg goes first alternates: the first of a pair pays for whatever the last pair left (GC, sockets).
        let q: number;
        let s: number;
        if (template === undefined || i % 2 === 0) {
          q = await legOurs();
          s = await legSame();
        } else {
          s = await legSame();
          q = await legOurs();
        }
        const oneToolClient = new Anthropic({ apiKey: 'bench', baseURL: c.url });
        await settle();
        const t = performance.now();
        await bareTwoTurns(oneToolClient);
        const h = performance.now() - t;
        sameBytes(a.messageRequests, b.messageRequests);
        if (i >= WARMUP_SESSIONS) {
          ours.push(q);
          same.push(s);
          oneTool.push(h);
        }
      } finally {
        await a.close();
        await b.close();
        await c.close();
      }
    }
  } finally {
    await runtime.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    ours: median(ours),
    same: median(same),
    overhead: median(ours.map((q, i) => q - same[i]!)),
    overheadVsOneTool: median(ours.map((q, i) => q - oneTool[i]!)),
  };
}

/**
 * Lets what the last leg left behind run before the next is timed: the previous pair's connections closing (its
 * servers close them all), a transcript's last writes. Without it the first leg of every pair, toolgate's, paid for them.
 */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 2));
}

/** What toolgate's first request holds besides the conversation's later turns. */
interface SameRequestTemplate {
  readonly model: string;
  readonly max_tokens: number;
  readonly system: Anthropic.TextBlockParam[];
  readonly tools: Anthropic.Tool[];
  readonly messages: [Anthropic.MessageParam & { content: Anthropic.ContentBlockParam[] }];
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * The same two requests by hand, as a person writing a loop with prompt caching would: toolgate's system prompt,
 * tools and first message; the breakpoint on the last block of the last message only; the file read and numbered as
 * Read numbers it.
 */
async function bareSameTwoTurns(client: Anthropic, template: SameRequestTemplate): Promise<void> {
  const { model, max_tokens, system, tools } = template;
  const prompt = template.messages[0];
  const history: { role: 'user' | 'assistant'; content: Anthropic.ContentBlockParam[] }[] = [
    { role: 'user', content: prompt.content.map(({ cache_control: _drop, ...block }: Anthropic.ContentBlockParam & { cache_control?: unknown }) => block as Anthropic.ContentBlockParam) },
  ];
  for (;;) {
    const messages = history.map((m, i) => (i < history.length - 1 ? m : { ...m, content: m.content.map((b, j) => (j < m.content.length - 1 ? b : { ...b, cache_control: EPHEMERAL })) }));
    const message = await client.messages.stream({ model, max_tokens, system, tools, messages }).finalMessage();
    const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    if (uses.length === 0) return;
    history.push({ role: 'assistant', content: uses.map((u) => ({ type: 'tool_use', id: u.id, name: u.name, input: u.input })) });
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const u of uses) {
      const text = await readFile((u.input as { file_path: string }).file_path, 'utf8');
      // Claude Code's text: every line numbered, the empty line after a final line break included, the end trimmed.
      const numbered = text.split('\n').map((line, n) => `${n + 1}\t${line}`).join('\n');
      results.push({ type: 'tool_result', tool_use_id: u.id, content: numbered.replace(/\s+$/, '') });
    }
    history.push({ role: 'user', content: results });
  }
}

/** The baseline's claim, checked: every request body the bare loop sent is toolgate's, byte for byte. */
function sameBytes(ours: readonly RecordedRequest[], bare: readonly RecordedRequest[]): void {
  if (ours.length !== bare.length || ours.some((r, i) => r.rawBody !== bare[i]!.rawBody)) {
    const at = ours.findIndex((r, i) => r.rawBody !== bare[i]?.rawBody);
    const [x, y] = [ours[at]?.rawBody ?? '', bare[at]?.rawBody ?? ''];
    let d = 0;
    while (d < x.length && x[d] === y[d]) d++;
    throw new Error(`the same-requests baseline sent other bytes than toolgate (request ${at + 1}, from character ${d}): ${JSON.stringify(x.slice(d - 40, d + 80))} vs ${JSON.stringify(y.slice(d - 40, d + 80))}`);
  }
}

/** The earlier baseline: the two requests with one small tool and no system prompt, the file sent as read. */
async function bareTwoTurns(client: Anthropic): Promise<void> {
  const tools: Anthropic.Tool[] = [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } }];
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What does notes.txt say?' }];
  for (;;) {
    const message = await client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 1024, tools, messages }).finalMessage();
    const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    if (uses.length === 0) return;
    messages.push({ role: 'assistant', content: message.content });
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const u of uses) results.push({ type: 'tool_result', tool_use_id: u.id, content: await readFile((u.input as { file_path: string }).file_path, 'utf8') });
    messages.push({ role: 'user', content: results });
  }
}

const run = promisify(execFile);
const FIRST_SESSION_PAIRS = 20;

/** One fresh process running one session (bench/fixtures/first-session.mjs); its wall and CPU time inside the clock. */
async function firstSession(mode: 'ours' | 'bare', url: string, dir: string, template: string): Promise<{ ms: number; cpuMs: number }> {
  const { stdout } = await run(process.execPath, [path.join(repoRoot, 'bench/fixtures/first-session.mjs'), mode, url, dir, template], { cwd: dir });
  return JSON.parse(stdout) as { ms: number; cpuMs: number };
}

async function firstSessionFigures() {
  ensureBuilt();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-first-session-'));
  const file = path.join(dir, 'notes.txt');
  writeFileSync(file, 'hello\n');
  mkdirSync(path.join(dir, 'home'));
  const template = path.join(dir, 'first-request.json');
  const script = () => twoTurnScript(file, 'toolu_first');
  const ours: { ms: number; cpuMs: number }[] = [];
  const bare: { ms: number; cpuMs: number }[] = [];
  try {
    // The bare loop's first request is toolgate's: taken from a session run before the pairs.
    const first = await startScriptedServer(script());
    try {
      await firstSession('ours', first.url, dir, template);
      writeFileSync(template, first.messageRequests[0]!.rawBody);
    } finally {
      await first.close();
    }
    for (let i = 0; i < FIRST_SESSION_PAIRS; i++) {
      const a = await startScriptedServer(script());
      const b = await startScriptedServer(script());
      try {
        if (i % 2 === 0) {
          ours.push(await firstSession('ours', a.url, dir, template));
          bare.push(await firstSession('bare', b.url, dir, template));
        } else {
          bare.push(await firstSession('bare', b.url, dir, template));
          ours.push(await firstSession('ours', a.url, dir, template));
        }
        sameBytes(a.messageRequests, b.messageRequests);
      } finally {
        await a.close();
        await b.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    ours: median(ours.map((r) => r.ms)),
    bare: median(bare.map((r) => r.ms)),
    overhead: median(ours.map((r, i) => r.ms - bare[i]!.ms)),
    cpuOverhead: median(ours.map((r, i) => r.cpuMs - bare[i]!.cpuMs)),
  };
}

function timeStarts(args: readonly string[], runs = 7): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    execFileSync(process.execPath, args, { cwd: repoRoot, stdio: 'ignore' });
    times.push(performance.now() - start);
  }
  return median(times);
}

export const benchmarks: Benchmark[] = [
  {
    group: 'agent',
    names: ['agent.tool_start_after_block_stop_ms', 'agent.turn_overhead_ms'],
    async run() {
      const { start, overhead } = await loopFigures();
      const bare = await bareLoopOverhead();
      return [
        { name: 'agent.tool_start_after_block_stop_ms', value: start, unit: 'ms' },
        { name: 'agent.turn_overhead_ms', value: overhead, unit: 'ms', baseline: bare },
      ];
    },
  },
  {
    group: 'agent',
    names: ['agent.session_overhead_ms', 'agent.session_overhead_vs_one_tool_ms', 'agent.session_ms'],
    async run() {
      const { ours, same, overhead, overheadVsOneTool } = await sessionFigures();
      return [
        { name: 'agent.session_overhead_ms', value: overhead, unit: 'ms' },
        { name: 'agent.session_overhead_vs_one_tool_ms', value: overheadVsOneTool, unit: 'ms' },
        { name: 'agent.session_ms', value: ours, unit: 'ms', baseline: same },
      ];
    },
  },
  {
    group: 'agent',
    names: ['agent.first_session_overhead_ms', 'agent.first_session_cpu_overhead_ms', 'agent.first_session_ms'],
    async run() {
      const { ours, bare, overhead, cpuOverhead } = await firstSessionFigures();
      return [
        { name: 'agent.first_session_overhead_ms', value: overhead, unit: 'ms' },
        { name: 'agent.first_session_cpu_overhead_ms', value: cpuOverhead, unit: 'ms' },
        { name: 'agent.first_session_ms', value: ours, unit: 'ms', baseline: bare },
      ];
    },
  },
  {
    group: 'cli',
    names: ['cli.cold_start_ratio', 'cli.cold_start_run_help_ms', 'cli.cold_start_check_ms'],
    async run() {
      ensureBuilt();
      const bin = path.join(repoRoot, 'bin/toolgate.js');
      timeStarts(['-e', '0'], 2); // warm the file cache
      const baseline = timeStarts(['-e', '0']);
      const runHelp = timeStarts([bin, 'run', '--help']);
      const check = timeStarts([bin, 'check', 'Bash', '{"command":"ls"}']);
      return [
        { name: 'cli.cold_start_run_help_ms', value: runHelp, unit: 'ms', baseline },
        { name: 'cli.cold_start_check_ms', value: check, unit: 'ms', baseline },
        { name: 'cli.cold_start_ratio', value: Math.max(runHelp, check) / baseline, unit: 'x' },
      ];
    },
  },
];
