/**
 * `permissions.batch_per_s`: decisions per second through `toolgate check --batch` (bin/toolgate.js as installed) — spawned once, 1,000
 * mixed requests (file tools across modes and rule sets, symlinks, WebFetch, MCP, Bash) piped in. Process start-up
 * (module loading, the bash parser's wasm) is excluded: a first batch is answered before the clock starts.
 *   permissions.batch_per_s       — the timed 1,000 after a 1,000-request warm-up (JIT-compiled, steady state);
 *   permissions.batch_cold_per_s  — the first 1,000 requests after start-up (only 16 requests answered before);
 *   permissions.batch_startup_ms  — spawn to the first 16 answers.
 * Lines that are all different, each starting with its own id as a suite's cases do (issue 38's targets), 20,000
 * timed after a 2,000-line warm-up in a fresh process each. A line equal to an earlier one but for its leading id
 * gets that answer again while its filesystem facts hold (check-batch.ts), so where calls repeat under new ids these
 * count re-checked answers, as batch_per_s does; batch_shared_fresh_per_s has every line decided afresh:
 *   permissions.batch_shared_rules_per_s   — every line under one shared rule set (target ≥ 50,000/s): 18 calls;
 *   permissions.batch_per_line_rules_per_s — every line brings a rule set of its own (half its rules common, half
 *                                            naming that line's own folders and commands: target ≥ 20,000/s), so
 *                                            every line is decided afresh;
 *   permissions.batch_distinct_lines_per_s — the mix above (three rule sets, five modes), every line distinct;
 *   permissions.batch_shared_fresh_per_s   — the shared-rules lines with the id last: no answer is reused, every
 *                                            line is a new decision (the figure batch_shared_rules_per_s was before
 *                                            answers were shared across ids);
 *   permissions.batch_long_rss_growth_mb   — resident memory after a long run of per-line rule sets, less the memory
 *                                            after its first 100,000 lines (flat: near 0). 300,000 lines;
 *                                            TOOLGATE_BENCH_LONG_LINES=1000000 for the issue's million.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ensureBuilt, round, type Benchmark } from './lib.js';

const repoRoot = path.resolve(import.meta.dirname, '..');

/** The calls of the mixed batch: file tools, links, WebFetch, MCP, Bash. */
function callsIn(proj: string): { tool: string; input: Record<string, unknown> }[] {
  return [
    { tool: 'Read', input: { file_path: path.join(proj, 'src', 'a.ts') } },
    { tool: 'Read', input: { file_path: path.join(proj, '.env') } },
    { tool: 'Read', input: { file_path: path.join(proj, 'link') } },
    { tool: 'Read', input: { file_path: '/etc/hosts' } },
    { tool: 'Edit', input: { file_path: path.join(proj, 'src', 'a.ts'), old_string: 'a', new_string: 'b' } },
    { tool: 'Write', input: { file_path: path.join(proj, '.git', 'config'), content: '' } },
    { tool: 'Write', input: { file_path: path.join(proj, 'src', 'deep', 'new.ts'), content: '' } },
    { tool: 'Glob', input: { pattern: '**/*.ts', path: proj } },
    { tool: 'Grep', input: { pattern: 'TODO', path: path.join(proj, 'src') } },
    { tool: 'WebFetch', input: { url: 'https://docs.example.com/x', prompt: 'p' } },
    { tool: 'WebFetch', input: { url: 'https://evil.com/', prompt: 'p' } },
    { tool: 'mcp__github__get_issue', input: { n: 1 } },
    { tool: 'Bash', input: { command: 'git status' } },
    { tool: 'Bash', input: { command: 'npm run test -- --watch=false && rg foo src | head -20' } },
    { tool: 'Bash', input: { command: 'git push origin main' } },
    { tool: 'Bash', input: { command: 'ls -la src > out.txt' } },
  ];
}

function makeRequests(dir: string, n: number): string[] {
  const proj = path.join(dir, 'proj');
  const home = path.join(dir, 'home');
  const ruleSets = [
    [],
    [
      { source: 'projectSettings', behavior: 'allow', rule: 'Edit(./src/**)' },
      { source: 'userSettings', behavior: 'deny', rule: 'Read(./.env)' },
      { source: 'projectSettings', behavior: 'allow', rule: 'Bash(npm run test:*)' },
      { source: 'localSettings', behavior: 'ask', rule: 'Bash(git push:*)' },
      { source: 'policySettings', behavior: 'deny', rule: 'WebFetch(domain:evil.com)' },
    ],
    [
      { source: 'projectSettings', behavior: 'allow', rule: 'WebFetch(domain:*.example.com)' },
      { source: 'projectSettings', behavior: 'allow', rule: 'mcp__github' },
      { source: 'userSettings', behavior: 'deny', rule: 'Read(~/.ssh/**)' },
      { source: 'userSettings', behavior: 'allow', rule: 'Bash(git status:*)' },
    ],
  ];
  const modes = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];
  const calls = callsIn(proj);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = calls[i % calls.length]!;
    out.push(
      JSON.stringify({
        ...c,
        cwd: proj,
        home,
        mode: modes[Math.floor(i / calls.length) % modes.length],
        rules: ruleSets[i % ruleSets.length],
      }),
    );
  }
  return out;
}

