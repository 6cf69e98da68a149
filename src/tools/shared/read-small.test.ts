import { appendFileSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readSmallFileSync, SMALL_READ_MAX_BYTES } from './read-small.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-read-small-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('reads the whole file, also when it grew since its stat (within the limit)', () => {
  const file = path.join(dir, 'a.txt');
  writeFileSync(file, 'hello\n');
  const stats = statSync(file);
  appendFileSync(file, 'more\n'.repeat(1000));
  expect(readSmallFileSync(file, stats)?.toString()).toBe(`hello\n${'more\n'.repeat(1000)}`);
});

it('leaves a file that grew past the limit to the handle path', () => {
  const file = path.join(dir, 'b.txt');
  writeFileSync(file, 'x');
  const stats = statSync(file);
  appendFileSync(file, 'y'.repeat(SMALL_READ_MAX_BYTES));
  expect(readSmallFileSync(file, stats)).toBeUndefined();
});

it('refuses a path that became another file between the stat and the open', () => {
  const file = path.join(dir, 'c.txt');
  writeFileSync(file, 'first');
  const stats = statSync(file);
  writeFileSync(path.join(dir, 'other.txt'), 'second');
  renameSync(path.join(dir, 'other.txt'), file);
  expect(() => readSmallFileSync(file, stats)).toThrow(/changed while it was being opened/);
});
