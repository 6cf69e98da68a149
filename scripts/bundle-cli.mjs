// Bundles the CLI into dist/cli-bundle/ (run by `npm run build` after tsc). Loading one file instead of several
// hundred ES modules is most of the CLI's start-up time (zod alone is hundreds of files); code behind dynamic imports
// (each command, the agent loop, the SDK) goes into chunks that load only when a command needs them. Packages that
// find native or wasm files next to themselves stay external and are resolved from node_modules as usual.
//
// A second bundle, toolgate.cjs, is one CommonJS script with a V8 code cache beside it (toolgate.cjs.cache): Node 20
// has no code cache for ES modules, and compiling the bundle's source was a third of a short command's time. The
// cache is made here, by running one representative command (a Bash call and a Read through `exec`), so it holds the
// functions a command compiles, not only the top level. bin/toolgate.js runs it for the commands that never open the
// interactive session (Ink is an ES module with top-level await: it cannot be required).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'acorn';
import { build } from 'esbuild';

// Chunk names carry content hashes: without a clean folder, every rebuild would leave the old chunks beside the new.
rmSync('dist/cli-bundle', { recursive: true, force: true });

const common = {
  entryPoints: { toolgate: 'src/cli/main.ts' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: [
    'web-tree-sitter',
    'tree-sitter-bash',
    'sharp',
    '@lydell/node-pty',
    '@vscode/ripgrep',
    'unpdf',
    '@anthropic-ai/sandbox-runtime',
    '@restatedev/*',
    'ink',
    'react',
    'react/*',
    'yoga-layout',
    'tsx',
    'tsx/*',
  ],
  minify: true,
  logLevel: 'warning',
};

await build({
  ...common,
  outdir: 'dist/cli-bundle',
  splitting: true,
  format: 'esm',
  // Bundled CommonJS packages call require() for Node's built-ins.
  banner: { js: "import { createRequire as __tgCreateRequire } from 'node:module'; const require = __tgCreateRequire(import.meta.url);" },
  outExtension: { '.js': '.mjs' },
});

/**
 * The commands bin/toolgate.js runs from the script never open the session and rarely talk to a model or export
 * telemetry: those libraries stay out of it (required from node_modules on the rare run that needs them), and so does
 * the session's code. Every byte in the script is read and deserialised at each start, whether it runs or not.
 */
const notInScript = [
  '@anthropic-ai/sdk',
  '@anthropic-ai/sdk/*',
  '@opentelemetry/core',
  '@opentelemetry/exporter-*',
  '@opentelemetry/otlp-*',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-*',
  '@opentelemetry/semantic-conventions',
  'marked',
  'turndown',
];
const withoutSession = {
  name: 'without-session',
  setup(b) {
    b.onResolve({ filter: /\/ui\/start-session\.js$/ }, () => ({ path: 'start-session', namespace: 'without-session' }));
    b.onLoad({ filter: /.*/, namespace: 'without-session' }, () => ({
      contents: "export function startInteractiveSession() { throw new Error('the interactive session runs from the ES bundle (bin/toolgate.js)'); }",
    }));
  },
};

/**
 * node:child_process loaded on its first use instead of as the modules that import it load: with it come net, dgram,
 * streams and their bindings (~10% of `node -e 0`'s CPU), and a command that spawns nothing (a hook's or check's
 * `git status`, mcp serve's tools/list) never uses it. Nine modules on a hook's path import it, and commander requires
 * it for the executable subcommands toolgate never declares. toolgate's own modules import these functions only (a
 * new name fails the build: the module has no such export); a call runs the built-in's own function.
 */
const LAZY_CHILD_PROCESS = ['execFile', 'execFileSync', 'spawn', 'spawnSync'];
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) => {
      if (/[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)) return { path: 'commander', namespace: 'lazy-child-process' };
      if (args.importer.startsWith(path.resolve('src') + path.sep)) return { path: 'toolgate', namespace: 'lazy-child-process' };
      return undefined;
    });
    b.onLoad({ filter: /^commander$/, namespace: 'lazy-child-process' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });",
      loader: 'js',
    }));
    b.onLoad({ filter: /^toolgate$/, namespace: 'lazy-child-process' }, () => ({
      contents: LAZY_CHILD_PROCESS.map((name) => `export function ${name}(...args) { return require('node:child_process').${name}(...args); }`).join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * lru-cache picks its clock as it loads, reading the global `performance`: in Node a lazy getter that loads perf_hooks
 * and a dozen modules on first touch, at the start of every command whose modules make a cache (the rule matcher's
 * among them), though only a cache with a TTL asks the clock. The read waits for the first `now()` — Node always has
 * `performance.now`. The text is matched exactly: another lru-cache fails the build instead of loading as before.
 */
const LRU_EAGER_CLOCK = 'typeof performance=="object"&&performance&&typeof performance.now=="function"?performance:Date';
const lazyLruClock = {
  name: 'lazy-lru-clock',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]lru-cache[\\/]dist[\\/]esm[\\/]node[\\/]index\.min\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (text.split(LRU_EAGER_CLOCK).length !== 2) throw new Error(`bundle-cli: lru-cache's clock was not found once in ${args.path}`);
      return { contents: text.replace(LRU_EAGER_CLOCK, '{now:()=>performance.now()}'), loader: 'js' };
    });
  },
};

