/**
 * File tools: reading 2,000 lines at the end of a 1 GB file through the Read tool (against `tail -n +N | head -n 2000`
 * in the same run, and the RSS it costs), and one Edit in a 50 MB file. Data is generated under os.tmpdir() and
 * deleted afterwards.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EditTool } from '../src/tools/edit/index.js';
import { ReadTool } from '../src/tools/read/index.js';
import { clearLineIndexCache } from '../src/tools/shared/line-index.js';
import { makeContext } from '../src/tools/shared/test-helpers/run-tool.js';
import type { AnyTool } from '../src/tool/tool.js';
import type { ToolUseContext } from '../src/tool/tool-use-context.js';
import { median, type Benchmark } from './lib.js';

const GB = 1024 * 1024 * 1024;
const WINDOW = 2000;
const RUNS = 5;

/** Writes `bytes` of varied text lines (a 4 MiB block of 20–140-byte lines, repeated); returns the line count. */
function generate(file: string, bytes: number): number {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 4 * 1024 * 1024; i++) {
    const line = `${i.toString(36)} ${'lorem ipsum dolor sit amet '.slice(0, i % 27)}${'x'.repeat((i * 7919) % 110)}\n`;
    lines.push(line);
    size += line.length;
  }
  const block = Buffer.from(lines.join(''));
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let count = 0;
  try {
    while (written + block.length <= bytes) {
      fs.writeSync(fd, block);
      written += block.length;
      count += lines.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return count;
}

function tailHead(file: string, startLine: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('sh', ['-c', `tail -n +${startLine} "$0" | head -n ${WINDOW} > /dev/null`, file], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`tail | head exited ${code}`));
      else resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
}

async function call(tool: AnyTool, input: Record<string, unknown>, ctx: ToolUseContext): Promise<unknown> {
  const result = await tool.call(input, ctx, async () => ({ behavior: 'allow', updatedInput: input }), { role: 'assistant', content: [] });
  return result.data;
}

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Peak RSS growth (MB) while `fn` runs, sampled every 2 ms. */
async function rssGrowthMb(fn: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return (peak - before) / (1024 * 1024);
}

export const benchmarks: Benchmark[] = [
  {
    group: 'file-tools',
    names: ['read.tail_1gb_ms', 'read.tail_1gb_warm_ms', 'read.tail_1gb_rss_mb'],
    async run() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-read-'));
      // 2,000 lines of this data are ~160,000 characters, over Read's default 25,000-token cap: raise the cap so the
      // tool returns the same 2,000 lines as `tail | head` (the cap only shortens the window; the scan is the cost).
      const savedCap = process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS;
      process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS = '100000';
      try {
        const file = path.join(dir, 'big.log');
        const lines = generate(file, GB);
        const startLine = lines - WINDOW + 1;
        const ctx = makeContext(dir);
        const input = { file_path: file, offset: startLine, limit: WINDOW };
        // Warm the page cache for both sides alike, and check the tool returns what tail does.
        await tailHead(file, startLine);
        const check = (await call(ReadTool, input, ctx)) as { file: { numLines: number; totalLines: number } };
        if (check.file.numLines !== WINDOW || check.file.totalLines !== lines) {
          throw new Error(`Read returned ${check.file.numLines} lines of ${check.file.totalLines}, expected ${WINDOW} of ${lines}`);
        }
        const tool: number[] = [];
        const base: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          base.push(await tailHead(file, startLine));
          clearLineIndexCache();
          tool.push(await timeMs(() => call(ReadTool, input, ctx)));
        }
        const warm: number[] = [];
        for (let i = 0; i < RUNS; i++) warm.push(await timeMs(() => call(ReadTool, input, ctx)));
        clearLineIndexCache();
        const rss = await rssGrowthMb(() => call(ReadTool, input, ctx));
        const baseline = median(base);
        return [
          { name: 'read.tail_1gb_ms', value: median(tool), unit: 'ms', baseline },
          { name: 'read.tail_1gb_warm_ms', value: median(warm), unit: 'ms', baseline },
          { name: 'read.tail_1gb_rss_mb', value: rss, unit: 'MB' },
        ];
      } finally {
        if (savedCap === undefined) delete process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS;
        else process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS = savedCap;
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  {
    group: 'file-tools',
    names: ['edit.50mb_ms'],
    async run() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-edit-'));
      try {
        const file = path.join(dir, 'big.txt');
        generate(file, 50 * 1024 * 1024);
        // Unique markers in the middle of the file, one per timed edit.
        const size = fs.statSync(file).size;
        const fd = fs.openSync(file, 'r+');
        for (let i = 0; i < RUNS; i++) fs.writeSync(fd, `\nMARKER_${i}_OLD\n`, Math.floor(size / 2) + i * 4096);
        fs.closeSync(fd);
        const ctx = makeContext(dir);
        // Edit needs the whole file read first (windows add up); one read with the token cap lifted does it here.
        const savedCap = process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS;
        process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS = String(100 * 1024 * 1024);
        try {
          await call(ReadTool, { file_path: file, offset: 1, limit: 10_000_000 }, ctx);
        } finally {
          if (savedCap === undefined) delete process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS;
          else process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS = savedCap;
        }
        if (ctx.readFileState.get(file)?.partial !== false) throw new Error('the setup read did not cover the file');
        const times: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          times.push(await timeMs(() => call(EditTool, { file_path: file, old_string: `MARKER_${i}_OLD`, new_string: `MARKER_${i}_NEW` }, ctx)));
        }
        if (!fs.readFileSync(file, 'utf8').includes(`MARKER_${RUNS - 1}_NEW`)) throw new Error('the edit did not land');
        return [{ name: 'edit.50mb_ms', value: median(times), unit: 'ms' }];
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
