/**
 * Layers, one way: a module imports only from its own layer, a lower one, or one of the same rank (settings and
 * testing sit side by side). Above them: the loop (agent), MCP, the durable machinery (distributed), then the session
 * floor every face stands on, then the faces. A tool that needs something from above gets it through
 * ToolUseContext. Every relative import (static, re-export and dynamic) of every non-test source file is checked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
const RANK: Readonly<Record<string, number>> = {
  tool: 0,
  permissions: 1,
  hooks: 2,
  execution: 3,
  tools: 4,
  registry: 5,
  settings: 6,
  testing: 6,
  agent: 7,
  mcp: 8,
  distributed: 9,
  // One session under the faces: SessionOptions and Session, over the loop, MCP and the durable backend.
  session: 10,
  // The Agent SDK's face: SDK options → SessionOptions, events → SDK messages; the CLI prints its messages.
  'agent-sdk': 11,
  ui: 12,
  cli: 13,
};
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test(-d)?\.tsx?$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((p) => !p.split(path.sep).includes('test-helpers'));
}

const layerOf = (file: string) => path.relative(SRC, file).split(path.sep)[0]!;

it('every layer under src/ has a rank', () => {
  const dirs = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  expect(dirs.filter((d) => !(d in RANK))).toEqual([]);
});

it('no module imports from a higher layer', () => {
  const upward: string[] = [];
  let checked = 0;
  for (const file of sources(SRC)) {
    const from = layerOf(file);
    if (!(from in RANK)) continue; // src/index.ts: the public entry, above everything
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = layerOf(path.resolve(path.dirname(file), (m[1] ?? m[2])!));
      checked++;
      if (to in RANK && RANK[to]! > RANK[from]!) upward.push(`${path.relative(SRC, file)} imports ${m[1] ?? m[2]} (${from} -> ${to})`);
    }
  }
  expect(checked).toBeGreaterThan(500);
  expect(upward).toEqual([]);
});

it('OpenTelemetry stays in src/agent/telemetry/, and its SDK is reached only by a dynamic import', () => {
  const offenders: string[] = [];
  let sdkModules = 0;
  for (const file of sources(SRC)) {
    const rel = path.relative(SRC, file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^import\s+(type\s+)?[^'"]*from\s*['"](@opentelemetry\/[^'"]+)['"]/gm)) {
      const typeOnly = m[1] !== undefined;
      if (!rel.startsWith(`agent${path.sep}telemetry${path.sep}`)) offenders.push(`${rel} imports ${m[2]} (only src/agent/telemetry/ may)`);
      else if (!typeOnly) sdkModules++;
    }
    // The module that loads the SDK is imported dynamically, so that a process with telemetry off never loads it.
    if (/import\s[^'"]*from\s*['"][^'"]*otel-sink\.js['"]/.test(text)) offenders.push(`${rel} imports otel-sink.js statically`);
  }
  expect(sdkModules).toBeGreaterThan(0);
  expect(offenders).toEqual([]);
});
