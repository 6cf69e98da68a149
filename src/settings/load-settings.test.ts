import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from '../tool/build-tool.js';
import { resolvePermission } from '../permissions/resolve.js';
import { loadSettings, type LoadSettingsOptions } from './load-settings.js';

let tmp: string;
let proj: string;
let home: string;
let managed: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-settings-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  managed = path.join(tmp, 'etc', 'managed-settings.json');
  fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(file: string, content: unknown): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}
const userFile = () => path.join(home, '.claude', 'settings.json');
const projectFile = () => path.join(proj, '.claude', 'settings.json');
const localFile = () => path.join(proj, '.claude', 'settings.local.json');
const toolgateProject = () => path.join(proj, '.toolgate', 'settings.json');

function load(extra: Partial<LoadSettingsOptions> = {}) {
  return loadSettings({ cwd: proj, homeDir: home, managedSettingsPath: managed, ...extra });
}

const Edit = buildTool({
  name: 'Edit',
  inputSchema: z.object({ file_path: z.string() }),
  maxResultSizeChars: 1,
  prompt: async () => '',
  call: async () => ({ data: '' }),
  getPath: (i) => i.file_path,
});
const Read = { ...Edit, name: 'Read', isReadOnly: () => true };

describe('loadSettings', () => {
  it('reads every scope and keeps source and file on each rule', () => {
    write(userFile(), { permissions: { allow: ['Bash(git status:*)'] } });
    write(projectFile(), { permissions: { deny: ['Read(./.env)'] } });
    write(localFile(), { permissions: { ask: ['Bash(git push:*)'] } });
    write(toolgateProject(), { permissions: { allow: ['Edit(./src/**)'] } });
    write(managed, { permissions: { deny: ['WebFetch'] } });
    const s = load({ cliRules: { allow: ['Read'] } });
    expect(s.errors).toEqual([]);
    const ctx = s.permissionContext;
    const summary = (rs: typeof ctx.alwaysAllowRules) => rs.map((r) => [r.source, r.sourceFile]);
    expect(summary(ctx.alwaysAllowRules)).toEqual([
      ['cliArg', 'command line'],
      ['projectSettings', toolgateProject()],
      ['userSettings', userFile()],
    ]);
    expect(summary(ctx.alwaysDenyRules)).toEqual([
      ['policySettings', managed],
      ['projectSettings', projectFile()],
    ]);
    expect(summary(ctx.alwaysAskRules)).toEqual([['localSettings', localFile()]]);
    expect(Object.isFrozen(ctx)).toBe(true);
  });

  it('a deny at the lowest level beats an allow at the highest', async () => {
    write(userFile(), { permissions: { deny: ['Edit(./src/**)'] } });
    write(managed, { permissions: { allow: ['Edit(./src/**)'] } });
    const s = load({ cliRules: { allow: ['Edit'] } });
    const d = await resolvePermission(Edit, { file_path: path.join(proj, 'src', 'a.ts') }, s.permissionContext);
    expect(d).toMatchObject({ behavior: 'deny', decisionReason: { layer: 'denyRule', source: 'userSettings', sourceFile: userFile() } });
  });

  it('/path rules are anchored at the project for project files and at ~/.claude for user files', async () => {
    write(projectFile(), { permissions: { deny: ['Read(/secrets/**)'] } });
    write(userFile(), { permissions: { deny: ['Read(/notes/**)'] } });
    const s = load();
    const decide = (p: string) => resolvePermission(Read, { file_path: p }, s.permissionContext).then((d) => d.behavior);
    expect(await decide(path.join(proj, 'secrets', 'k'))).toBe('deny');
    expect(await decide(path.join(home, '.claude', 'notes', 'n'))).toBe('deny');
    expect(await decide(path.join(proj, 'notes', 'n'))).toBe('allow');
  });

  it('defaultMode comes from the highest level; the command line beats all; auto is ignored from project files', () => {
    write(userFile(), { permissions: { defaultMode: 'acceptEdits' } });
    write(projectFile(), { permissions: { defaultMode: 'plan' } });
    expect(load().permissionContext.mode).toBe('plan');
    expect(load({ mode: 'dontAsk' }).permissionContext.mode).toBe('dontAsk');
    write(projectFile(), { permissions: { defaultMode: 'auto' } });
    const s = load();
    expect(s.permissionContext.mode).toBe('acceptEdits');
    expect(s.warnings.join('\n')).toMatch(/"auto" is ignored/);
    write(localFile(), { permissions: { defaultMode: 'manual' } });
    expect(load().permissionContext.mode).toBe('default');
  });

  it('toolgate files win scalar keys over Claude Code files of the same level', () => {
    write(projectFile(), { permissions: { defaultMode: 'plan' } });
    write(toolgateProject(), { permissions: { defaultMode: 'dontAsk' } });
    expect(load().permissionContext.mode).toBe('dontAsk');
  });

  it("a project's defaultMode narrows the mode the other levels give, never widens it", () => {
    write(projectFile(), { permissions: { defaultMode: 'bypassPermissions' } });
    let s = load();
    expect(s.permissionContext.mode).toBe('default');
    expect(s.permissionContext.isBypassPermissionsModeAvailable).toBe(false);
    expect(s.warnings.join('\n')).toMatch(/"bypassPermissions" is ignored: a project's settings may narrow the permission mode, never widen it \(the mode stays "default"/);
    write(localFile(), { permissions: { defaultMode: 'acceptEdits' } });
    expect(load().permissionContext.mode).toBe('default');
    write(userFile(), { permissions: { defaultMode: 'acceptEdits' } });
    s = load();
    expect(s.permissionContext.mode).toBe('acceptEdits');
    write(localFile(), { permissions: { defaultMode: 'plan' } });
    expect(load().permissionContext.mode).toBe('plan');
    // The command line is the person's choice: it beats every file.
    expect(load({ mode: 'bypassPermissions' }).permissionContext.mode).toBe('bypassPermissions');
  });

  it('disableBypassPermissionsMode forbids bypass', () => {
    write(managed, { permissions: { disableBypassPermissionsMode: 'disable' } });
    const s = load({ mode: 'bypassPermissions' });
    expect(s.permissionContext.mode).toBe('default');
    expect(s.permissionContext.isBypassPermissionsModeAvailable).toBe(false);
    expect(s.errors[0]).toMatchObject({ file: managed, key: 'permissions.disableBypassPermissionsMode' });
  });

  it('bypassPermissions is available only to a session that starts in it or opted in (allowBypassPermissions)', () => {
    expect(load().permissionContext.isBypassPermissionsModeAvailable).toBe(false);
    expect(load({ mode: 'bypassPermissions' }).permissionContext.isBypassPermissionsModeAvailable).toBe(true);
    expect(load({ allowBypassPermissions: true }).permissionContext).toMatchObject({ mode: 'default', isBypassPermissionsModeAvailable: true });
    write(managed, { permissions: { disableBypassPermissionsMode: 'disable' } });
    expect(load({ allowBypassPermissions: true }).permissionContext.isBypassPermissionsModeAvailable).toBe(false);
  });

  it('a --settings file that is not there is an error (fail closed), an inline object never is', () => {
    const missing = path.join(tmp, 'policy.json');
    const s = load({ flagSettingsFiles: [missing, '{}'] });
    expect(s.errors).toEqual([{ file: missing, message: 'settings file not found' }]);
  });

  it('allowManagedPermissionRulesOnly keeps only managed rules', () => {
    write(managed, { allowManagedPermissionRulesOnly: true, permissions: { allow: ['Read'] } });
    write(projectFile(), { permissions: { allow: ['Bash'], deny: ['Edit'] } });
    const ctx = load().permissionContext;
    expect([...ctx.alwaysAllowRules, ...ctx.alwaysDenyRules].map((r) => r.source)).toEqual(['policySettings']);
  });

  it('additionalDirectories merge and resolve (~, relative to the project)', () => {
    write(userFile(), { permissions: { additionalDirectories: ['~/shared'] } });
    write(projectFile(), { permissions: { additionalDirectories: ['../sibling'] } });
    const dirs = [...load().permissionContext.additionalWorkingDirectories.keys()];
    expect(dirs.sort()).toEqual([path.join(home, 'shared'), path.join(tmp, 'sibling')].sort());
  });

  it('flag settings files and inline JSON sit above the project', () => {
    const flag = write(path.join(tmp, 'flag.json'), { permissions: { defaultMode: 'plan', deny: ['Bash(rm:*)'] } });
    write(localFile(), { permissions: { defaultMode: 'acceptEdits' } });
    const s = load({ flagSettingsFiles: [flag, '{"permissions": {"ask": ["Bash(curl:*)"]}}'] });
    expect(s.errors).toEqual([]);
    expect(s.permissionContext.mode).toBe('plan');
    expect(s.permissionContext.alwaysDenyRules[0]).toMatchObject({ source: 'flagSettings', sourceFile: flag });
    expect(s.permissionContext.alwaysAskRules[0]).toMatchObject({ source: 'flagSettings' });
  });

  it('hooks, env and sandbox are passed up by source, merged by precedence', () => {
    write(userFile(), { hooks: { PreToolUse: [] }, env: { A: 'user', B: 'user' }, sandbox: { enabled: false, network: { allowedDomains: ['a.com'] } } });
    write(projectFile(), { hooks: { PostToolUse: [] }, env: { A: 'project' }, sandbox: { enabled: true, network: { allowedDomains: ['b.com'] } } });
    const s = load();
    expect(s.hooksBySource.map((h) => [h.source, h.file])).toEqual([
      ['projectSettings', projectFile()],
      ['userSettings', userFile()],
    ]);
    expect(s.env).toEqual({ A: 'project', B: 'user' });
    expect(s.sandbox).toEqual({ enabled: true, network: { allowedDomains: ['a.com', 'b.com'] } });
  });
});

describe('loadSettings: errors and warnings', () => {
  it('malformed JSON names the file, line and column', () => {
    write(projectFile(), '{\n  "permissions": {\n    "allow": ["Read",]\n  }\n}');
    const s = load();
    expect(s.errors).toHaveLength(1);
    expect(s.errors[0]!.file).toBe(projectFile());
    expect(s.errors[0]!.message).toMatch(/invalid JSON/);
    expect(s.errors[0]!.message).toMatch(/line 3/);
  });
  it('a malformed rule names file, key and rule; the other rules still load', () => {
    write(projectFile(), { permissions: { deny: ['Bash(rm:*)', 'Bash(unclosed', 42], allow: ['mcp__*'] } });
    const s = load();
    expect(s.errors).toEqual([
      expect.objectContaining({ file: projectFile(), key: 'permissions.allow[0]', rule: 'mcp__*' }),
      expect.objectContaining({ file: projectFile(), key: 'permissions.deny[1]', rule: 'Bash(unclosed' }),
      expect.objectContaining({ file: projectFile(), key: 'permissions.deny[2]' }),
    ].sort(() => 0));
    expect(s.errors.map((e) => e.key).sort()).toEqual(['permissions.allow[0]', 'permissions.deny[1]', 'permissions.deny[2]']);
    expect(s.permissionContext.alwaysDenyRules.map((r) => r.ruleValue.ruleContent)).toEqual(['rm:*']);
  });
  it('wrong types are errors by key', () => {
    write(projectFile(), { permissions: { allow: 'Read', defaultMode: 'yolo', additionalDirectories: [1] }, env: { X: {} } });
    const keys = load().errors.map((e) => e.key).sort();
    expect(keys).toEqual(['env.X', 'permissions.additionalDirectories', 'permissions.allow', 'permissions.defaultMode']);
    write(projectFile(), '[1, 2]');
    expect(load().errors[0]!.message).toMatch(/must be a JSON object/);
  });
  it('unknown keys are warnings, not errors', () => {
    write(projectFile(), { permisions: { allow: ['Read'] }, permissions: { alow: [] }, model: 'x' });
    const s = load();
    expect(s.errors).toEqual([]);
    expect(s.warnings.join('\n')).toMatch(/unknown settings key "permisions"/);
    expect(s.warnings.join('\n')).toMatch(/"permissions\.alow"/);
  });
  it('a bad command-line rule is an error naming the flag', () => {
    const s = load({ cliRules: { deny: ['Bash(x'] } });
    expect(s.errors[0]).toMatchObject({ file: 'command line', key: '--deny', rule: 'Bash(x' });
  });
  it('missing files are fine; an unreadable path is an error', () => {
    expect(load().errors).toEqual([]);
    fs.mkdirSync(projectFile(), { recursive: true });
    expect(load().errors[0]).toMatchObject({ file: projectFile() });
  });
});

describe('sources and tool settings', () => {
  it('reads only the scopes asked for; --settings files always', () => {
    write(userFile(), { env: { FROM: 'user' } });
    write(projectFile(), { env: { FROM: 'project' } });
    write(managed, { env: { MANAGED: '1' } });
    expect(load({ sources: ['user'] }).env).toEqual({ FROM: 'user' });
    expect(load({ sources: [] }).env).toEqual({});
    expect(load({ sources: [], flagSettingsFiles: ['{"env":{"FLAG":"1"}}'] }).env).toEqual({ FLAG: '1' });
    expect(load().env).toEqual({ FROM: 'project', MANAGED: '1' });
  });

  it('merges the toolgate key key by key and keeps bashOutputMaxChars from the highest level', () => {
    // (A project's keys that toolgate protects only narrow: toolgate-key.test.ts. These are harmless ones.)
    write(userFile(), { toolgate: { bash: { killGraceMs: 50, defaultTimeoutMs: 1000 }, globTimeoutMs: 5000 }, bashOutputMaxChars: 9000 });
    write(projectFile(), { toolgate: { bash: { defaultTimeoutMs: 2000 }, globTimeoutMs: 7000 }, bashOutputMaxChars: 5000 });
    const s = load();
    expect(s.toolgate).toEqual({ bash: { killGraceMs: 50, defaultTimeoutMs: 2000 }, globTimeoutMs: 7000 });
    expect(s.bashOutputMaxChars).toBe(5000);
  });

  it('rejects a sandbox, toolgate or bashOutputMaxChars of the wrong type', () => {
    write(projectFile(), { sandbox: true, toolgate: [], bashOutputMaxChars: 'big' });
    expect(load().errors.map((e) => e.key).sort()).toEqual(['bashOutputMaxChars', 'sandbox', 'toolgate']);
  });
});
