import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atomicWriteFile } from './atomic-write.js';
import { FileToolError } from './errors.js';
import { parseVersion, versionContent } from './test-helpers/atomic-write-content.js';
import { makeTempDir } from './test-helpers/run-tool.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const leftovers = () => fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'));

describe('atomicWriteFile', () => {
  it('creates a file and replaces it, leaving no temporary file', async () => {
    const file = path.join(dir, 'a.txt');
    await atomicWriteFile(file, 'one');
    expect(fs.readFileSync(file, 'utf8')).toBe('one');
    const { stats } = await atomicWriteFile(file, Buffer.from('two'));
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    expect(stats.size).toBe(3);
    expect(leftovers()).toEqual([]);
  });

  it('shows checkTarget the real path it is about to replace; a refusal there writes nothing', async () => {
    fs.mkdirSync(path.join(dir, 'real'));
    fs.symlinkSync('real', path.join(dir, 'linked'));
    fs.writeFileSync(path.join(dir, 'real', 'old.txt'), 'old');
    fs.symlinkSync('real/old.txt', path.join(dir, 'old-link.txt'));
    const seen: string[] = [];
    const checkTarget = (real: string) => void seen.push(real);
    await atomicWriteFile(path.join(dir, 'linked', 'new.txt'), 'new', { checkTarget });
    await atomicWriteFile(path.join(dir, 'old-link.txt'), 'changed', { checkTarget });
    expect(seen).toEqual([path.join(dir, 'real', 'new.txt'), path.join(dir, 'real', 'old.txt')]);
    expect(fs.readFileSync(path.join(dir, 'real', 'new.txt'), 'utf8')).toBe('new');
    expect(fs.lstatSync(path.join(dir, 'old-link.txt')).isSymbolicLink()).toBe(true);
    const refuse = () => {
      throw new FileToolError('no', 'TEST');
    };
    await expect(atomicWriteFile(path.join(dir, 'linked', 'other.txt'), 'x', { checkTarget: refuse })).rejects.toThrow('no');
    expect(fs.readdirSync(path.join(dir, 'real')).sort()).toEqual(['new.txt', 'old.txt']);
  });

  it('keeps the mode of the file it replaces', async () => {
    const file = path.join(dir, 'script.sh');
    fs.writeFileSync(file, '#!/bin/sh\n');
    fs.chmodSync(file, 0o751);
    await atomicWriteFile(file, '#!/bin/sh\necho hi\n');
    expect(fs.statSync(file).mode & 0o7777).toBe(0o751);
    fs.chmodSync(file, 0o600);
    await atomicWriteFile(file, 'x');
    expect(fs.statSync(file).mode & 0o7777).toBe(0o600);
  });

  it('writes through a symlink: the target changes, the link stays a link', async () => {
    const target = path.join(dir, 'target.txt');
    const link = path.join(dir, 'link.txt');
    fs.writeFileSync(target, 'old');
    fs.symlinkSync(target, link);
    const { writtenPath } = await atomicWriteFile(link, 'new');
    expect(writtenPath).toBe(target);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('new');
  });

  it('fails with a readable error, and cleans up, when the directory does not exist', async () => {
    const error = await atomicWriteFile(path.join(dir, 'missing', 'x.txt'), 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileToolError);
    expect((error as Error).message).toMatch(/ENOENT/);
    expect(leftovers()).toEqual([]);
  });

  it('kill -9 in the middle of 1,000 writes leaves every file old or new, never torn', async () => {
    const files = 40;
    const writes = 1000;
    for (let k = 0; k < files; k++) fs.writeFileSync(path.join(dir, `f${k}.txt`), versionContent(k, 0));
    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-helpers', 'atomic-write-child.ts');
    const proc = spawn(process.execPath, ['--import', 'tsx', child, dir, String(files), String(writes)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killAt = 150 + Math.floor(Math.random() * 300);
    let completed = 0;
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.on('exit', (code, signal) => resolve({ code, signal })),
    );
    proc.stdout.on('data', (d: Buffer) => {
      const lines = d.toString().trim().split('\n');
      completed = Number(lines[lines.length - 1]);
      if (completed < killAt || proc.killed) return;
      // Killing right as a progress line arrives always lands at the same phase of the child's loop; a random
      // 0-3 ms pause first spreads the kill over every instant of a write (a plain open-truncate-write writer is
      // caught torn most runs this way).
      const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 3_000_000));
      while (process.hrtime.bigint() < until);
      proc.kill('SIGKILL');
    });
    const { signal } = await exit;
    expect(stderr).toBe('');
    expect(signal).toBe('SIGKILL');
    expect(completed).toBeLessThan(writes);
    let updated = 0;
    for (let k = 0; k < files; k++) {
      const content = fs.readFileSync(path.join(dir, `f${k}.txt`), 'utf8');
      const version = parseVersion(k, content);
      expect(version, `f${k}.txt is torn (${content.length} bytes)`).not.toBeNull();
      // A version this file could have had: 0 (never rewritten) or one of the writes aimed at it.
      expect(version === 0 || (version! - 1) % files === k).toBe(true);
      if (version! > 0) updated++;
    }
    expect(updated).toBeGreaterThan(0);
    // At most the one write in flight leaves its temporary file behind; the targets never see it.
    expect(leftovers().length).toBeLessThanOrEqual(1);
  }, 60_000);
});