type Kind = 'shared' | 'own' | 'mix' | 'fresh';

/** A line of a batch whose every line differs: `kind` says where its rules come from. */
function distinctLine(dir: string, kind: Kind, i: number, mix: readonly string[]): string {
  if (kind === 'mix') return `{"id":${i},${mix[i % mix.length]!.slice(1)}`;
  if (kind === 'fresh') return `${distinctLine(dir, 'shared', i, mix).replace(/^\{"id":\d+,/, '{').slice(0, -1)},"id":${i}}`;
  const proj = path.join(dir, 'proj');
  const calls = [
    ...callsIn(proj),
    { tool: 'Write', input: { file_path: path.join(proj, 'src', 'deep', `new${i % 100}.ts`), content: '' } },
    { tool: 'Bash', input: { command: `npm run case${i % 7}` } },
  ];
  const rules =
    kind === 'shared'
      ? [
          { source: 'projectSettings', behavior: 'allow', rule: 'Edit(./src/**)' },
          { source: 'userSettings', behavior: 'deny', rule: 'Read(./.env)' },
          { source: 'projectSettings', behavior: 'allow', rule: 'Bash(npm run case1:*)' },
          { source: 'localSettings', behavior: 'ask', rule: 'Bash(git push:*)' },
          { source: 'policySettings', behavior: 'deny', rule: 'WebFetch(domain:evil.com)' },
        ]
      : [
          { source: 'userSettings', behavior: 'deny', rule: 'Read(./.env)' },
          { source: 'projectSettings', behavior: 'allow', rule: `Edit(./src/case${i}/**)` },
          { source: 'projectSettings', behavior: 'allow', rule: `Bash(npm run case${i}:*)` },
          { source: 'userSettings', behavior: 'deny', rule: `Read(~/secret${i}/**)` },
          { source: 'localSettings', behavior: 'ask', rule: 'Bash(git push:*)' },
        ];
  return JSON.stringify({ id: i, ...calls[i % calls.length]!, cwd: proj, home: path.join(dir, 'home'), mode: 'default', rules });
}

function makeProject(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-bench-perm-')));
  fs.mkdirSync(path.join(dir, 'proj', 'src', 'deep'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'proj', 'src', 'a.ts'), '');
  fs.writeFileSync(path.join(dir, 'proj', '.env'), 'X=1');
  fs.symlinkSync(path.join(dir, 'proj', '.env'), path.join(dir, 'proj', 'link'));
  return dir;
}

/** The resident memory of a process now, in MB (Linux; NaN elsewhere). */
function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * A fresh `check --batch` fed `warmup` lines, then `timed` lines (at most WINDOW unanswered, as a pipe would hold
 * them): decisions per second over the timed lines, and resident memory at `marks` (line counts after the warm-up).
 */
