import { afterEach, describe, expect, it } from 'vitest';
import { hasPermissionsToUseTool } from '../../permissions/resolve.js';
import type { PermissionRule } from '../../tool/permission-types.js';
import type { SandboxSettings } from './bash-settings.js';
import { BashTool } from './index.js';
import { detectSandbox } from './sandbox.js';
import { makeProject, type TestProject } from './test-helpers/project.js';

const availability = await detectSandbox();
// Written reason for skipping: auto-allow applies only where the sandbox really runs (bubblewrap + socat installed,
// namespaces allowed); where it cannot, the refusal is tested by the last case, which always runs.
const canSandbox = availability.available;

const bashRule = (behavior: 'allow' | 'deny' | 'ask', ruleContent: string): PermissionRule => ({
  source: 'session',
  ruleBehavior: behavior,
  ruleValue: { toolName: 'Bash', ruleContent },
});

const projects: TestProject[] = [];
afterEach(async () => {
  for (const p of projects.splice(0)) await p.cleanup();
});

async function decide(command: string, sandbox: SandboxSettings | undefined, rules: { deny?: PermissionRule[]; ask?: PermissionRule[] } = {}) {
  const p = makeProject({
    settings: sandbox ? { sandbox } : {},
    rules: { alwaysDenyRules: rules.deny ?? [], alwaysAskRules: rules.ask ?? [] },
  });
  projects.push(p);
  return hasPermissionsToUseTool(BashTool, { command }, p.context);
}

describe.skipIf(!canSandbox)('sandbox.autoAllowBashIfSandboxed', () => {
  it('allows, without asking, a command that asks only because it is not provably read-only', async () => {
    expect((await decide('python3 build.py', undefined)).behavior).toBe('ask');
    const d = await decide('python3 build.py', { enabled: true });
    expect(d.behavior).toBe('allow');
    expect(d.decisionReason?.reason).toContain('autoAllowBashIfSandboxed');
  });

  it('still denies by deny rules and asks by ask rules', async () => {
    expect((await decide('python3 build.py', { enabled: true }, { deny: [bashRule('deny', 'python3:*')] })).behavior).toBe('deny');
    expect((await decide('python3 build.py', { enabled: true }, { ask: [bashRule('ask', 'python3:*')] })).behavior).toBe('ask');
  });

  it('still asks for a command that asks for another reason', async () => {
    expect((await decide('python3 x.py', { enabled: true }, {})).behavior).toBe('allow');
    expect((await decide('rm -rf /', { enabled: true })).behavior).toBe('ask');
    expect((await decide('echo hi', { enabled: true, autoAllowBashIfSandboxed: false })).behavior).toBe('allow');
    expect((await decide('python3 build.py', { enabled: true, autoAllowBashIfSandboxed: false })).behavior).toBe('ask');
    expect((await decide('docker run x', { enabled: true, excludedCommands: ['docker'] })).behavior).toBe('ask');
    const d = await hasPermissionsToUseTool(BashTool, { command: 'python3 build.py', dangerouslyDisableSandbox: true }, makeTracked({ enabled: true }).context);
    expect(d.behavior).toBe('ask');
  });
});

describe.skipIf(!canSandbox)('git commands that write the repository', () => {
  // The sandbox keeps .git read-only: such a command runs outside it, so being sandboxed approves nothing.
  it('are never approved for being sandboxed; read-only git still is allowed as read-only', async () => {
    for (const command of ['git commit -m x', 'git fetch', 'git checkout -b x', 'git -c core.fsmonitor=x status', 'git config core.hooksPath h', 'sudo git pull', "bash -c 'git gc'", 'env GIT_DIR=.git git init']) {
      const d = await decide(command, { enabled: true });
      expect(d.behavior, command).toBe('ask');
      expect(d.decisionReason?.reason ?? '', command).not.toContain('autoAllowBashIfSandboxed');
    }
    expect((await decide('git status', { enabled: true })).behavior).toBe('allow');
    expect((await decide('git log --oneline -3', { enabled: true })).behavior).toBe('allow');
    // Other unknown commands are still approved for being sandboxed.
    expect((await decide('python3 build.py && echo git commit', { enabled: true })).behavior).toBe('allow');
  });

  it('an allow rule still allows one (it then runs outside the sandbox)', async () => {
    const p = makeProject({ settings: { sandbox: { enabled: true } }, rules: { alwaysAllowRules: [bashRule('allow', 'git commit:*')] } });
    projects.push(p);
    expect((await hasPermissionsToUseTool(BashTool, { command: 'git commit -m x' }, p.context)).behavior).toBe('allow');
  });
});

function makeTracked(sandbox: SandboxSettings): TestProject {
  const p = makeProject({ settings: { sandbox } });
  projects.push(p);
  return p;
}

describe('sandbox requested but unavailable', () => {
  afterEach(async () => {
    await detectSandbox({ refresh: true });
  });
  it('never auto-allows', async () => {
    await detectSandbox({ refresh: true, env: { PATH: '/nonexistent' } });
    expect((await decide('python3 build.py', { enabled: true })).behavior).toBe('ask');
  });
});
