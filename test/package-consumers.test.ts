/**
 * The package as a program installs it: packed (`npm pack`), unpacked into a consumer's node_modules beside its
 * dependencies, and loaded the ways the Claude Agent SDK can be — `require` from a CommonJS program, `import` from an
 * ES module, `tsx` running a .ts file in a package without `"type": "module"`, and the TypeScript compiler under the
 * node16 (nodenext for a CommonJS file), bundler and node10 resolutions. The dependencies are links into this
 * checkout's node_modules (no network): only the ones package.json declares, so a module the build needs but the
 * package does not declare fails here as it would for a user.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../src/testing/index.js';
import { repoRoot } from './helpers/cli.js';

let dir: string;
const modules = path.join(repoRoot, 'node_modules');
const tsc = path.join(modules, 'typescript/bin/tsc');
const tsx = path.join(modules, 'tsx/dist/cli.mjs');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(argv: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: dir, env: { ...process.env, ...env }, timeout: 280_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Links a dependency of the package into the consumer's node_modules (`@scope/name` inside its scope folder). */
function linkDependency(name: string): void {
  const target = path.join(modules, name);
  if (!existsSync(target)) throw new Error(`${name} is not installed in ${modules}`);
  const link = path.join(dir, 'node_modules', name);
  mkdirSync(path.dirname(link), { recursive: true });
  symlinkSync(target, link);
}

