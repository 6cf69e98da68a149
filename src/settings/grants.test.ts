/**
 * Grants round-trip: the narrowest rules for a call are written to a real settings file, read back by loadSettings,
 * and the engine then allows exactly that call — not a broader one. Expiry, revoke, list and the update sink too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BashTool } from '../tools/bash/index.js';
import { EditTool } from '../tools/edit/index.js';
import { resolvePermission } from '../permissions/resolve.js';
import { narrowestRules } from '../permissions/grant-rules.js';
import { applyPermissionUpdates, parsePermissionUpdates } from '../permissions/permission-updates.js';
import type { PermissionRuleValue, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { formatPermissionRule } from '../permissions/permission-rule.js';
import { createGrantWriter, editSettingsFile, GrantError, listGrants, revokeGrant, writeGrants } from './grants.js';
import { loadSettings } from './load-settings.js';
import { loadBashParser } from '../permissions/bash/parser.js';

// narrowestRules is asked here directly; in a session it comes after the engine's decision, which loaded the parser.
await loadBashParser();

let tmp: string;
let proj: string;
let home: string;
let managed: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-grants-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  managed = path.join(tmp, 'managed.json');
  fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const where = () => ({ projectDir: proj, homeDir: home });
const load = () => loadSettings({ cwd: proj, homeDir: home, managedSettingsPath: managed });
const ctxNow = (): ToolPermissionContext => {
  const s = load();
  expect(s.errors).toEqual([]);
  return s.permissionContext;
};
const decide = (tool: AnyTool, input: Record<string, unknown>, ctx = ctxNow()) => resolvePermission(tool, input, ctx);
const bash = (command: string, ctx?: ToolPermissionContext) => decide(BashTool, { command }, ctx);
const texts = (rules: readonly PermissionRuleValue[]) => rules.map(formatPermissionRule);
const localFile = () => path.join(proj, '.claude', 'settings.local.json');

/** Approve `command` with a rule grant, as the runtime would: narrowest rules → file → reload. */
function grant(command: string, destination: 'localSettings' | 'projectSettings' | 'userSettings' = 'localSettings', expiresAt?: string) {
  const rules = narrowestRules(BashTool, { command }, ctxNow());
  expect(rules.length).toBeGreaterThan(0);
  return writeGrants({ ...where(), destination, rules, ...(expiresAt ? { expiresAt } : {}) });
}

describe('narrowest rules', () => {
  it('one exact rule per subcommand that needs approval, none for read-only parts, never Bash', () => {
    const rules = narrowestRules(BashTool, { command: 'npm test && git status && git push origin main | tee /dev/null' }, ctxNow());
    expect(texts(rules)).toEqual(['Bash(npm test)', 'Bash(git push origin main)', 'Bash(tee /dev/null)']);
  });

  it('quotes words so the matcher reads back the same words (globs stay literal, parentheses escaped)', () => {
    const rules = narrowestRules(BashTool, { command: `node -e 'console.log("a b")' '*.ts'` }, ctxNow());
    expect(texts(rules)).toEqual([`Bash(node -e 'console.log\\("a b"\\)' '*.ts')`]);
  });

  it('no rule for what no rule can cover: non-literal words, unparsable commands, unsafe constructs', () => {
    for (const command of ['rm -rf "$DIR"', 'echo $(whoami) | sh', 'eval "$x"', 'if then fi']) {
      expect(narrowestRules(BashTool, { command }, ctxNow()), command).toEqual([]);
    }
  });

  it('file tools get the exact path, escaped', () => {
    const file = path.join(proj, 'src', 'a[1]*.ts');
    expect(narrowestRules(EditTool as AnyTool, { file_path: file, old_string: 'a', new_string: 'b' }, ctxNow())).toEqual([{ toolName: 'Edit', ruleContent: `/${proj}/src/a\\[1\\]\\*.ts` }]);
  });
});