async function streamDistinct(kind: Kind, warmup: number, timed: number, marks: readonly number[] = []): Promise<{ perSecond: number; rss: number[] }> {
  const WINDOW = 4000;
  const CHUNK = 500;
  const dir = makeProject();
  const mix = makeRequests(dir, 16 * 15);
  ensureBuilt();
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/toolgate.js'), 'check', '--batch'], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const lines = readline.createInterface({ input: child.stdout });
    let answered = 0;
    let failure: string | undefined;
    let wake: (() => void) | undefined;
    lines.on('line', (l) => {
      if (failure === undefined && l.startsWith('{"error"')) failure = l;
      answered++;
      wake?.();
    });
    const until = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (failure !== undefined) reject(new Error(`bench request failed: ${failure}`));
          else if (answered >= n) resolve();
          else wake = check;
        };
        child.once('exit', () => reject(new Error('toolgate check --batch ended early')));
        check();
      });
    let sent = 0;
    const send = async (upTo: number) => {
      while (sent < upTo) {
        if (sent - answered >= WINDOW) await until(sent - WINDOW + CHUNK);
        let text = '';
        const end = Math.min(upTo, sent + CHUNK);
        for (; sent < end; sent++) text += `${distinctLine(dir, kind, sent, mix)}\n`;
        if (!child.stdin.write(text)) await new Promise((resolve) => child.stdin.once('drain', resolve));
      }
      await until(upTo);
    };
    await send(warmup);
    const rss: number[] = [];
    const t = performance.now();
    for (const mark of [...marks, timed]) {
      await send(warmup + mark);
      if (mark !== timed || marks.length > 0) rss.push(rssMb(child.pid!));
    }
    return { perSecond: timed / ((performance.now() - t) / 1000), rss };
  } finally {
    child.stdin.end();
    child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(): Promise<{ perSecond: number; coldPerSecond: number; startupMs: number }> {
  const dir = makeProject();
  // The command as installed (bin/toolgate.js and the CLI bundle, rebuilt here if stale), as a CI policy job runs it.
  ensureBuilt();
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/toolgate.js'), 'check', '--batch'], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const lines = readline.createInterface({ input: child.stdout });
    const iterator = lines[Symbol.asyncIterator]();
    const read = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const next = await iterator.next();
        if (next.done) throw new Error('toolgate check --batch ended early');
        if (next.value.startsWith('{"error"')) throw new Error(`bench request failed: ${next.value}`);
      }
    };
    const first = makeRequests(dir, 16);
    const t0 = performance.now();
    child.stdin.write(`${first.join('\n')}\n`);
    await read(first.length);
    const startupMs = performance.now() - t0;
    const timedBatch = async () => {
      const batch = makeRequests(dir, 1000);
      const t = performance.now();
      child.stdin.write(`${batch.join('\n')}\n`);
      await read(batch.length);
      return batch.length / ((performance.now() - t) / 1000);
    };
    const coldPerSecond = await timedBatch();
    const perSecond = await timedBatch();
    return { perSecond, coldPerSecond, startupMs };
  } finally {
    child.stdin.end();
    child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [
  {
    group: 'permissions',
    names: ['permissions.batch_per_s', 'permissions.batch_cold_per_s', 'permissions.batch_startup_ms'],
    async run() {
      const runs = [await measure(), await measure(), await measure()];
      const best = runs.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
      return [
        { name: 'permissions.batch_per_s', value: round(best.perSecond, 0), unit: 'decisions/s' },
        { name: 'permissions.batch_cold_per_s', value: round(Math.max(...runs.map((r) => r.coldPerSecond)), 0), unit: 'decisions/s' },
        { name: 'permissions.batch_startup_ms', value: round(Math.min(...runs.map((r) => r.startupMs)), 0), unit: 'ms' },
      ];
    },
  },
  {
    group: 'permissions',
    names: ['permissions.batch_shared_rules_per_s', 'permissions.batch_per_line_rules_per_s', 'permissions.batch_distinct_lines_per_s', 'permissions.batch_shared_fresh_per_s'],
    async run() {
      const best = async (kind: Kind) => {
        let top = 0;
        for (let i = 0; i < 3; i++) top = Math.max(top, (await streamDistinct(kind, 2000, 20_000)).perSecond);
        return round(top, 0);
      };
      return [
        { name: 'permissions.batch_shared_rules_per_s', value: await best('shared'), unit: 'decisions/s (20,000 distinct lines, one rule set)' },
        { name: 'permissions.batch_per_line_rules_per_s', value: await best('own'), unit: 'decisions/s (20,000 lines, each its own rule set)' },
        { name: 'permissions.batch_distinct_lines_per_s', value: await best('mix'), unit: 'decisions/s (20,000 distinct lines, mixed)' },
        { name: 'permissions.batch_shared_fresh_per_s', value: await best('fresh'), unit: 'decisions/s (20,000 lines, one rule set, each decided afresh)' },
      ];
    },
  },
  {
    group: 'permissions',
    names: ['permissions.batch_long_rss_growth_mb', 'permissions.batch_long_per_s'],
    async run() {
      const lines = Number(process.env.TOOLGATE_BENCH_LONG_LINES ?? 300_000);
      const marks = [100_000, 200_000, 300_000, 500_000, 750_000].filter((m) => m < lines);
      const { perSecond, rss } = await streamDistinct('own', 2000, lines, marks);
      return [
        { name: 'permissions.batch_long_rss_growth_mb', value: round(rss[rss.length - 1]! - rss[0]!, 1), unit: `MB (RSS at ${[...marks, lines].map((m) => `${m / 1000}k`).join('/')} lines: ${rss.map((r) => round(r, 0)).join('/')} MB)` },
        { name: 'permissions.batch_long_per_s', value: round(perSecond, 0), unit: `decisions/s (${lines} lines, each its own rule set)` },
      ];
    },
  },
];
