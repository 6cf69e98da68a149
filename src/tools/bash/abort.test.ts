import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BashOutput } from './bash-output.js';
import { BashTool } from './index.js';
import { callTool, makeProject, processesWithMarker, waitFor, type TestProject } from './test-helpers/project.js';

let project: TestProject;
let controller: AbortController;
beforeEach(() => {
  controller = new AbortController();
  project = makeProject({ abortController: controller });
});
afterEach(async () => {
  await project.cleanup();
});

describe('abort', () => {
  it('ends 50 running commands and all their children within a second, one result per call', async () => {
    const marker = `${process.pid % 1000}${Date.now() % 100000}`;
    // Half of them ignore SIGTERM (inherited by their children), so only the SIGKILL after the grace period ends them.
    const commands = Array.from({ length: 50 }, (_, i) => {
      const sleep = `sleep 97${marker}.${i}`;
      const body = `${sleep} & ${sleep} | cat & (${sleep}); wait`;
      return i % 2 === 0 ? `echo started-${i}; ${body}` : `trap '' TERM; echo started-${i}; ${body}`;
    });
    const settled: { index: number; result: Awaited<ReturnType<typeof callTool<BashOutput>>> }[] = [];
    const calls = commands.map((command, index) =>
      callTool<BashOutput>(BashTool, { command }, project.context).then((result) => {
        settled.push({ index, result });
        return result;
      }),
    );
    const sleeps = () => processesWithMarker(`97${marker}.`).filter((p) => p.cmdline.startsWith('sleep ')).length;
    await waitFor(() => sleeps() === 150, 20_000, '150 sleeps to be running');
    expect(settled).toEqual([]);

    controller.abort();
    const abortedAt = Date.now();
    const results = await Promise.all(calls);
    await new Promise((r) => setTimeout(r, Math.max(0, 1_000 - (Date.now() - abortedAt))));
    expect(processesWithMarker(`97${marker}.`)).toEqual([]);

    expect(settled).toHaveLength(50);
    expect(new Set(settled.map((s) => s.index)).size).toBe(50);
    for (const [i, r] of results.entries()) {
      expect(r.block.is_error).toBe(true);
      expect(r.data.interrupted).toBe(true);
      expect(r.text).toContain(`started-${i}`);
      expect(r.text.endsWith('<error>Command was aborted before completion</error>')).toBe(true);
    }
    expect(project.tasks.list()).toEqual([]);
  }, 40_000);

  it('does not start a command when the call is already aborted', async () => {
    controller.abort();
    // The pipeline's abort check answers before call() (the tool checks again itself, for callers without one).
    await expect(callTool<BashOutput>(BashTool, { command: 'echo should-not-run > ran.txt' }, project.context)).rejects.toThrow(/did not run \(abort\)/);
    expect(existsSync(path.join(project.dir, 'ran.txt'))).toBe(false);
  });
});
