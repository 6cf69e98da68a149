/**
 * The engine remembers per-context answers (tool-level rules, parsed parameter rules): an answer must never outlive
 * the rules it came from — another context, or a context whose lists are not frozen and change, decides afresh.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from '../tool/build-tool.js';
import type { PermissionRule, ToolPermissionContext } from '../tool/permission-types.js';
import { createToolUseContext } from '../tool/tool-use-context.js';
import { createPermissionContext, parseRules } from './permission-context.js';
import { hasPermissionsToUseTool } from './resolve.js';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-rule-memo-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const Probe = buildTool({
  name: 'Probe',
  inputSchema: z.object({ mode: z.string().optional() }),
  maxResultSizeChars: 1000,
  prompt: async () => 'probe',
  call: async () => ({ data: '' }),
});

async function decide(ctx: ToolPermissionContext, input: Record<string, unknown> = {}) {
  const context = createToolUseContext({ tools: [Probe], permissionContext: ctx, sessionDir: tmp });
  const d = await hasPermissionsToUseTool(Probe, input, context);
  return `${d.behavior}:${d.decisionReason?.layer}:${d.decisionReason?.rule ?? ''}`;
}

describe('remembered rule answers', () => {
  it('follow the context: allow in one, deny in another, allow again in the first', async () => {
    const allowing = createPermissionContext({ cwd: tmp, rules: parseRules(['Probe'], 'allow', 'session') });
    const denying = createPermissionContext({ cwd: tmp, rules: parseRules(['Probe'], 'deny', 'session') });
    const asking = createPermissionContext({ cwd: tmp, rules: [...parseRules(['Probe'], 'allow', 'session'), ...parseRules(['Probe'], 'ask', 'session')] });
    expect(await decide(allowing)).toBe('allow:allowRule:Probe');
    expect(await decide(denying)).toBe('deny:denyRule:Probe');
    expect(await decide(asking)).toBe('ask:askRule:Probe');
    expect(await decide(allowing)).toBe('allow:allowRule:Probe');
  });

  it('parameter rules follow the context too', async () => {
    const denyPlan = createPermissionContext({ cwd: tmp, rules: [...parseRules(['Probe'], 'allow', 'session'), ...parseRules(['Probe(mode:plan*)'], 'deny', 'session')] });
    const askPlan = createPermissionContext({ cwd: tmp, rules: [...parseRules(['Probe'], 'allow', 'session'), ...parseRules(['Probe(mode:plan*)'], 'ask', 'session')] });
    expect(await decide(denyPlan, { mode: 'planning' })).toBe('deny:denyRule:Probe(mode:plan*)');
    expect(await decide(askPlan, { mode: 'planning' })).toBe('ask:askRule:Probe(mode:plan*)');
    expect(await decide(denyPlan, { mode: 'draft' })).toBe('allow:allowRule:Probe');
  });

  it('a context built by hand with mutable lists is read afresh on every decision', async () => {
    const allow: PermissionRule[] = [];
    const deny: PermissionRule[] = [];
    const ctx: ToolPermissionContext = { ...createPermissionContext({ cwd: tmp }), alwaysAllowRules: allow, alwaysDenyRules: deny };
    expect(await decide(ctx)).toBe('ask:prompt:');
    allow.push(...parseRules(['Probe'], 'allow', 'session'));
    expect(await decide(ctx)).toBe('allow:allowRule:Probe');
    deny.push(...parseRules(['Probe(mode:x)'], 'deny', 'session'));
    expect(await decide(ctx, { mode: 'x' })).toBe('deny:denyRule:Probe(mode:x)');
    deny.push(...parseRules(['Probe'], 'deny', 'session'));
    expect(await decide(ctx)).toBe('deny:denyRule:Probe');
  });
});
