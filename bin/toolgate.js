#!/usr/bin/env node
// The `toolgate` command. Runs the bundled CLI (built by `npm ci` through the `prepare` script), else the compiled
// modules; in a checkout without dist/, the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/cli-bundle/toolgate.mjs', import.meta.url);
const dist = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(bundle)) {
  await import(bundle.href);
} else if (existsSync(dist)) {
  await import(dist.href);
} else {
  const { register } = await import('tsx/esm/api');
  // The checkout's tsconfig, wherever the command starts: tsx would look in the working directory, and without
  // `jsx: react-jsx` the terminal UI's .tsx files would not run.
  register({ tsconfig: new URL('../tsconfig.json', import.meta.url).pathname });
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