const cjs = 'dist/cli-bundle/toolgate.cjs';
const script = {
  ...common,
  external: [...common.external, ...notInScript],
  plugins: [withoutSession, lazyChildProcess, lazyLruClock],
  format: 'cjs',
  // The same file location as the ES bundle's entry, so `new URL('../../package.json', import.meta.url)` holds.
  define: { 'import.meta.url': '__tgImportMetaUrl', 'import.meta.dirname': '__dirname' },
  // A built-in module's `import()` becomes a require (see withHostImports): the ES loader's first use costs a short
  // command several milliseconds, for a module the process already has.
  // __tgEsm: one ES namespace per built-in (see withHostImports).
  banner: {
    js:
      'var __tgImportMetaUrl = require("node:url").pathToFileURL(__filename).href; var __tgBuiltin = (s) => Promise.resolve().then(() => { const m = require(s); return { __proto__: m, default: m }; });' +
      ' var __tgEsmMemo = new Map(); var __tgEsm = (toEsm, s, f) => { const k = f ? `${s}|node` : s; let m = __tgEsmMemo.get(k); if (m === undefined) { m = toEsm(require(s), f); __tgEsmMemo.set(k, m); } return m; };',
  },
};
await build({ ...script, outfile: cjs });
writeFileSync(cjs, withHostImports(readFileSync(cjs, 'utf8')));

/**
 * The commands a host or a script runs once per call, each from a script of its own (toolgate-<command>.cjs, which
 * bin/toolgate.js prefers): only that command's modules, without the agent's `run` and the other commands. Each start
 * reads the whole script and its cache; for `exec` that is 1.1 MB instead of 1.7.
 */
const OWN_SCRIPT = { exec: 'registerExecCommand', check: 'registerCheckCommand', hook: 'registerHookCommand', mcp: 'registerMcpCommand' };
const ownScript = (command) => `dist/cli-bundle/toolgate-${command}.cjs`;
for (const [command, register] of Object.entries(OWN_SCRIPT)) {
  const file = ownScript(command);
  await build({
    ...script,
    entryPoints: undefined,
    stdin: {
      contents: `import { runCli } from './program.js';\nrunCli({ ${command}: () => import('./commands/${command}.js').then((m) => m.${register}) });\n`,
      resolveDir: path.resolve('src/cli'),
      sourcefile: `toolgate-${command}.ts`,
      loader: 'ts',
    },
    outfile: file,
  });
  writeFileSync(file, withHostImports(readFileSync(file, 'utf8')));
}

/**
 * Every `import(…)` of the script made a call of `__tgImport(…)`, the function bin/cached-bundle.js passes in: Node 20
 * loses a vm script's dynamic-import callback when the script comes from a code cache (`import()` then throws
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). The import expressions are found by parsing, so text that only looks like
 * one (in a string, a comment) stays as it is. A built-in (`node:…`) is required instead, through `__tgBuiltin`.
 *
 * And esbuild's namespace of a built-in (`import fs from 'node:fs'`: its __toESM helper over `require('node:fs')`,
 * a getter per export) is made once per built-in through `__tgEsm`, instead of once per importing module: ~100
 * modules of a command's script import node:path, node:fs or node:os so, and each copy cost a start CPU and young
 * objects that every scavenge copied. A namespace is one object per module in ES modules too.
 */
