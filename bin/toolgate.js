#!/usr/bin/env node
// The `toolgate` command. Runs the compiled CLI (built by `npm ci` through the `prepare` script); in a checkout
// without dist/, it runs the TypeScript sources through tsx instead.
import { existsSync } from 'node:fs';

const dist = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(dist)) {
  await import(dist.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
