/**
 * `permissions.batch_per_s`: decisions per second through `toolgate check --batch` (bin/toolgate.js as installed) — spawned once, 1,000
 * mixed requests (file tools across modes and rule sets, symlinks, WebFetch, MCP, Bash) piped in. Process start-up
 * (module loading, the bash parser's wasm) is excluded: a first batch is answered before the clock starts.
 *   permissions.batch_per_s       — the timed 1,000 after a 1,000-request warm-up (JIT-compiled, steady state);
 *   permissions.batch_cold_per_s  — the first 1,000 requests after start-up (only 16 requests answered before);
 *   permissions.batch_startup_ms  — spawn to the first 16 answers.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ensureBuilt, round, type Benchmark } from './lib.js';

const repoRoot = path.resolve(import.meta.dirname, '..');

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
  const calls: { tool: string; input: Record<string, unknown> }[] = [
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

async function measure(): Promise<{ perSecond: number; coldPerSecond: number; startupMs: number }> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-bench-perm-')));
  fs.mkdirSync(path.join(dir, 'proj', 'src', 'deep'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'proj', 'src', 'a.ts'), '');
  fs.writeFileSync(path.join(dir, 'proj', '.env'), 'X=1');
  fs.symlinkSync(path.join(dir, 'proj', '.env'), path.join(dir, 'proj', 'link'));
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
];