describe('round trip: write → loadSettings → the engine allows exactly that', () => {
  it('a compound command, granted per subcommand', async () => {
    const command = 'npm run build && npm publish --dry-run';
    expect((await bash(command)).behavior).toBe('ask');
    const written = grant(command);
    expect(written.file).toBe(localFile());
    const ctx = ctxNow();
    expect((await bash(command, ctx)).behavior).toBe('allow');
    // Not broader: other arguments, an extra subcommand, or another command still ask.
    for (const other of ['npm run build --prod', 'npm publish', 'npm run build && npm publish --dry-run && npm publish', 'npm run build; rm -rf src']) {
      expect((await bash(other, ctx)).behavior, other).toBe('ask');
    }
  });

  it('a rule with quotes and globs matches only the literal call', async () => {
    const command = `node -e 'process.exit(0)' '*.ts'`;
    grant(command);
    const ctx = ctxNow();
    expect((await bash(command, ctx)).behavior).toBe('allow');
    expect((await bash(`node -e 'process.exit(0)' a.ts`, ctx)).behavior).toBe('ask');
    expect((await bash(`node -e 'process.exit(1)' '*.ts'`, ctx)).behavior).toBe('ask');
  });

  it('an Edit grant covers that file and not its neighbours', async () => {
    const file = path.join(proj, 'src', 'a.ts');
    const input = { file_path: file, old_string: 'a', new_string: 'b' };
    writeGrants({ ...where(), destination: 'projectSettings', rules: narrowestRules(EditTool as AnyTool, input, ctxNow()) });
    const ctx = ctxNow();
    expect((await decide(EditTool as AnyTool, input, ctx)).behavior).toBe('allow');
    expect((await decide(EditTool as AnyTool, { ...input, file_path: path.join(proj, 'src', 'b.ts') }, ctx)).behavior).toBe('ask');
  });

  it('keeps every other key and the indentation of the file', () => {
    const original = { $schema: 'x', model: 'opus', permissions: { allow: ['Bash(ls:*)'], deny: ['Read(./.env)'], defaultMode: 'default' }, hooks: { Stop: [] } };
    fs.mkdirSync(path.dirname(localFile()), { recursive: true });
    fs.writeFileSync(localFile(), JSON.stringify(original, null, 4));
    grant('make deploy');
    const text = fs.readFileSync(localFile(), 'utf8');
    expect(text).toMatch(/^ {4}"\$schema"/m);
    expect(JSON.parse(text)).toEqual({ ...original, permissions: { ...original.permissions, allow: ['Bash(ls:*)', 'Bash(make deploy)'] } });
    // Nothing left to grant for it, and writing the rule again adds nothing.
    expect(narrowestRules(BashTool, { command: 'make deploy' }, ctxNow())).toEqual([]);
    writeGrants({ ...where(), destination: 'localSettings', rules: ['Bash(make  deploy)'] });
    expect(JSON.parse(fs.readFileSync(localFile(), 'utf8')).permissions.allow).toEqual(['Bash(ls:*)', 'Bash(make deploy)']);
  });

  it('never overwrites a file that is not valid JSON', () => {
    fs.mkdirSync(path.dirname(localFile()), { recursive: true });
    fs.writeFileSync(localFile(), '{ "permissions": { ');
    expect(() => writeGrants({ ...where(), destination: 'localSettings', rules: ['Bash(make deploy)'] })).toThrow(GrantError);
    expect(fs.readFileSync(localFile(), 'utf8')).toBe('{ "permissions": { ');
  });

  it('refuses a grant of all of Bash', () => {
    expect(() => writeGrants({ ...where(), destination: 'localSettings', rules: ['Bash'] })).toThrow(/all of Bash/);
    expect(() => writeGrants({ ...where(), destination: 'localSettings', rules: ['Bash(*)'] })).toThrow(/all of Bash/);
  });
});

