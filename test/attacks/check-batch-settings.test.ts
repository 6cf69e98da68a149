/**
 * `toolgate check --batch` keeps each context it built — the settings files read for a cwd — for the lines after it,
 * keyed by the cwd's text (docs/security.md, "check --batch: compiled rules bound to the disk"). The attacker writes
 * the batch's later lines, or the checkout a policy suite runs against, and changes the world between two lines: the
 * batch's stdin is a pipe written slowly (as a FIFO would be) while a linked working directory is retargeted at
 * another project, or a settings file is rewritten keeping its size and mtime. The later line must be judged by the
 * settings on disk when it is read. Through the real CLI, real links and files; each case fails with the settings
 * watch taken out of check.ts (contexts kept for the whole batch).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

let tmp: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-batch-settings-attack-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A project with a secret file and the given deny rules in its `.claude/settings.json`. */
function project(name: string, deny: readonly string[]): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret');
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny } }));
  return dir;
}

/** A running `toolgate check --batch` fed one line at a time: each answer is read before the next line is written. */
function batch(cwd: string): { ask: (request: Record<string, unknown>) => Promise<string>; end: () => Promise<void> } {
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home, { recursive: true });
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'check', '--batch', '--cwd', cwd, '--home', home, '--managed-settings', path.join(tmp, 'no-managed.json')],
    { cwd: repoRoot, env: { ...process.env, HOME: home } },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return {
    ask: async (request) => {
      child.stdin.write(`${JSON.stringify({ cwd, ...request })}\n`);
      const next = await lines.next();
      if (next.done === true) throw new Error(`toolgate check --batch ended: ${stderr}`);
      const answer = JSON.parse(next.value) as { behavior?: string; error?: string };
      return answer.behavior ?? `error: ${answer.error}`;
    },
    end: () =>
      new Promise((resolve) => {
        child.once('close', () => resolve());
        child.stdin.end();
      }),
  };
}

describe('a batch reads the settings on disk when each line is read', () => {
  it('a linked working directory retargeted at a project that denies the file: the later lines are denied', async () => {
    const open = project('open', ['Read(./other.txt)']);
    const closed = project('closed', ['Read(./secret.txt)']);
    const work = path.join(tmp, 'work');
    fs.symlinkSync(open, work);
    const { ask, end } = batch(work);
    const read = { tool: 'Read', input: { file_path: path.join(work, 'secret.txt') } };
    try {
      // Twice: the answer is remembered from the second time on.
      expect(await ask({ id: 1, ...read })).toBe('allow');
      expect(await ask({ id: 2, ...read })).toBe('allow');
      fs.rmSync(work);
      fs.symlinkSync(closed, work);
      expect(await ask({ id: 3, ...read })).toBe('deny');
      expect(await ask({ id: 4, tool: 'Bash', input: { command: `cat ${path.join(work, 'secret.txt')}` } })).toBe('deny');
    } finally {
      await end();
    }
  }, 60_000);

  it('a settings file rewritten between two lines, its size and mtime kept: the new deny rule holds', async () => {
    const proj = project('rewritten', ['Read(./secrez.txt)']);
    const file = path.join(proj, '.claude', 'settings.json');
    // Loaded more than 2 s after its last change (settings-watch.ts reads a file changed within 2 s of its load again
    // at every chunk): only the stamp's change time can tell the rewrite below.
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(file, past, past);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const { ask, end } = batch(proj);
    const read = { tool: 'Read', input: { file_path: path.join(proj, 'secret.txt') } };
    try {
      expect(await ask({ id: 1, ...read })).toBe('allow');
      expect(await ask({ id: 2, ...read })).toBe('allow');
      const before = fs.statSync(file);
      fs.writeFileSync(file, JSON.stringify({ permissions: { deny: ['Read(./secret.txt)'] } }));
      fs.utimesSync(file, before.atime, before.mtime);
      expect(fs.statSync(file).size).toBe(before.size);
      expect(await ask({ id: 3, ...read })).toBe('deny');
    } finally {
      await end();
    }
  }, 60_000);
});
