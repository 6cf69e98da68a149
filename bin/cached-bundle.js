// Runs dist/cli-bundle/toolgate.cjs from a V8 code cache (toolgate.cjs.<command>.cache, made by scripts/bundle-cli.mjs):
// Node 20 caches no compiled code for ES modules, so the CLI's commands run from a CommonJS script compiled through
// node:vm, which takes a cache. A cache V8 rejects (another Node version, other V8 flags) costs only the compile.
'use strict';
const { isAscii } = require('node:buffer');
const { existsSync, readFileSync, realpathSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

/** CommonJS's module wrapper, and `__tgImport`: the bundle's `import()` calls, made calls of it at build time. */
const WRAPPER = '(function (exports, require, module, __filename, __dirname, __tgImport) {';

/**
 * The script's text. The build keeps it ASCII (test/cli-bundle.test.ts), and an ASCII file is its own Latin-1 string:
 * made from the bytes in one copy, where a UTF-8 read of the same 1-2 MB decodes them (~40% of the read's CPU).
 */
function readScript(file) {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString('utf8');
}

/**
 * The cache the build's training run asks for (`$TOOLGATE_CODE_CACHE_OUT`, set by scripts/bundle-cli.mjs), only when it
 * names one of the build's own caches for `command` in `dir` — the command's script's or the shared one's. Anyone who
 * can set a variable for toolgate's process (a repository's settings `env` a host applies to its hooks) could
 * otherwise make it run a script of their own, or write a cache through a link of theirs.
 */
function trainingCache(dir, command) {
  const out = process.env.TOOLGATE_CODE_CACHE_OUT;
  if (!out) return undefined;
  const names = [`toolgate-${command}.cjs.${command}.cache`, `toolgate.cjs.${command}.cache`];
  if (!names.includes(path.basename(out))) return undefined;
  try {
    if (realpathSync(path.dirname(out)) !== realpathSync(dir)) return undefined;
  } catch {
    return undefined;
  }
  return path.join(dir, path.basename(out));
}

/**
 * Which script runs `command` from `dir` (dist/cli-bundle): the command's own (toolgate-<command>.cjs, its modules
 * only) where the build made one, else the shared toolgate.cjs. The build's training run names the script whose
 * cache it makes.
 */
function scriptFor(dir, command) {
  const training = trainingCache(dir, command);
  if (training) return training.slice(0, training.length - `.${command}.cache`.length);
  const own = path.join(dir, `toolgate-${command}.cjs`);
  return existsSync(own) ? own : path.join(dir, 'toolgate.cjs');
}

/**
 * The bundle compiled, with the cache trained on `command` when there is one (scripts/bundle-cli.mjs trains `exec`,
 * `check`, `hook` and `mcp`; another command takes exec's, which holds what every command shares).
 */
function compileBundle(file, command) {
  const own = `${file}.${command}.cache`;
  const cacheFile = existsSync(own) ? own : `${file}.exec.cache`;
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new vm.Script(`${WRAPPER}${readScript(file)}\n})`, { filename: file, ...(cachedData ? { cachedData } : {}) });
  return { script, cacheFile, cached: cachedData !== undefined && !script.cachedDataRejected };
}

/**
 * Runs the bundle. Its `import()` calls (packages kept out of the bundle, a user's module) go to Node's own ES module
 * loader from here, as they would from the ES bundle.
 */
function runCachedBundle(file, command) {
  const { script } = compileBundle(file, command);
  // Set by the build only: the cache is written once the training command has compiled what a command compiles.
  const out = trainingCache(path.dirname(file), command);
  delete process.env.TOOLGATE_CODE_CACHE_OUT;
  if (out === `${file}.${command}.cache`) {
    process.once('exit', () => {
      // V8 takes a cache only under the flags it was made with, and the command may have raised the wasm tiering
      // budget for a wasm compile (src/tool/wasm-tiering.ts): the cache is made under the budget every start begins
      // with, the command line's or V8's default, which is what compileBundle compiles under.
      const budget = process.execArgv.findLast((a) => /^--wasm[-_]tiering[-_]budget=/.test(a));
      // node:v8 only here: it loads the heap utilities and streams, which a command's start has no use for.
      require('node:v8').setFlagsFromString(budget ?? '--wasm-tiering-budget=1800000');
      writeFileSync(out, script.createCachedData());
    });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, Module.createRequire(file), module, file, path.dirname(file), (specifier) => import(specifier));
}

module.exports = { compileBundle, runCachedBundle, scriptFor };
