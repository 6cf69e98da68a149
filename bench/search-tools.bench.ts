/**
 * Grep and Glob against the raw rg process they wrap, on one generated 50,000-file tree (made once under the OS temp
 * folder, shared by every benchmark here, deleted when the process exits). Each sample alternates tool and rg, so
 * both see the same page-cache and machine-load conditions; the figures are medians.
 *
 * - grep.vs_rg_ratio: Grep (default mode, files_with_matches: rg -l, then every match stat'd and sorted newest
 *   first) vs `rg` with exactly the flags the tool passes, output read to the end.
 * - grep.content_vs_rg_ratio: content mode with head_limit 0 (every line read, nothing stops early) vs the same rg.
 * - glob.vs_rg_files_ratio: Glob `**\/*.ts` (rg --files, a stat per match, newest 100 kept) vs `rg --files --glob`
 *   with the tool's listing flags at rg's default thread count.
 * - glob.vs_rg_files_same_threads_ratio: the same, against rg at the thread count the tool pins (cores − 1, leaving
 *   one to the stats): the stricter comparison where rg's walk alone is faster than at its default.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getEmptyToolPermissionContext } from '../src/tool/permission-types.js';
import { createToolUseContext, type ToolUseContext } from '../src/tool/tool-use-context.js';
import type { AssistantMessage, CanUseToolFn } from '../src/tool/tool.js';
import { GlobTool } from '../src/tools/glob/index.js';
import { globCommandArgs, planGlob } from '../src/tools/glob/glob-files.js';
import { GrepTool, type GrepInput } from '../src/tools/grep/index.js';
import { grepCommandArgs } from '../src/tools/grep/grep-search.js';
import { getRipgrep } from '../src/tools/shared/ripgrep.js';
import { readDenyFilter } from '../src/tools/shared/search-path.js';
import { median, type Benchmark, type BenchFigure } from './lib.js';

const FILES = 50_000;
const SAMPLES = 11;

let treePromise: Promise<string> | undefined;

/** The tree: 10 × 10 × 25 folders, a realistic mix of extensions, 20–60 lines a file, ~1 in 30 files with a TODO. */
function tree(): Promise<string> {
  treePromise ??= (async () => {
    const root = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'toolgate-search-bench-'));
    process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
    const exts = ['ts', 'ts', 'ts', 'ts', 'tsx', 'js', 'js', 'json', 'md', 'py', 'css', 'ts'];
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const dirs: string[] = [];
    for (let a = 0; a < 10; a++) for (let b = 0; b < 10; b++) for (let c = 0; c < 25; c++) dirs.push(`pkg${a}/mod${b}/d${c}`);
    for (const d of dirs) fs.mkdirSync(path.join(root, d), { recursive: true });
    // A .git folder with objects, as in a real checkout: both tools must skip it.
    fs.mkdirSync(path.join(root, '.git/objects/ab'), { recursive: true });
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(root, `.git/objects/ab/obj${i}.ts`), 'TODO(perf) in git\n');
    const now = Date.now() / 1000;
    for (let n = 0; n < FILES; n++) {
      const ext = exts[Math.floor(rnd() * exts.length)]!;
      const lines: string[] = [];
      const count = 20 + Math.floor(rnd() * 40);
      const todoAt = rnd() < 1 / 30 ? Math.floor(rnd() * count) : -1;
      for (let i = 0; i < count; i++) {
        lines.push(i === todoAt ? `  // TODO(perf): revisit handler ${n}` : `  const value_${i} = compute(${n}, ${i}); // line ${i}`);
      }
      const file = path.join(root, dirs[n % dirs.length]!, `file${n}.${ext}`);
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const t = now - Math.floor(rnd() * 1e6);
      fs.utimesSync(file, t, t);
    }
    return root;
  })();
  return treePromise;
}

function context(root: string): ToolUseContext {
  return createToolUseContext({ tools: [], permissionContext: getEmptyToolPermissionContext(root), sessionDir: os.tmpdir() });
}

const noCanUse = (async () => ({ behavior: 'allow' })) as CanUseToolFn;
const noMessage = { role: 'assistant', content: [] } as AssistantMessage;

/** The raw process: spawn, read stdout to the end, wait for exit. */
async function rawRg(args: readonly string[], cwd: string): Promise<number> {
  const rg = await getRipgrep();
  const start = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(rg.path, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', () => {});
    child.on('error', reject);
    child.on('close', () => resolve());
  });
  return performance.now() - start;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Alternating samples after one warm-up of each: [tool median, rg median] in ms. */
async function compare(tool: () => Promise<unknown>, rg: () => Promise<number>): Promise<[number, number]> {
  await tool();
  await rg();
  const toolMs: number[] = [];
  const rgMs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    if (i % 2 === 0) {
      toolMs.push(await timed(tool));
      rgMs.push(await rg());
    } else {
      rgMs.push(await rg());
      toolMs.push(await timed(tool));
    }
  }
  return [median(toolMs), median(rgMs)];
}

async function grepFigure(name: string, input: GrepInput): Promise<BenchFigure> {
  const root = await tree();
  const ctx = context(root);
  const args = grepCommandArgs({ input, target: root, deny: readDenyFilter(ctx.getAppState().toolPermissionContext, root) });
  const [value, baseline] = await compare(
    () => GrepTool.call(input, ctx, noCanUse, noMessage),
    () => rawRg(args, root),
  );
  return { name, value, unit: 'ms', baseline };
}

export const benchmarks: Benchmark[] = [
  {
    group: 'search-tools',
    names: ['grep.vs_rg_ratio'],
    async run() {
      return [await grepFigure('grep.vs_rg_ratio', { pattern: 'TODO\\(perf\\)' })];
    },
  },
  {
    group: 'search-tools',
    names: ['grep.content_vs_rg_ratio'],
    async run() {
      return [await grepFigure('grep.content_vs_rg_ratio', { pattern: 'TODO\\(perf\\)', output_mode: 'content', head_limit: 0 })];
    },
  },
  {
    group: 'search-tools',
    names: ['glob.vs_rg_files_ratio', 'glob.vs_rg_files_same_threads_ratio'],
    async run() {
      const root = await tree();
      const ctx = context(root);
      const pattern = '**/*.ts';
      const args = globCommandArgs({
        plan: planGlob(pattern, root),
        respectGitignore: false,
        includeVcs: false,
        deny: readDenyFilter(ctx.getAppState().toolPermissionContext, root),
      });
      const threads = args.indexOf('--threads');
      const defaultThreads = args.filter((_, i) => i !== threads && i !== threads + 1);
      const tool = () => GlobTool.call({ pattern }, ctx, noCanUse, noMessage);
      const [value, baseline] = await compare(tool, () => rawRg(defaultThreads, root));
      const [value2, baseline2] = await compare(tool, () => rawRg(args, root));
      return [
        { name: 'glob.vs_rg_files_ratio', value, unit: 'ms', baseline },
        { name: 'glob.vs_rg_files_same_threads_ratio', value: value2, unit: 'ms', baseline: baseline2 },
      ];
    },
  },
];
