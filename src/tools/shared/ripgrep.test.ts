import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRipgrep, locateRipgrep, RipgrepNotFoundError, runRipgrep } from './ripgrep.js';
import { makeTempDir, removeDir, writeTree } from '../grep/test-helpers/search-fixtures.js';

let dir: string;

beforeAll(() => {
  dir = makeTempDir('toolgate-rg-');
  writeTree(dir, { 'a.txt': 'one\n', 'b.txt': 'two\n', 'c.txt': 'three\n' });
  execFileSync('mkfifo', [path.join(dir, 'fifo')]);
});

afterAll(() => removeDir(dir));

describe('locateRipgrep', () => {
  it('uses the binary shipped inside @vscode/ripgrep', async () => {
    const rg = await getRipgrep();
    expect(rg.source).toBe('vscode');
    expect(rg.path).toMatch(/@vscode[\\/]ripgrep-/);
    expect(execFileSync(rg.path, ['--version'], { encoding: 'utf8' })).toMatch(/^ripgrep \d+/);
  });

  it('falls back to rg on PATH when the bundled binary is missing', async () => {
    const bin = makeTempDir('toolgate-rg-bin-');
    try {
      fs.symlinkSync((await getRipgrep()).path, path.join(bin, 'rg'));
      const found = await locateRipgrep({ env: { PATH: `/nonexistent:${bin}` }, loadBundledPath: async () => undefined });
      expect(found).toEqual({ path: path.join(bin, 'rg'), source: 'system' });
    } finally {
      removeDir(bin);
    }
  });

  it('fails with a clear error when there is no ripgrep at all', async () => {
    const none = locateRipgrep({ env: { PATH: dir }, loadBundledPath: async () => '/no/such/rg' });
    await expect(none).rejects.toBeInstanceOf(RipgrepNotFoundError);
    await expect(none).rejects.toThrow(/ripgrep \(rg\) is not available/);
  });

  it('honours TOOLGATE_RIPGREP_PATH, and refuses one that is not executable', async () => {
    const real = (await getRipgrep()).path;
    await expect(locateRipgrep({ env: { TOOLGATE_RIPGREP_PATH: real } })).resolves.toEqual({ path: real, source: 'env' });
    await expect(locateRipgrep({ env: { TOOLGATE_RIPGREP_PATH: path.join(dir, 'a.txt') } })).rejects.toThrow(
      /TOOLGATE_RIPGREP_PATH is set to .*a\.txt, which is not an executable file/,
    );
  });
});

describe('runRipgrep', () => {
  const base = { cwd: dir, timeoutMs: 10_000 } as const;

  it('hands over NUL-separated records in order and reports the exit code', async () => {
    const records: string[] = [];
    const outcome = await runRipgrep({
      ...base,
      args: ['--files', '--null', '--sort', 'path', '--glob', '*.txt', '--', dir],
      signal: new AbortController().signal,
      separator: '\0',
      onRecord: (r) => void records.push(r),
    });
    expect(records).toEqual(['a.txt', 'b.txt', 'c.txt'].map((f) => path.join(dir, f)));
    expect(outcome).toMatchObject({ exitCode: 0, stopped: false, timedOut: false, records: 3 });
  });

  it('stops rg when the caller has enough', async () => {
    const records: string[] = [];
    const outcome = await runRipgrep({
      ...base,
      args: ['--files', '--null', '--sort', 'path', '--glob', '*.txt', '--', dir],
      signal: new AbortController().signal,
      separator: '\0',
      onRecord: (r) => records.push(r) < 2,
    });
    expect(records).toHaveLength(2);
    expect(outcome.stopped).toBe(true);
  });

  it('kills rg at the time limit (rg blocked reading a FIFO)', async () => {
    const start = Date.now();
    const outcome = await runRipgrep({
      ...base,
      timeoutMs: 200,
      args: ['-e', 'x', '--', path.join(dir, 'fifo')],
      signal: new AbortController().signal,
      separator: '\n',
      onRecord: () => {},
    });
    expect(outcome.timedOut).toBe(true);
    expect(outcome.exitCode).toBeNull();
    expect(Date.now() - start).toBeLessThan(5_000);
  });

  it('kills rg and rejects with AbortError on abort', async () => {
    const controller = new AbortController();
    const run = runRipgrep(
      { ...base, args: ['-e', 'x', '--', path.join(dir, 'fifo')], signal: controller.signal, separator: '\n', onRecord: () => {} },
      'Grep',
    );
    setTimeout(() => controller.abort(), 50);
    await expect(run).rejects.toMatchObject({ name: 'AbortError', message: 'Grep was aborted' });
  });

  it('returns rg\'s diagnostics with exit code 2', async () => {
    const outcome = await runRipgrep({
      ...base,
      args: ['-e', '(', '--', dir],
      signal: new AbortController().signal,
      separator: '\n',
      onRecord: () => {},
    });
    expect(outcome.exitCode).toBe(2);
    expect(outcome.stderr).toMatch(/regex parse error/);
  });
});
