/**
 * Grants end to end through the runtime: a person answers "allow, with a rule" → the narrowest rules are written to
 * the real settings file → a new runtime reading that file allows exactly that command and asks for anything else.
 * Expiry holds in the session and in the file.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ToolUseBlock } from '../tool/tool.js';
import { createToolRuntime } from './create-tool-runtime.js';
import type { PermissionAnswer, RuntimePermissionRequest, ToolRuntime } from './types.js';

let dir: string;
let home: string;
const runtimes: ToolRuntime[] = [];
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-grants-e2e-')));
  home = path.join(dir, 'home');
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

let ids = 0;
const bash = (command: string): ToolUseBlock => ({ type: 'tool_use', id: `toolu_g${++ids}`, name: 'Bash', input: { command } }) as ToolUseBlock;

async function runtime(answer: (r: RuntimePermissionRequest) => PermissionAnswer, asked: RuntimePermissionRequest[]): Promise<ToolRuntime> {
  const rt = await createToolRuntime({
    cwd: dir,
    sessionDir: path.join(dir, '.session'),
    settings: { sources: ['local', 'project', 'user'], homeDir: home },
    onPermissionRequest: async (r) => (asked.push(r), answer(r)),
  });
  runtimes.push(rt);
  return rt;
}

it('a rule answer writes the narrowest rules, which a later runtime reads back as exactly that', async () => {
  const asked: RuntimePermissionRequest[] = [];
  const rt = await runtime(() => ({ behavior: 'allow', scope: 'rule', destination: 'localSettings' }), asked);
  const command = 'touch ./made && mkdir -p ./dir';
  const first = await rt.run([bash(command)]);
  expect(first.results[0]!.is_error).toBeFalsy();
  expect(existsSync(path.join(dir, 'made'))).toBe(true);
  expect(asked[0]!.suggestedRules).toEqual(['Bash(touch ./made)', 'Bash(mkdir -p ./dir)']);
  const file = path.join(dir, '.claude', 'settings.local.json');
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ permissions: { allow: ['Bash(touch ./made)', 'Bash(mkdir -p ./dir)'] } });

  const later: RuntimePermissionRequest[] = [];
  const rt2 = await runtime(() => ({ behavior: 'deny', message: 'no' }), later);
  expect((await rt2.run([bash(command)])).results[0]!.is_error).toBeFalsy();
  expect(later).toHaveLength(0);
  const other = await rt2.run([bash('touch ./other')]);
  expect(other.results[0]!.is_error).toBe(true);
  expect(later).toHaveLength(1);
});

it('an expired rule answer is written to toolgate’s file and does not allow the next call', async () => {
  const asked: RuntimePermissionRequest[] = [];
  const rt = await runtime(() => ({ behavior: 'allow', scope: 'rule', destination: 'userSettings', expiresAt: '2001-01-01T00:00:00Z' }), asked);
  expect((await rt.run([bash('touch ./x')])).results[0]!.is_error).toBeFalsy();
  const file = path.join(home, '.toolgate', 'settings.json');
  expect(JSON.parse(readFileSync(file, 'utf8')).permissions.expires).toEqual({ 'Bash(touch ./x)': '2001-01-01T00:00:00.000Z' });
  await rt.run([bash('touch ./x')]);
  expect(asked).toHaveLength(2);
  expect(asked[1]!.ask.decisionReason?.reason).toMatch(/expired/);
});
