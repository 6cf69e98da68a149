/**
 * The command as installed: bin/toolgate.js runs most commands from dist/cli-bundle/toolgate.cjs and its V8 code
 * cache (scripts/bundle-cli.mjs), the session from the ES bundle. Both must be the CLI the sources are: same output,
 * same exit codes, nothing extra on stderr, and the cache must be one this Node accepts (else every start compiles).
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'acorn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../src/testing/index.js';
import { repoRoot } from './helpers/cli.js';

const bin = path.join(repoRoot, 'bin/toolgate.js');
const script = path.join(repoRoot, 'dist/cli-bundle/toolgate.cjs');
let dir: string;

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(argv: readonly string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: dir, env: { ...process.env, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
const installed = (args: readonly string[]) => run([bin, ...args]);
const fromSources = (args: readonly string[]) => run(['--import', import.meta.resolve('tsx'), path.join(repoRoot, 'src/cli/main.ts'), ...args]);

beforeAll(() => {
  // CI builds it through `npm ci` (the prepare script); a checkout that has not built yet builds here.
  if (!existsSync(`${script}.exec.cache`) || !existsSync(path.join(path.dirname(script), 'toolgate-hook.cjs.hook.cache'))) execFileSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'ignore' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bundle-'));
  writeFileSync(path.join(dir, 'small.txt'), 'alpha\nbeta\n');
  writeFileSync(
    path.join(dir, 'calls.json'),
    JSON.stringify([
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } },
      { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: "printf '%s\\n' a b | wc -l" } },
      { type: 'tool_use', id: 'toolu_3', name: 'Read', input: { file_path: path.join(dir, 'small.txt') } },
      // ripgrep comes from a package kept out of the script (@vscode/ripgrep).
      { type: 'tool_use', id: 'toolu_4', name: 'Grep', input: { pattern: 'alpha', path: dir, glob: '*.txt', output_mode: 'content' } },
    ]),
  );
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the installed command', () => {
  it('has a code cache this Node accepts, and scripts with no import() left to a vm callback', () => {
    const { compileBundle, scriptFor } = createRequire(import.meta.url)(path.join(repoRoot, 'bin/cached-bundle.js')) as {
      compileBundle(file: string, command: string): { cached: boolean; cacheFile: string };
      scriptFor(dir: string, command: string): string;
    };
    const dirOf = path.dirname(script);
    // The commands run once per call of a host have a script of their own, holding that command only.
    for (const command of ['exec', 'check', 'hook', 'mcp']) {
      const own = path.join(dirOf, `toolgate-${command}.cjs`);
      expect(scriptFor(dirOf, command)).toBe(own);
      const { cached, cacheFile } = compileBundle(own, command);
      expect({ cached, cacheFile }).toEqual({ cached: true, cacheFile: `${own}.${command}.cache` });
      expect(readFileSync(own, 'utf8')).not.toMatch(/registerRunCommand|registerToolsCommand/);
    }
    // The shared script has every command (the pattern above is one that a script holding `run` matches).
    expect(readFileSync(script, 'utf8')).toMatch(/registerRunCommand/);
    expect(scriptFor(dirOf, 'tools')).toBe(script);
    expect(compileBundle(script, 'tools')).toMatchObject({ cached: true, cacheFile: `${script}.exec.cache` });
    // Node 20 drops a cached script's dynamic-import callback: every import() must have become __tgImport().
    for (const file of readdirSync(dirOf).filter((f) => f.endsWith('.cjs'))) {
      const imports: number[] = [];
      const visit = (node: unknown): void => {
        if (node === null || typeof node !== 'object') return;
        if (Array.isArray(node)) return node.forEach(visit);
        const n = node as { type?: string; start?: number };
        if (n.type === 'ImportExpression') imports.push(n.start!);
        for (const [key, value] of Object.entries(n)) if (key !== 'type') visit(value);
      };
      visit(parse(readFileSync(path.join(dirOf, file), 'utf8'), { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true }));
      expect({ file, imports }).toEqual({ file, imports: [] });
    }
  });

  it("loads Node's built-in modules from Node's own code cache (the wasm budget is raised only while a module is made)", async () => {
    // V8 checks every code cache against the flags; raised at start, the budget (src/tool/wasm-tiering.ts) had each
    // built-in loaded afterwards compiled from source. V8 reports each cache it turns down under this flag.
    const rpc = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    writeFileSync(path.join(dir, 'echo.json'), JSON.stringify({ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }));
    const traced = (args: readonly string[], input = '', env: Record<string, string> = {}) =>
      new Promise<CliResult>((resolve) => {
        const child = execFile(process.execPath, ['--profile-deserialization', bin, ...args], { cwd: dir, env: { ...process.env, HOME: dir, ...env } }, (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
        child.stdin!.end(input);
      });
    // -p compiles llhttp (undici's HTTP parser, wasm) at its first connection, with the connection's modules to load.
    const model = await startScriptedServer([{ content: [{ type: 'text', text: 'answer from the script' }] }]);
    let runs: CliResult[];
    try {
      runs = await Promise.all([
        traced(['exec', '--allow', 'Bash(echo hi)', 'echo.json']),
        traced(['check', 'Bash', '{"command":"git status"}']),
        traced(['mcp', 'serve', '--cwd', dir], rpc.map((m) => `${JSON.stringify(m)}\n`).join('')),
        traced(['-p', 'hi'], '', { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: model.url, XDG_STATE_HOME: path.join(dir, 'state') }),
      ]);
    } finally {
      await model.close();
    }
    for (const { code, stdout } of runs) {
      expect(code).toBe(0);
      expect(stdout).toContain('[Deserializing');
      expect(stdout).not.toContain('[Cached code failed check]');
    }
    expect(runs[2]!.stdout).toContain('"name":"Bash"');
    expect(runs[3]!.stdout).toContain('answer from the script');
  });

  it('runs a Bash call without node:crypto (its first load initialises OpenSSL; ids come from src/tool/crypto.ts)', async () => {
    // Through the installed command: run from the sources, tsx itself loads node:crypto.
    const dump = path.join(dir, 'dump-builtins.cjs');
    writeFileSync(dump, `process.on('exit', () => process.stderr.write('BUILTINS ' + process.moduleLoadList.join(',') + '\\n'));`);
    writeFileSync(path.join(dir, 'one-echo.json'), JSON.stringify({ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }));
    const { code, stdout, stderr } = await run(['--require', dump, bin, 'exec', '--allow', 'Bash(echo hi)', 'one-echo.json']);
    expect({ code, stdout }).toMatchObject({ code: 0, stdout: expect.stringContaining('hi') });
    const builtins = /BUILTINS (.*)/.exec(stderr)?.[1]?.split(',') ?? [];
    expect(builtins).toContain('NativeModule child_process');
    expect(builtins.filter((m) => /crypto/.test(m))).toEqual([]);
  });

  it('loads node:child_process and node:v8 only where a command spawns or compiles wasm, and one namespace per built-in', async () => {
    // scripts/bundle-cli.mjs: child_process (with net, dgram, streams) on its first call; node:v8 at a wasm compile.
    const dump = path.join(dir, 'dump-builtins.cjs');
    writeFileSync(dump, `process.on('exit', () => process.stderr.write('BUILTINS ' + process.moduleLoadList.join(',') + '\\n'));`);
    const builtinsOf = (stderr: string) => /BUILTINS (.*)/.exec(stderr)?.[1]?.split(',') ?? [];
    const check = await run(['--require', dump, bin, 'check', 'Bash', '{"command":"git status"}']);
    expect(check.stdout).toContain('ALLOW');
    expect(builtinsOf(check.stderr).filter((m) => /^NativeModule (child_process|v8)$/.test(m))).toEqual([]);
    const hookInput = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git status' }, cwd: dir, session_id: 't' });
    const hook = await new Promise<CliResult>((resolve) => {
      const child = execFile(process.execPath, ['--require', dump, bin, 'hook', '--allow', '--no-log'], { cwd: dir, env: { ...process.env, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') } }, (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
      child.stdin!.end(hookInput);
    });
    expect(hook.stdout).toContain('"permissionDecision":"allow"');
    expect(builtinsOf(hook.stderr).filter((m) => /^NativeModule (child_process|v8)$/.test(m))).toEqual([]);
    // The lazy functions are the built-in's: a call that spawns still runs (and loads it then).
    writeFileSync(path.join(dir, 'one-echo.json'), JSON.stringify({ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo lazy' } }));
    const exec = await run(['--require', dump, bin, 'exec', '--allow', 'Bash(echo lazy)', 'one-echo.json']);
    expect(exec.stdout).toContain('lazy');
    expect(builtinsOf(exec.stderr)).toContain('NativeModule child_process');
    // esbuild's namespace helper over a built-in is made once per built-in, never per importing module.
    for (const file of readdirSync(path.dirname(script)).filter((f) => f.endsWith('.cjs'))) {
      const code = readFileSync(path.join(path.dirname(script), file), 'utf8');
      expect(code).not.toMatch(/[\w$]+\(require\("node:[\w/]+"\)(,1)?\)/);
      expect(code).toContain('__tgEsm(');
    }
  });

  it('is ASCII throughout, so Node reads each file into a one-byte string', () => {
    // One character past ASCII (an arrow in a regular expression literal, which esbuild leaves as it is) made the
    // script's 1.4 MB a two-byte string: its read went from ~3 to ~9 ms at every start. Write such characters as \u escapes.
    const dirOf = path.dirname(script);
    const offending = readdirSync(dirOf)
      .filter((f) => /\.(cjs|mjs)$/.test(f))
      .flatMap((f) => [...readFileSync(path.join(dirOf, f), 'latin1').matchAll(/.{0,40}[\x80-\xff].{0,20}/g)].map((m) => `${f}: ${m[0]}`));
    expect(offending).toEqual([]);
  });

  it("compiles no code at run time through Function (zod's JIT is off in the CLI: src/cli/zod-jitless.ts)", async () => {
    // Code made by `new Function` is in no code cache: every start compiled zod's object parsers again.
    const watch = path.join(dir, 'watch-function.cjs');
    writeFileSync(
      watch,
      `const F = globalThis.Function; let made = 0;
globalThis.Function = new Proxy(F, { construct(t, a, n) { made++; return Reflect.construct(t, a, n); }, apply(t, self, a) { made++; return Reflect.apply(t, self, a); } });
process.on('exit', () => process.stderr.write('FUNCTIONS ' + made + '\\n'));`,
    );
    const rpc = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const out = await new Promise<CliResult>((resolve) => {
      const child = execFile(process.execPath, ['--require', watch, bin, 'mcp', 'serve', '--cwd', dir], { cwd: dir, env: { ...process.env, HOME: dir } }, (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
      child.stdin!.end(rpc.map((m) => `${JSON.stringify(m)}\n`).join(''));
    });
    expect(out.stdout).toContain('"name":"Read"');
    expect(out.stderr).toContain('FUNCTIONS 0');
  });

  it('answers as the sources do, for a plain command, one that needs the wasm parser, and a run of calls', async () => {
    const cases = [
      ['check', 'Bash', '{"command":"git status"}'],
      ['check', 'Bash', '{"command":"ls | head -3 > out.txt"}'],
      ['check', 'Bash', '{"command":"rm -rf /"}', '--deny', 'Bash(rm:*)'],
      ['exec', '--allow', 'Bash', 'calls.json'],
    ];
    for (const args of cases) {
      const [bundled, sources] = await Promise.all([installed(args), fromSources(args)]);
      expect(bundled.stderr, args.join(' ')).toBe('');
      expect({ code: bundled.code, stdout: bundled.stdout }, args.join(' ')).toEqual({ code: sources.code, stdout: sources.stdout });
    }
    const exec = await installed(['exec', '--allow', 'Bash', 'calls.json']);
    expect(exec.stdout).toContain('hi');
    expect(exec.stdout).toContain('small.txt:1:alpha');
    expect(exec.stdout).toContain('4 tool calls: 4 ok');
  });

  it('gives a bad call its one-line error and exit code from the script too', async () => {
    const missing = await installed(['exec', 'missing.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('missing.json');
  });

  it('runs what only the ES bundle can (the root command) from it', async () => {
    const version = await installed(['--version']);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+ \(toolgate\)\n$/);
  });
});
