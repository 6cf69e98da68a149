import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BashTool } from '../tools/bash/index.js';
import { ReadTool } from '../tools/read/index.js';
import { EditTool } from '../tools/edit/index.js';
import type { PermissionMode, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { createToolUseContext } from '../tool/tool-use-context.js';
import { addAllowCeiling, removeAllowCeilings, rulesCoverCall } from './allow-ceiling.js';
import { createPermissionContext, parseRules } from './permission-context.js';
import { hasPermissionsToUseTool, resolvePermission } from './resolve.js';
import { loadBashParser } from './bash/parser.js';

let proj: string;
beforeAll(async () => {
  // rulesCoverCall is synchronous: the engine loads the parser before it asks about a command that needs it.
  await loadBashParser();
  proj = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-ceiling-')));
  fs.writeFileSync(path.join(proj, 'a.txt'), 'a\n');
});
afterAll(() => fs.rmSync(proj, { recursive: true, force: true }));

function ctxOf(rules: { allow?: string[]; deny?: string[]; ask?: string[] } = {}, mode: PermissionMode = 'default'): ToolPermissionContext {
  return createPermissionContext({
    cwd: proj,
    mode,
    rules: [
      ...parseRules(rules.allow ?? [], 'allow', 'projectSettings'),
      ...parseRules(rules.deny ?? [], 'deny', 'projectSettings'),
      ...parseRules(rules.ask ?? [], 'ask', 'projectSettings'),
    ],
  });
}

function withSkill(ctx: ToolPermissionContext, allowed: string[], agentId?: string): ToolPermissionContext {
  return addAllowCeiling(ctx, { label: 'skill "demo"', rules: parseRules(allowed, 'allow', 'session'), ...(agentId !== undefined ? { agentId } : {}) });
}

async function decide(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext, agentId?: string) {
  const context = { ...createToolUseContext({ tools: [tool], permissionContext: ctx, sessionDir: proj }), ...(agentId ? { agentId } : {}) };
  return hasPermissionsToUseTool(tool, input, context);
}

describe('allow ceilings (a skill\'s allowed-tools while it is active)', () => {
  it('an allow rule the ceiling does not cover asks instead; one it covers stands', async () => {
    const ctx = withSkill(ctxOf({ allow: ['Bash(git *)', 'Bash(npm test)'] }), ['Bash(git status *)']);
    expect((await decide(BashTool, { command: 'git status --short' }, ctx)).behavior).toBe('allow');
    const narrowed = await decide(BashTool, { command: 'npm test' }, ctx);
    expect(narrowed.behavior).toBe('ask');
    expect(narrowed.decisionReason?.reason).toContain('skill "demo" is active');
    expect(narrowed.decisionReason?.reason).toContain('Bash(git status *)');
    expect(narrowed.decisionReason?.classifierApprovable).toBe(false);
  });

  it('read-only classification is not coverage: ls asks while a Read-only skill is active', async () => {
    const plain = await decide(BashTool, { command: 'ls' }, ctxOf());
    expect(plain.behavior).toBe('allow');
    const ctx = withSkill(ctxOf(), ['Read']);
    expect((await decide(BashTool, { command: 'ls' }, ctx)).behavior).toBe('ask');
    expect((await decide(ReadTool, { file_path: path.join(proj, 'a.txt') }, ctx)).behavior).toBe('allow');
  });

  it('never widens: a covered call the rules would ask or deny still asks or is denied', async () => {
    const ctx = withSkill(ctxOf({ deny: ['Bash(rm *)'] }), ['Bash', 'Edit']);
    expect((await decide(BashTool, { command: 'rm -rf build' }, ctx)).behavior).toBe('deny');
    // No rule allows an edit: the ceiling lists Edit, and it still asks.
    expect((await decide(EditTool, { file_path: path.join(proj, 'a.txt'), old_string: 'a', new_string: 'b' }, ctx)).behavior).toBe('ask');
    // A command no rule allows and that is not read-only asks, covered or not.
    expect((await decide(BashTool, { command: 'touch x' }, ctx)).behavior).toBe('ask');
  });

  it('bypassPermissions and a hook\'s allow are automatic allows too: narrowed; dontAsk turns the ask into a deny', async () => {
    const bypass = withSkill(ctxOf({}, 'bypassPermissions'), ['Read']);
    expect((await decide(BashTool, { command: 'touch x' }, bypass)).behavior).toBe('ask');
    const hookAllow = { behavior: 'allow' as const, decisionReason: { layer: 'hook' as const, reason: 'hook said yes' } };
    const context = createToolUseContext({ tools: [BashTool], permissionContext: withSkill(ctxOf(), ['Read']), sessionDir: proj });
    expect((await hasPermissionsToUseTool(BashTool, { command: 'echo hi' }, context, hookAllow)).behavior).toBe('ask');
    const dontAsk = withSkill(ctxOf({ allow: ['Bash(echo *)'] }, 'dontAsk'), ['Read']);
    const denied = await decide(BashTool, { command: 'echo hi' }, dontAsk);
    expect(denied.behavior).toBe('deny');
    expect(denied.decisionReason?.reason).toContain('skill "demo"');
  });

  it('applies to the agent that set it only, and ends when removed', async () => {
    const ctx = withSkill(ctxOf({ allow: ['Bash(npm test)'] }), ['Read'], 'agent-1');
    expect((await decide(BashTool, { command: 'npm test' }, ctx)).behavior).toBe('allow');
    expect((await decide(BashTool, { command: 'npm test' }, ctx, 'agent-1')).behavior).toBe('ask');
    const ended = removeAllowCeilings(ctx, 'agent-1');
    expect(ended.allowCeilings).toBeUndefined();
    expect(Object.isFrozen(ended)).toBe(true);
    expect((await decide(BashTool, { command: 'npm test' }, ended, 'agent-1')).behavior).toBe('allow');
    expect(removeAllowCeilings(ended, 'agent-1')).toBe(ended);
  });

  it('several active skills: a call any of them covers stands (resolvePermission agrees)', async () => {
    const ctx = withSkill(withSkill(ctxOf({ allow: ['Bash(git *)', 'Bash(npm *)'] }), ['Bash(git *)']), ['Bash(npm *)']);
    expect((await resolvePermission(BashTool, { command: 'npm run build' }, ctx)).behavior).toBe('allow');
    expect((await resolvePermission(BashTool, { command: 'git log' }, ctx)).behavior).toBe('allow');
    expect((await resolvePermission(BashTool, { command: 'make' }, withSkill(ctxOf({ allow: ['Bash(make)'] }), ['Bash(git *)']))).behavior).toBe('ask');
  });

  it('coverage: compound commands need every part covered; a Read(path) rule covers reads under that path only', () => {
    const ctx = ctxOf();
    const rules = parseRules(['Bash(git add *)', 'Bash(git commit *)', `Read(/${proj}/**)`], 'allow', 'session');
    expect(rulesCoverCall(rules, BashTool, { command: 'git add . && git commit -m x' }, ctx)).toBe(true);
    expect(rulesCoverCall(rules, BashTool, { command: 'git add . && git push' }, ctx)).toBe(false);
    expect(rulesCoverCall(rules, ReadTool, { file_path: path.join(proj, 'a.txt') }, ctx)).toBe(true);
    expect(rulesCoverCall(rules, ReadTool, { file_path: '/etc/hostname' }, ctx)).toBe(false);
    expect(rulesCoverCall([], ReadTool, { file_path: path.join(proj, 'a.txt') }, ctx)).toBe(false);
  });
});
