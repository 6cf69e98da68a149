/** The version toolgate announces (src/tool/version.ts) is package.json's. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { TOOLGATE_VERSION } from '../src/tool/version.js';
import { repoRoot } from './helpers/cli.js';

it('TOOLGATE_VERSION is the version in package.json', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  expect(TOOLGATE_VERSION).toBe(pkg.version);
});
