import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { bashBinary, forgetBashBinary } from './shell-binary.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-shell-binary-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A folder of PATH holding `bash` as `kind`. */
function entry(name: string, kind: 'script' | 'not-executable' | 'folder' | 'none'): string {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  const bash = path.join(folder, 'bash');
  if (kind === 'folder') mkdirSync(bash);
  if (kind === 'script' || kind === 'not-executable') writeFileSync(bash, '#!/bin/sh\necho fake\n');
  if (kind === 'script') chmodSync(bash, 0o755);
  if (kind === 'not-executable') chmodSync(bash, 0o644);
  return folder;
}

it('is the first regular, executable file named bash along PATH, as the exec would find it', () => {
  const PATH = [entry('none', 'none'), entry('folder', 'folder'), entry('plain', 'not-executable'), entry('first', 'script'), entry('second', 'script')].join(':');
  // X_OK wants an x bit even for root: the plain file is passed over, as execve passes it over.
  expect(bashBinary({ PATH })).toBe(path.join(dir, 'first', 'bash'));
});

it('keeps the bare name where the exec should decide: no PATH, an empty or relative entry first, no bash at all', () => {
  expect(bashBinary({})).toBe('bash');
  expect(bashBinary({ PATH: '' })).toBe('bash');
  expect(bashBinary({ PATH: `:${entry('a', 'script')}` })).toBe('bash');
  expect(bashBinary({ PATH: `bin:${entry('b', 'script')}` })).toBe('bash');
  expect(bashBinary({ PATH: entry('c', 'none') })).toBe('bash');
  // A relative entry after the one that has bash does not matter.
  expect(bashBinary({ PATH: `${entry('d', 'script')}:bin` })).toBe(path.join(dir, 'd', 'bash'));
});

it('is found once per PATH, and looked for again once a command with it failed to start', () => {
  const first = entry('first', 'script');
  const PATH = `${first}:${entry('second', 'script')}`;
  expect(bashBinary({ PATH })).toBe(path.join(first, 'bash'));
  rmSync(path.join(first, 'bash'));
  expect(bashBinary({ PATH })).toBe(path.join(first, 'bash'));
  forgetBashBinary({ PATH });
  expect(bashBinary({ PATH })).toBe(path.join(dir, 'second', 'bash'));
  // Another PATH is another search.
  expect(bashBinary({ PATH: first })).toBe('bash');
});