describe('expiry', () => {
  it('an expiring grant lives in toolgate’s twin file and lapses; the trace says so', async () => {
    const command = 'make deploy';
    const written = grant(command, 'localSettings', '2000-01-01T00:00:00Z');
    expect(written.file).toBe(path.join(proj, '.toolgate', 'settings.local.json'));
    expect(JSON.parse(fs.readFileSync(written.file, 'utf8'))).toEqual({ permissions: { allow: ['Bash(make deploy)'], expires: { 'Bash(make deploy)': '2000-01-01T00:00:00.000Z' } } });
    // Claude Code's own file was not touched.
    expect(fs.existsSync(localFile())).toBe(false);
    const d = await bash(command);
    expect(d.behavior).toBe('ask');
    expect(d.decisionReason?.reason).toMatch(/Bash\(make deploy\).*expired at 2000-01-01T00:00:00.000Z and was ignored/);
    expect(d.decisionReason?.expiredRule).toBe('Bash(make deploy)');
  });

  it('a grant that has not expired yet allows', async () => {
    grant('make deploy', 'userSettings', '2999-01-01T00:00:00Z');
    const d = await bash('make deploy');
    expect(d.behavior).toBe('allow');
    expect(d.decisionReason?.sourceFile).toBe(path.join(home, '.toolgate', 'settings.json'));
  });

  it('an unreadable expiry counts as expired (fail closed) and is reported', async () => {
    const file = path.join(proj, '.toolgate', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ permissions: { allow: ['Bash(make deploy)'], expires: { 'Bash(make deploy)': 'next tuesday' } } }));
    const s = load();
    expect(s.errors.map((e) => e.message).join()).toMatch(/ISO date/);
    expect((await resolvePermission(BashTool, { command: 'make deploy' }, s.permissionContext)).behavior).toBe('ask');
  });
});

describe('list and revoke', () => {
  it('lists every allow rule with file and expiry, and revokes by rule text', async () => {
    grant('make deploy');
    grant('make test', 'projectSettings', '2000-01-01T00:00:00Z');
    const { grants } = listGrants({ cwd: proj, homeDir: home, managedSettingsPath: managed });
    expect(grants).toEqual([
      { rule: 'Bash(make deploy)', source: 'localSettings', file: localFile(), expired: false },
      { rule: 'Bash(make test)', source: 'projectSettings', file: path.join(proj, '.toolgate', 'settings.json'), expiresAt: '2000-01-01T00:00:00.000Z', expired: true },
    ]);
    expect(revokeGrant(' Bash(make test) ', where())).toEqual([{ file: path.join(proj, '.toolgate', 'settings.json'), rule: 'Bash(make test)' }]);
    expect(JSON.parse(fs.readFileSync(path.join(proj, '.toolgate', 'settings.json'), 'utf8'))).toEqual({ permissions: { allow: [] } });
    expect(revokeGrant('Bash(make deploy)', { ...where(), file: path.join(proj, '.claude', 'settings.json') })).toEqual([]);
    expect(revokeGrant('Bash(make deploy)', where())).toHaveLength(1);
    expect((await bash('make deploy')).behavior).toBe('ask');
  });
});

describe('permission updates (hook updatedPermissions, runtime rule answers)', () => {
  it('checks untrusted entries and reports the bad ones', () => {
    const { updates, errors } = parsePermissionUpdates([
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make deploy' }], behavior: 'allow', destination: 'localSettings' },
      { type: 'addRules', rules: ['Bash(make x)'], behavior: 'allow', destination: 'session', expiresAt: '2030-01-01' },
      { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'nowhere' },
      { type: 'setMode', mode: 'chaos', destination: 'session' },
      { type: 'explode' },
      'junk',
    ]);
    expect(updates).toHaveLength(2);
    expect(errors).toHaveLength(4);
  });

  it('the sink writes file destinations and leaves session ones to memory', async () => {
    const { updates } = parsePermissionUpdates([
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make deploy' }], behavior: 'allow', destination: 'localSettings' },
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make session' }], behavior: 'allow', destination: 'session' },
      { type: 'addDirectories', directories: ['../shared'], destination: 'projectSettings' },
    ]);
    const r = await createGrantWriter(where()).persist(updates);
    expect(r.errors).toEqual([]);
    expect(r.written).toEqual([localFile(), path.join(proj, '.claude', 'settings.json')]);
    expect((await bash('make deploy')).behavior).toBe('allow');
    expect((await bash('make session')).behavior).toBe('ask');
    const live = applyPermissionUpdates(ctxNow(), updates);
    expect((await bash('make session', live)).behavior).toBe('allow');
    expect([...live.additionalWorkingDirectories.keys()]).toContain(path.join(tmp, 'shared'));
  });

  it('editSettingsFile leaves a file alone when nothing changes', () => {
    expect(editSettingsFile(localFile(), () => false)).toBe(false);
    expect(fs.existsSync(localFile())).toBe(false);
  });
});