beforeAll(() => {
  // CI builds it through `npm ci` (the prepare script); a checkout that has not built yet builds here.
  if (!existsSync(path.join(repoRoot, 'dist/agent-sdk/index.d.ts'))) execFileSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'ignore' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-consumer-'));
  // --ignore-scripts: `prepare` would build again; the build is the one above.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
  ) as { filename: string }[];
  const unpacked = path.join(dir, 'node_modules/toolgate');
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['xzf', path.join(dir, packed[0]!.filename), '-C', unpacked, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(path.join(unpacked, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies)) linkDependency(name);
  linkDependency('@types/node');
  // No "type": "module": .js and .ts files here are CommonJS, as in most programs that `require`.
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The body of a one-turn program, after its loading line: prints the kinds of the messages and the result's text. */
const session = `
  const out = [];
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, ANTHROPIC_BASE_URL: process.env.ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY: 'sk-test-key' };
  for await (const m of query({ prompt: 'say hello', options: { cwd: process.cwd(), model: 'claude-sonnet-4-6', settingSources: [], env } })) {
    out.push(m.type === 'result' ? m.type + ':' + m.subtype + ':' + m.result : m.type);
  }
  console.log(JSON.stringify(out));
`;

/** Runs a program against a scripted model that answers its one turn with `answer`. */
async function oneTurn(argv: readonly string[], answer: string): Promise<{ run: Run; requests: number }> {
  const server = await startScriptedServer([{ content: [{ type: 'text', text: answer }] }]);
  try {
    const home = mkdtempSync(path.join(os.tmpdir(), 'toolgate-consumer-home-'));
    try {
      const result = await run(argv, { ANTHROPIC_BASE_URL: server.url, HOME: home });
      return { run: result, requests: server.messageRequests.length };
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  } finally {
    await server.close();
  }
}

/**
 * stderr without the one notice Node 22.12 prints (once) for require() of an ES module, as it does for the Agent SDK's;
 * 20.19 and 22.13+ print none.
 */
const stderrOf = (r: Run) =>
  r.stderr
    .split('\n')
    .filter((line) => !/ExperimentalWarning: CommonJS module .* is loading ES Module|Support for loading ES Module in require\(\)|node --trace-warnings/.test(line))
    .join('\n')
    .trim();

function expectOneTurn(result: { run: Run; requests: number }, answer: string): void {
  expect(stderrOf(result.run)).toBe('');
  expect(result.run.code).toBe(0);
  expect(result.requests).toBe(1);
  const kinds = JSON.parse(result.run.stdout.trim().split('\n').at(-1)!) as string[];
  expect(kinds[0]).toBe('system');
  expect(kinds).toContain('assistant');
  expect(kinds.at(-1)).toBe(`result:success:${answer}`);
}

describe('toolgate/agent-sdk as a program loads it', { timeout: 120_000 }, () => {
  it('a CommonJS program: require() gives a query() that runs a turn against the model', async () => {
    writeFileSync(path.join(dir, 'program.cjs'), `const { query } = require('toolgate/agent-sdk');\n(async () => {${session}})().catch((e) => { console.error(e); process.exit(1); });\n`);
    expectOneTurn(await oneTurn(['program.cjs'], 'hello from require'), 'hello from require');
  });

  it('an ES module program: import gives the same', async () => {
    writeFileSync(path.join(dir, 'program.mjs'), `import { query } from 'toolgate/agent-sdk';\n${session}\n`);
    expectOneTurn(await oneTurn(['program.mjs'], 'hello from import'), 'hello from import');
  });

  it('tsx runs a .ts program in a package without "type": "module" (compiled to require calls)', async () => {
    writeFileSync(
      path.join(dir, 'program.ts'),
      `import { query, type SDKMessage } from 'toolgate/agent-sdk';\nasync function main(): Promise<void> {${session.replace('const out = [];', 'const out: string[] = [];').replace('(const m of', '(const m: SDKMessage of')}}\nvoid main();\n`,
    );
    expectOneTurn(await oneTurn([tsx, 'program.ts'], 'hello from tsx'), 'hello from tsx');
  });

  it('require() and import give the same module, not a second copy (one AbortError, one session state)', async () => {
    writeFileSync(
      path.join(dir, 'both.mjs'),
      "import { createRequire } from 'node:module';\nconst required = createRequire(import.meta.url)('toolgate/agent-sdk');\nconst imported = await import('toolgate/agent-sdk');\nconsole.log(JSON.stringify([required.AbortError === imported.AbortError, required.query === imported.query]));\n",
    );
    const both = await run(['both.mjs']);
    expect(stderrOf(both)).toBe('');
    expect(JSON.parse(both.stdout)).toEqual([true, true]);
  });

  it('require() and import of the main entry give the same names', async () => {
    writeFileSync(path.join(dir, 'names.cjs'), "console.log(JSON.stringify(Object.keys(require('toolgate')).sort()));\n");
    writeFileSync(path.join(dir, 'names.mjs'), "console.log(JSON.stringify(Object.keys(await import('toolgate')).sort()));\n");
    const [required, imported] = await Promise.all([run(['names.cjs']), run(['names.mjs'])]);
    expect(stderrOf(required)).toBe('');
    expect(imported.stderr).toBe('');
    const names = JSON.parse(required.stdout) as string[];
    expect(names.length).toBeGreaterThan(10);
    expect(names).toEqual(JSON.parse(imported.stdout));
  });
});

describe('its types resolve for a TypeScript consumer', { timeout: 300_000 }, () => {
  // The @ts-expect-error fails the compile if the types resolved to `any`. skipLibCheck as most programs have it: the
  // declarations' own check is the build's, and costs a compile four times this one's.
  const consumer = `import { query, type Options, type SDKMessage } from 'toolgate/agent-sdk';
import type { Tool } from 'toolgate';
// @ts-expect-error maxTurns is a number
export const wrong: Options = { maxTurns: 'one' };
export async function first(): Promise<SDKMessage | undefined> {
  for await (const m of query({ prompt: 'hi', options: { maxTurns: 1 } })) return m;
  return undefined;
}
export type AnyTool = Tool;
`;
  const compile = (file: string, module: string, resolution: string, extra: readonly string[] = []) => {
    writeFileSync(path.join(dir, file), consumer);
    return run([tsc, '--noEmit', '--strict', '--skipLibCheck', '--types', 'node', '--module', module, '--moduleResolution', resolution, ...extra, file]);
  };
  const clean = (r: Run) => expect(r.stdout + r.stderr).toBe('');

  // Under module node16 a CommonJS file may not import an ES module (TS1479) — TypeScript's model of Node 16, which the
  // Agent SDK's types meet the same way; nodenext is Node's present (require of ES modules), so the CommonJS file is
  // checked there.
  it('node16 (an ES module consumer)', async () => clean(await compile('consumer-node16.mts', 'node16', 'node16')));
  it('nodenext (a CommonJS consumer)', async () => clean(await compile('consumer-nodenext.ts', 'nodenext', 'nodenext')));
  it('bundler', async () => clean(await compile('consumer-bundler.ts', 'esnext', 'bundler')));
  // TypeScript 6 deprecates node10 but still resolves with it; the subpath is found through typesVersions.
  it('node10', async () => clean(await compile('consumer-node10.ts', 'commonjs', 'node10', ['--ignoreDeprecations', '6.0'])));
});
