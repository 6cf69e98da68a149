/** The examples run as a user would run them (tsx, package imports by name), against the scripted server. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/cli.js';

function runExample(file: string, home = process.env.HOME): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'examples', file)], { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: home } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('examples', { timeout: 180_000 }, () => {
  it("short.ts (the README's example): a custom tool beside the built-ins, one call through the runtime", async () => {
    // A home of its own: the example reads the user's settings files, and keeps its session there.
    const home = mkdtempSync(path.join(os.tmpdir(), 'toolgate-short-'));
    try {
      const { code, stdout, stderr } = await runExample('short.ts', home);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const [names, said] = stdout.trim().split('\n');
      expect(names!.split(' ')).toEqual(expect.arrayContaining(['Read', 'Bash', 'Write', 'Echo']));
      expect(names!.split(' ').at(-1)).toBe('Echo'); // built-ins first, then the program's tools: the prompt cache survives
      expect(said).toBe('hello');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('library.ts: a custom tool and one model turn through the runtime', async () => {
    const { code, stdout, stderr } = await runExample('library.ts');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('Tool said: "Sunny, 21 °C in Lisbon"');
  });

  it('demo.ts (npm run demo): parallel reads, a denied read, a Bash call, three turns', async () => {
    const { code, stdout } = await runExample('demo.ts');
    expect(code).toBe(0);
    expect(stdout).toContain('← Read: 1\tHello, world!');
    expect(stdout).toMatch(/← Read \(error\): .*denied/);
    expect(stdout).toContain('← Bash: 5 notes.md');
    expect(stdout).toMatch(/\[end_turn after 3 turns · 8400 in \/ 250 out tokens/);
  });
});
