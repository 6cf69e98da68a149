#!/usr/bin/env node
// The `toolgate` command. Runs the bundled CLI (built by `npm ci` through the `prepare` script), else the compiled
// modules; in a checkout without dist/, the TypeScript sources through tsx. CommonJS (bin/package.json): an ES module
// entry costs every start Node's ES loader before the first line runs.
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const root = path.join(__dirname, '..');
const scripts = path.join(root, 'dist/cli-bundle');
const script = path.join(scripts, 'toolgate.cjs');
const bundle = path.join(root, 'dist/cli-bundle/toolgate.mjs');
const dist = path.join(root, 'dist/cli/main.js');

/**
 * Commands that never open the interactive session run from the CommonJS bundle and its V8 code cache (the same CLI,
 * compiled once at build time instead of at every start; scripts/bundle-cli.mjs). The session needs Ink, an ES module
 * with top-level await, which only the ES bundle can load. A command missing here still works, from the ES bundle.
 */
const CACHED_COMMANDS = new Set(['exec', 'check', 'hook', 'mcp', 'tools', 'grants', 'sandbox', 'worker']);

function failed(error) {
  process.stderr.write(`toolgate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}

if (CACHED_COMMANDS.has(process.argv[2] ?? '') && existsSync(script)) {
  const cached = require('./cached-bundle.js');
  cached.runCachedBundle(cached.scriptFor(scripts, process.argv[2]), process.argv[2]);
} else if (existsSync(bundle)) {
  import(pathToFileURL(bundle).href).catch(failed);
} else if (existsSync(dist)) {
  import(pathToFileURL(dist).href).catch(failed);
} else {
  import('tsx/esm/api')
    .then(({ register }) => {
      // The checkout's tsconfig, wherever the command starts: tsx would look in the working directory, and without
      // `jsx: react-jsx` the terminal UI's .tsx files would not run.
      register({ tsconfig: path.join(root, 'tsconfig.json') });
      return import(pathToFileURL(path.join(root, 'src/cli/main.ts')).href);
    })
    .catch(failed);
}
