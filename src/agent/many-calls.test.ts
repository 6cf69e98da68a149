/**
 * Many concurrent calls on one runtime, one turn, one caller signal: no MaxListenersExceededWarning (the shared
 * signals carry one listener each, shared-abort-listener.ts), and nothing is left listening when the calls end.
 */
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { HookCallback } from '../hooks/types.js';
import type { ToolUseBlock } from '../tool/tool.js';
import { createToolRuntime } from './create-tool-runtime.js';
import type { ToolRuntime } from './types.js';
import { contextOf } from './runtime-context.js';

let dir: string;
let rt: ToolRuntime | undefined;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  warnings.length = 0;
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-many-'));
  writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  await rt?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_m${++n}`, name, input }) as ToolUseBlock;
const read = () => use('Read', { file_path: path.join(dir, 'a.txt') });
const glob = () => use('Glob', { pattern: '*.txt' });
const bash = () => use('Bash', { command: 'echo hi' });

it('200 concurrent runs, a 200-call message, one caller signal for 100 runs and 12 hooks per call: no listener warning, no listener left', async () => {
  // Twelve in-process hooks on every call: they run side by side on the call's signal.
  const hooks: HookCallback[] = Array.from({ length: 12 }, (_, i) => ({ event: 'PreToolUse', name: `h${i}`, callback: async () => ({}) }));
  rt = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), settings: { sources: [] }, rules: { allow: ['Bash(echo:*)'] }, hooks });
  const root = contextOf(rt).abortController.signal;
  const before = getEventListeners(root, 'abort').length;

  const runs = Array.from({ length: 200 }, (_, i) => rt!.run([i % 10 === 9 ? bash() : i % 2 ? read() : glob()]));
  const results = await Promise.all(runs);
  expect(results.every((r) => r.results.length === 1 && r.results[0]!.is_error !== true)).toBe(true);

  const big = await rt.run(Array.from({ length: 200 }, (_, i) => (i % 2 ? read() : glob())));
  expect(big.results.filter((r) => r.is_error !== true)).toHaveLength(200);

  const caller = new AbortController();
  const shared = await Promise.all(Array.from({ length: 100 }, (_, i) => rt!.run([i % 20 === 0 ? bash() : read()], { signal: caller.signal })));
  expect(shared.every((r) => r.results[0]!.is_error !== true)).toBe(true);

  // Warnings are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  expect(getEventListeners(root, 'abort').length).toBe(before);
  expect(getEventListeners(caller.signal, 'abort').length).toBe(0);
}, 120_000);

it('one caller signal aborts all the runs it was given', async () => {
  rt = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), settings: { sources: [] }, rules: { allow: ['Bash(sleep:*)'] } });
  const caller = new AbortController();
  const runs = Array.from({ length: 30 }, () => rt!.run([use('Bash', { command: 'sleep 30' })], { signal: caller.signal }));
  // Whether a command has started yet or not, the abort answers each run (a started one is killed, a queued one never starts).
  await new Promise((resolve) => setTimeout(resolve, 200));
  caller.abort('interrupt');
  const results = await Promise.all(runs);
  expect(results.every((r) => r.results.length === 1 && r.results[0]!.is_error === true)).toBe(true);
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  expect(getEventListeners(caller.signal, 'abort').length).toBe(0);
}, 60_000);
