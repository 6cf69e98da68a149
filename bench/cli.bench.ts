/**
 * Whole-process start-up of what people run, the `toolgate` command as installed (bin/toolgate.js and the CLI bundle,
 * built if missing), each run paired with a `node -e 0` run right before it (baseline: their median; ratio: the
 * issue's "× node"). Median of 11 pairs after a warm-up pair.
 * - cli.start.exec_bash_ms: `toolgate exec` of one Bash `echo hi` (allowed by --allow), from spawn to exit.
 * - cli.start.exec_read_ms: `toolgate exec` of one Read of a small file.
 * - cli.start.check_bash_ms: `toolgate check Bash '{"command":"git status"}'`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, median, type Benchmark, type BenchFigure } from './lib.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const PAIRS = 11;

function timeRun(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [...args], { cwd, env, stdio: ['ignore', 'ignore', 'ignore'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

async function startFigures(): Promise<BenchFigure[]> {
  ensureBuilt();
  const bin = path.join(repoRoot, 'bin/toolgate.js');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-cli-'));
  const env = { ...process.env, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') };
  writeFileSync(path.join(dir, 'small.txt'), 'alpha\nbeta\n');
  writeFileSync(path.join(dir, 'bash.json'), JSON.stringify({ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }));
  writeFileSync(path.join(dir, 'read.json'), JSON.stringify({ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: path.join(dir, 'small.txt') } }));
  const cases: [string, string[]][] = [
    ['cli.start.exec_bash_ms', [bin, 'exec', '--allow', 'Bash(echo hi)', 'bash.json']],
    ['cli.start.exec_read_ms', [bin, 'exec', 'read.json']],
    ['cli.start.check_bash_ms', [bin, 'check', 'Bash', '{"command":"git status"}']],
  ];
  try {
    const out: BenchFigure[] = [];
    for (const [name, args] of cases) {
      const runs: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i <= PAIRS; i++) {
        const b = await timeRun(['-e', '0'], env, dir);
        const r = await timeRun(args, env, dir);
        if (i === 0) continue; // warm-up pair: file cache
        bare.push(b);
        runs.push(r);
      }
      out.push({ name, value: median(runs), unit: 'ms', baseline: median(bare) });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [
  { group: 'cli', names: ['cli.start.exec_bash_ms', 'cli.start.exec_read_ms', 'cli.start.check_bash_ms'], run: startFigures },
];