function withHostImports(code) {
  // esbuild's __toESM helper, minified or not: `var N=(e,t,n)=>(n=e!=null?…`.
  const toEsm = /var ([\w$]+)\s*=\s*\(([\w$]+),\s*([\w$]+),\s*([\w$]+)\)\s*=>\s*\(\4\s*=\s*\2\s*!=\s*null\s*\?/.exec(code)?.[1];
  if (toEsm === undefined) throw new Error("bundle-cli: esbuild's __toESM helper was not found");
  const edits = [];
  const visit = (node) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node.type === 'ImportExpression') {
      const builtin = node.source?.type === 'Literal' && typeof node.source.value === 'string' && node.source.value.startsWith('node:');
      if (code.slice(node.start, node.start + 6) !== 'import') throw new Error(`bundle-cli: no import keyword at ${node.start}`);
      edits.push({ start: node.start, end: node.start + 6, text: builtin ? '__tgBuiltin' : '__tgImport' });
    }
    const builtin = builtinNamespace(node, toEsm);
    if (builtin !== undefined) {
      edits.push({ start: node.start, end: node.end, text: `__tgEsm(${toEsm},${JSON.stringify(builtin.specifier)},${builtin.nodeMode ? 1 : 0})` });
      return;
    }
    for (const key in node) if (key !== 'type' && key !== 'start' && key !== 'end') visit(node[key]);
  };
  visit(parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true, allowHashBang: true }));
  let out = '';
  let at = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    out += `${code.slice(at, edit.start)}${edit.text}`;
    at = edit.end;
  }
  return out + code.slice(at);
}

/** `toEsm(require("node:x"))` or `toEsm(require("node:x"), 1)`: the built-in and the helper's node-mode flag. */
function builtinNamespace(node, toEsm) {
  if (node.type !== 'CallExpression' || node.callee.type !== 'Identifier' || node.callee.name !== toEsm) return undefined;
  const [inner, flag, ...rest] = node.arguments;
  if (rest.length > 0 || inner?.type !== 'CallExpression' || inner.callee.type !== 'Identifier' || inner.callee.name !== 'require') return undefined;
  const source = inner.arguments[0];
  if (inner.arguments.length !== 1 || source?.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('node:')) return undefined;
  if (flag !== undefined && !(flag.type === 'Literal' && (flag.value === 1 || flag.value === 0))) return undefined;
  return { specifier: source.value, nodeMode: flag?.value === 1 };
}

// The code caches, one per trained command, each from one run of the bundle (TOOLGATE_CODE_CACHE_OUT tells
// bin/toolgate.js to write the cache at exit): a cache holds what its run compiled, and V8 reads all of it at each
// start, so a command's own cache is smaller than one for every command.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'toolgate-code-cache-'));
const cacheOf = (command, file = ownScript(command)) => path.resolve(`${file}.${command}.cache`);
const runBin = (args, command, input, cache = cacheOf(command)) =>
  execFileSync(process.execPath, [path.resolve('bin/toolgate.js'), ...args], {
    cwd: scratch,
    env: { ...process.env, HOME: scratch, XDG_STATE_HOME: path.join(scratch, 'state'), TOOLGATE_CODE_CACHE_OUT: cache },
    input: input ?? '',
    stdio: ['pipe', 'ignore', 'ignore'],
    timeout: 60_000,
  });
try {
  const small = path.join(scratch, 'small.txt');
  writeFileSync(small, 'alpha\n');
  const blocks = [
    { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } },
    { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: small } },
  ];
  writeFileSync(path.join(scratch, 'calls.json'), JSON.stringify(blocks));
  runBin(['exec', '--allow', 'Bash(echo hi)', 'calls.json'], 'exec');
  // The commands without a script of their own run from the shared one, with a cache trained on `exec` (what every command shares).
  runBin(['exec', '--allow', 'Bash(echo hi)', 'calls.json'], 'exec', undefined, cacheOf('exec', cjs));
  runBin(['check', 'Bash', '{"command":"git status"}'], 'check');
  // A hook runs once per tool call of its host: its own cache, trained on a PreToolUse of a pipeline.
  const hookRequest = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'grep -n alpha small.txt | head -5' }, cwd: scratch, permission_mode: 'default', session_id: 'build' };
  runBin(['hook'], 'hook', JSON.stringify(hookRequest));
  // The server answers what it was sent, then ends at the end of its input.
  const rpc = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo hi' } } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'Read', arguments: { file_path: small } } },
  ];
  runBin(['mcp', 'serve', '--cwd', scratch], 'mcp', rpc.map((m) => `${JSON.stringify(m)}\n`).join(''));
} catch (error) {
  // Without a cache the CLI is as correct, only slower to start: say so and go on.
  process.stderr.write(`bundle-cli: a code cache for dist/cli-bundle/toolgate.cjs was not made (${error instanceof Error ? error.message : String(error)})\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
