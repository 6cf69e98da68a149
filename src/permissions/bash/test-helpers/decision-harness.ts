/**
 * A decision harness for the Bash permission tests: a real temporary project (with a symlink to /etc), a home and
 * an extra working directory, rules built into a real ToolPermissionContext, and write checks that allow inside
 * the working directories, deny under `denied/`, and ask elsewhere.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  getEmptyToolPermissionContext,
  type DecisionLayer,
  type PermissionBehavior,
  type PermissionResult,
  type PermissionRule,
  type ToolPermissionContext,
} from '../../../tool/permission-types.js';
import { checkBashPermission } from '../check-permission.js';
import type { BashPermissionDeps } from '../types.js';
import { loadBashParser } from '../parser.js';

// The analysis is synchronous once the parser is loaded (the engine loads it before judging a shell call).
await loadBashParser();

export const root = mkdtempSync(join(tmpdir(), 'toolgate-bash-perm-'));
export const cwd = join(root, 'project');
export const home = join(root, 'home');
export const extra = join(root, 'extra');
mkdirSync(join(cwd, 'src'), { recursive: true });
mkdirSync(home, { recursive: true });
mkdirSync(extra, { recursive: true });
writeFileSync(join(cwd, 'package.json'), '{"name":"x"}');
symlinkSync('/etc', join(cwd, 'etc-link'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

export type Rules = { allow?: string[]; deny?: string[]; ask?: string[] };

function rule(ruleBehavior: PermissionBehavior, content: string | null): PermissionRule {
  return {
    source: 'projectSettings',
    ruleBehavior,
    ruleValue: content === null ? { toolName: 'Bash' } : { toolName: 'Bash', ruleContent: content },
    sourceFile: join(cwd, '.claude/settings.json'),
  };
}

export function context(rules: Rules = {}): ToolPermissionContext {
  const toRules = (b: PermissionBehavior, xs: string[] = []) => xs.map((c) => rule(b, c === 'Bash' ? null : c));
  return {
    ...getEmptyToolPermissionContext(cwd),
    homeDir: home,
    additionalWorkingDirectories: new Map([[extra, { path: extra, source: 'session' }]]),
    alwaysAllowRules: [...toRules('allow', rules.allow), { source: 'userSettings', ruleBehavior: 'allow', ruleValue: { toolName: 'Read' } }],
    alwaysDenyRules: toRules('deny', rules.deny),
    alwaysAskRules: toRules('ask', rules.ask),
  };
}

/** Writes inside the working directories are fine, `denied/` is denied, anything else asks. */
export const deps: BashPermissionDeps = {
  checkWritePath(abs) {
    if (abs.includes(`${join(cwd, 'denied')}`)) return { behavior: 'deny', message: `write to ${abs} denied`, decisionReason: { layer: 'denyRule', reason: 'Edit deny', rule: 'Edit(denied/**)' } };
    if (abs.startsWith(`${cwd}/`) || abs.startsWith(`${extra}/`)) return { behavior: 'allow' };
    return { behavior: 'ask', message: `write to ${abs} needs permission` };
  },
};

export function check(command: string, rules: Rules = {}, d: BashPermissionDeps = deps): PermissionResult {
  return checkBashPermission(command, context(rules), d);
}

export type Expect = 'allow' | 'deny' | 'ask' | 'passthrough' | 'notAllow';
export type Case = [command: string, rules: Rules, expected: Expect, layer?: DecisionLayer];

export function run(cases: readonly Case[]): void {
  it.each(cases.map(([command, rules, expected, layer]) => [command.length > 100 ? `${command.slice(0, 60)}… (${command.length} chars)` : command, command, rules, expected, layer] as const))(
    '%j',
    (_label, command, rules, expected, layer) => {
      const result = check(command, rules);
      if (expected === 'notAllow') expect(result.behavior).not.toBe('allow');
      else expect(result.behavior).toBe(expected);
      if (layer) expect(result.decisionReason?.layer).toBe(layer);
    },
  );
}

export const none: Rules = {};