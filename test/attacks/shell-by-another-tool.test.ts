/**
 * Class: a shell command run by a tool that is not Bash (Monitor). The attacker is the model after a prompt
 * injection; the policy denies a command to Bash (`Bash(rm:*)`), or Bash as a whole. Without the defences the same
 * command goes through Monitor, whose calls a `Bash` rule does not name, and runs — in bypassPermissions mode, or under
 * an allow rule written for Monitor. The defences: Monitor declares itself a shell tool (`permissionTraits.kind:
 * 'shell'`, src/tools/monitor/index.ts), so its command is judged by Bash's deny and ask rules as well as its own
 * (src/permissions/bash/check-permission.ts); and `alsoDeniedAs: 'Bash'`, so a whole-tool `Bash` deny or ask covers it
 * and takes it out of the pool (src/permissions/tool-rule-match.ts). The first two cases fail with Monitor declared
 * `other`; the third fails without `alsoDeniedAs`; the control shows the call does run the command when nothing
 * denies it.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { ToolRuntime } from '../../src/agent/types.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../../src/tool/tool.js';

let dir: string;
let rt: ToolRuntime | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-monitor-')));
  writeFileSync(path.join(dir, 'victim'), 'keep me');
});
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const text = (r: ToolResultBlockParam) => (typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join(''));
const monitorCall = (command: string): ToolUseBlock => ({ type: 'tool_use', id: `toolu_${Math.random().toString(36).slice(2)}`, name: 'Monitor', input: { description: 'cleanup', command, timeout_ms: 10_000 } }) as ToolUseBlock;

async function runtime(rules: { allow?: string[]; deny?: string[] }, bypass: boolean): Promise<ToolRuntime> {
  rt = await createToolRuntime({
    cwd: dir,
    sessionDir: path.join(dir, '.session'),
    settings: { sources: [] },
    rules,
    ...(bypass ? { mode: 'bypassPermissions' as const, allowDangerouslySkipPermissions: true } : {}),
  });
  return rt;
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 500));
}

describe('a shell command denied to Bash is denied to Monitor', () => {
  it('in bypassPermissions mode, a Bash(rm:*) deny stops `rm` through Monitor', async () => {
    const r = await runtime({ deny: ['Bash(rm:*)'] }, true);
    expect(r.tools.map((t) => t.name)).toContain('Monitor');
    const run = await r.run([monitorCall('rm -f victim')]);
    expect(run.results[0]!.is_error).toBe(true);
    expect(text(run.results[0]!)).toMatch(/Bash\(rm:\*\)/);
    await settle();
    expect(existsSync(path.join(dir, 'victim'))).toBe(true);
  });

  it("an allow rule written for Monitor does not reach past a Bash deny", async () => {
    const r = await runtime({ allow: ['Monitor'], deny: ['Bash(rm:*)'] }, false);
    expect(r.tools.map((t) => t.name)).toContain('Monitor');
    const run = await r.run([monitorCall('rm -f victim')]);
    expect(run.results[0]!.is_error).toBe(true);
    await settle();
    expect(existsSync(path.join(dir, 'victim'))).toBe(true);
  });

  it('a whole-tool Bash deny leaves no Monitor in the pool', async () => {
    const r = await runtime({ deny: ['Bash'] }, true);
    expect(r.tools.map((t) => t.name)).not.toContain('Monitor');
    const run = await r.run([monitorCall('rm -f victim')]);
    expect(run.results[0]!.is_error).toBe(true);
    await settle();
    expect(existsSync(path.join(dir, 'victim'))).toBe(true);
  });

  it('control: without the deny, the same call does run the command (the attack is real)', async () => {
    const r = await runtime({}, true);
    const run = await r.run([monitorCall('rm -f victim')]);
    expect(run.results[0]!.is_error).toBeFalsy();
    for (let i = 0; i < 100 && existsSync(path.join(dir, 'victim')); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(path.join(dir, 'victim'))).toBe(false);
  });
});
