/**
 * The tools of issue 36 (ScheduleWakeup, the Cron tools, Monitor, LSP) in the runtime's pool — what every face (the
 * CLI, the Agent SDK face, the MCP server, the interactive session) offers — deferred as Claude Code defers them, and
 * found by their seed names.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import type { ToolRuntime } from '../src/agent/types.js';

let dir: string;
let rt: ToolRuntime | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-new-tools-'));
});
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('the waiting and scheduling tools', () => {
  it('are in the pool, deferred, and found by their aliases', async () => {
    rt = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), settings: { sources: [] } });
    const byName = new Map(rt.tools.map((t) => [t.name, t]));
    for (const name of ['ScheduleWakeup']) {
      expect(byName.get(name), name).toBeDefined();
      expect(byName.get(name)!.shouldDefer, name).toBe(true);
    }
    expect(rt.findTool('Sleep')?.name).toBe('ScheduleWakeup');
  });
});
