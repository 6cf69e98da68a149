import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRule, PermissionRuleSource, ToolPermissionContext } from '../tool/permission-types.js';
import { createPermissionContext, parseRules } from './permission-context.js';
import { PathChecks } from '../tool/path-checks.js';
import { checkPathPermission, deniedOpenedObject, expandPath, isPathReadDenied, readDenyGlobs, type PathAccessKind } from './paths.js';

let tmp: string;
let proj: string;
let home: string;
let outside: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-paths-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  outside = path.join(tmp, 'outside');
  for (const d of [proj, home, outside, path.join(proj, 'src', 'deep'), path.join(proj, 'secrets'), path.join(home, '.claude')]) {
    fs.mkdirSync(d, { recursive: true });
  }
  fs.writeFileSync(path.join(proj, '.env'), 'K=V');
  fs.writeFileSync(path.join(proj, 'src', 'a.ts'), '');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'x');
  fs.writeFileSync(path.join(proj, 'secrets', 'key.pem'), 'x');
  // A link inside the project that points at a file outside it, one at the secret .env, and a linked directory.
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(proj, 'innocent.txt'));
  fs.symlinkSync(path.join(proj, '.env'), path.join(proj, 'src', 'config.txt'));
  fs.symlinkSync(outside, path.join(proj, 'linkdir'));
  fs.symlinkSync(path.join(proj, '.git-nope'), path.join(proj, 'dangling'));
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function ctx(
  rules: { allow?: string[]; deny?: string[]; ask?: string[]; source?: PermissionRuleSource; root?: string } = {},
  extra: Partial<Parameters<typeof createPermissionContext>[0]> = {},
): ToolPermissionContext {
  const source = rules.source ?? 'projectSettings';
  const opts = rules.root !== undefined ? { root: rules.root } : {};
  const all: PermissionRule[] = [
    ...parseRules(rules.allow ?? [], 'allow', source, opts),
    ...parseRules(rules.deny ?? [], 'deny', source, opts),
    ...parseRules(rules.ask ?? [], 'ask', source, opts),
  ];
  return createPermissionContext({ cwd: proj, homeDir: home, rules: all, ...extra });
}

function decide(p: string, kind: PathAccessKind, c: ToolPermissionContext) {
  const r = checkPathPermission(expandPath(p, c.cwd, c.homeDir), kind, c);
  return { behavior: r.behavior, layer: r.decisionReason?.layer, rule: r.decisionReason?.rule, reason: r.decisionReason?.reason };
}

describe('expandPath', () => {
  it.each([
    ['~', '/h'],
    ['~/x/y', '/h/x/y'],
    ['rel/a', '/c/rel/a'],
    ['./rel/./a/', '/c/rel/a'],
    ['../up', '/up'],
    ['//abs//x///', '/abs/x'],
    ['/a/b/../../../c', '/c'],
    // Another user's home, beside ours (root's is /root): never a folder of the working directory.
    ['~user/x', '/user/x'],
    ['~root/.ssh/id_rsa', '/root/.ssh/id_rsa'],
  ])('%s → %s', (input, out) => {
    expect(expandPath(input, '/c', '/h')).toBe(out);
  });
});

describe('expandPath of an absolute path', () => {
  it('is what path.resolve makes of it, normal already or not', () => {
    const cases = ['/', '//', '/a', '/a/', '/a//b', '/a/./b', '/a/../b', '/a/b/.', '/a/b/..', '/.', '/..', '/...', '/a/...', '/a/.b', '/a/..b', '/a/b..', '/a/.../b', '/a/b c/d', '/é/x', '/a/./', '///a'];
    for (const p of cases) expect(expandPath(p, '/c', '/h'), p).toBe(path.resolve(p));
  });
});

describe('checkPathPermission: working directories', () => {
  it('reads inside the cwd are free, outside ask', () => {
    expect(decide('src/a.ts', 'read', ctx())).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
    expect(decide(path.join(outside, 'secret.txt'), 'read', ctx())).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
  });
  it('writes inside the cwd pass through (prompt) in default, are allowed in acceptEdits', () => {
    expect(decide('src/a.ts', 'write', ctx())).toMatchObject({ behavior: 'passthrough' });
    expect(decide('src/a.ts', 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'allow', layer: 'mode' });
    expect(decide(path.join(outside, 'x'), 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask' });
  });
  it('additional directories count as working directories', () => {
    const c = ctx({}, { additionalDirectories: [outside] });
    expect(decide(path.join(outside, 'secret.txt'), 'read', c)).toMatchObject({ behavior: 'allow' });
  });
  it('traversal out of the cwd is outside', () => {
    expect(decide('src/../../outside/secret.txt', 'read', ctx())).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(decide(`${proj}/src/deep/../../../outside/x`, 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask' });
  });
  it('a sibling directory sharing the prefix is not inside', () => {
    fs.mkdirSync(`${proj}-evil`, { recursive: true });
    expect(decide(`${proj}-evil/x`, 'read', ctx())).toMatchObject({ behavior: 'ask' });
  });
  it('plan mode denies writes, bypass allows them', () => {
    expect(decide('src/a.ts', 'write', ctx({}, { mode: 'plan' }))).toMatchObject({ behavior: 'deny', layer: 'mode' });
    expect(decide(path.join(outside, 'x'), 'write', ctx({}, { mode: 'bypassPermissions' }))).toMatchObject({ behavior: 'allow', layer: 'mode' });
  });
});

describe('checkPathPermission: symlinks', () => {
  it('a link inside the tree to a file outside is judged outside', () => {
    expect(decide('innocent.txt', 'read', ctx())).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(decide('innocent.txt', 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask' });
  });
  it('a deny on the target denies the link', () => {
    expect(decide('src/config.txt', 'read', ctx({ deny: ['Read(./.env)'] }))).toMatchObject({ behavior: 'deny', rule: 'Read(./.env)' });
  });
  it('a deny on the link path denies too', () => {
    expect(decide('innocent.txt', 'read', ctx({ deny: ['Read(innocent.txt)'] }, { additionalDirectories: [outside] }))).toMatchObject({ behavior: 'deny' });
  });
  it('an allow needs both the link and its target', () => {
    expect(decide('innocent.txt', 'read', ctx({ allow: ['Read(./innocent.txt)'] }))).toMatchObject({ behavior: 'ask' });
    expect(decide('innocent.txt', 'read', ctx({ allow: ['Read(./innocent.txt)', `Read(/${outside}/**)`] }))).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
  });
  it('a new file through a symlinked parent is judged at its real location', () => {
    expect(decide('linkdir/new-file.txt', 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(decide('linkdir/new.txt', 'write', ctx({ deny: [`Edit(/${outside}/**)`] }))).toMatchObject({ behavior: 'deny' });
  });
  it('a symlinked working directory: rules written against the link hold for the real path, and the reverse', () => {
    const linkProj = path.join(tmp, 'link-proj');
    if (!fs.existsSync(linkProj)) fs.symlinkSync(proj, linkProj);
    const c = createPermissionContext({ cwd: linkProj, homeDir: home, rules: [...parseRules(['Read(./.env)'], 'deny', 'projectSettings'), ...parseRules(['Edit(./src/**)'], 'allow', 'projectSettings')] });
    expect(checkPathPermission(path.join(proj, '.env'), 'read', c).behavior).toBe('deny');
    expect(checkPathPermission(path.join(linkProj, '.env'), 'read', c).behavior).toBe('deny');
    expect(checkPathPermission(path.join(linkProj, 'src', 'a.ts'), 'write', c)).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'allowRule' } });
    expect(checkPathPermission(path.join(proj, 'src', 'a.ts'), 'write', c)).toMatchObject({ behavior: 'allow', decisionReason: { layer: 'allowRule' } });
    expect(readDenyGlobs(c, proj)).toContain('.[eE][nN][vV]');
  });
  it('a symlink loop is never allowed', () => {
    const a = path.join(tmp, 'loop-a');
    const b = path.join(tmp, 'loop-b');
    if (!fs.existsSync(a)) {
      fs.symlinkSync(b, a);
      fs.symlinkSync(a, b);
    }
    const c = ctx({}, { cwd: tmp, mode: 'bypassPermissions' });
    expect(checkPathPermission(path.join(a, 'x'), 'read', c)).toMatchObject({ behavior: 'ask', decisionReason: { layer: 'safetyCheck' } });
  });
  it('a hard link to a file a deny names literally is denied too', () => {
    const hard = path.join(proj, 'src', 'hard-env');
    if (!fs.existsSync(hard)) fs.linkSync(path.join(proj, '.env'), hard);
    const c = ctx({ deny: ['Read(./.env)'] }, { mode: 'bypassPermissions' });
    expect(decide('src/hard-env', 'read', c)).toMatchObject({ behavior: 'deny', rule: 'Read(./.env)' });
    expect(decide('src/hard-env', 'write', c)).toMatchObject({ behavior: 'deny' });
    expect(isPathReadDenied(hard, c)).toBe(true);
    expect(decide('src/a.ts', 'read', c)).toMatchObject({ behavior: 'allow' });
  });
  it('a dangling link is judged at its target', () => {
    const r = decide('dangling', 'write', ctx({ deny: ['Edit(.git-nope)'] }));
    expect(r).toMatchObject({ behavior: 'deny' });
  });
});

describe('checkPathPermission: rule anchoring', () => {
  it('//abs is absolute', () => {
    expect(decide('/etc/passwd', 'read', ctx({ deny: ['Read(//etc/**)'] }))).toMatchObject({ behavior: 'deny' });
    expect(decide('/etc/passwd', 'read', ctx({ allow: ['Read(//etc/passwd)'] }))).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
  });
  it('~/ is the home directory', () => {
    expect(decide('~/.ssh/id_rsa', 'read', ctx({ deny: ['Read(~/.ssh/**)'] }))).toMatchObject({ behavior: 'deny' });
  });
  it('/path is anchored at the project root for project rules, not the filesystem root', () => {
    const c = ctx({ deny: ['Read(/secrets/**)'] }, { cwd: path.join(proj, 'src'), projectDir: proj });
    expect(decide(path.join(proj, 'secrets', 'key.pem'), 'read', c)).toMatchObject({ behavior: 'deny' });
    expect(decide('/secrets/key.pem', 'read', ctx({ allow: ['Read(/secrets/**)'] }))).not.toMatchObject({ behavior: 'allow', layer: 'allowRule' });
  });
  it('/path in user settings is anchored at ~/.claude', () => {
    const c = ctx({ deny: ['Read(/notes/**)'], source: 'userSettings' });
    expect(decide(path.join(home, '.claude', 'notes', 'a'), 'read', c)).toMatchObject({ behavior: 'deny' });
    expect(decide(path.join(proj, 'notes', 'a'), 'read', c)).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
  });
  it('a rule root given explicitly wins', () => {
    const c = ctx({ deny: ['Read(/x/**)'], root: outside });
    expect(decide(path.join(outside, 'x', 'y'), 'read', c)).toMatchObject({ behavior: 'deny' });
  });
  it('./path is relative to the cwd; a deny path with a slash also at any depth (the reading that denies more)', () => {
    const c = ctx({ deny: ['Read(src/deep/*)'] });
    expect(decide('src/deep/f', 'read', c)).toMatchObject({ behavior: 'deny' });
    expect(decide('other/src/deep/f', 'read', c)).toMatchObject({ behavior: 'deny' });
    const anchored = ctx({ deny: ['Read(./src/deep/*)'] });
    expect(decide('other/src/deep/f', 'read', anchored)).toMatchObject({ behavior: 'allow' });
  });
  it('* does not cross /, ** does', () => {
    const c = ctx({ deny: ['Read(./src/*.ts)'] });
    expect(decide('src/a.ts', 'read', c)).toMatchObject({ behavior: 'deny' });
    expect(decide('src/deep/b.ts', 'read', c)).toMatchObject({ behavior: 'allow' });
    expect(decide('src/deep/b.ts', 'read', ctx({ deny: ['Read(./src/**/*.ts)'] }))).toMatchObject({ behavior: 'deny' });
    expect(decide('src/a.ts', 'read', ctx({ deny: ['Read(./src/**/*.ts)'] }))).toMatchObject({ behavior: 'deny' });
  });
  it('a slash-less deny floats to any depth and ignores case', () => {
    const c = ctx({ deny: ['Read(.env)'] });
    expect(decide('.env', 'read', c)).toMatchObject({ behavior: 'deny' });
    expect(decide('src/deep/.ENV', 'read', c)).toMatchObject({ behavior: 'deny' });
    expect(decide(path.join(outside, '.env'), 'read', c)).toMatchObject({ behavior: 'deny' });
    expect(decide('.env.example', 'read', c)).toMatchObject({ behavior: 'allow' });
  });
  it('a directory pattern covers what is inside it', () => {
    expect(decide('secrets/key.pem', 'read', ctx({ deny: ['Read(./secrets)'] }))).toMatchObject({ behavior: 'deny' });
    expect(decide('src/secrets/key.pem', 'read', ctx({ deny: ['Read(secrets/**)'] }))).toMatchObject({ behavior: 'deny' });
  });
  it('allow rules are case-sensitive and do not float beyond the cwd', () => {
    expect(decide(path.join(outside, 'a.ts'), 'write', ctx({ allow: ['Edit(*.ts)'] }))).toMatchObject({ behavior: 'ask' });
    expect(decide('src/deep/a.ts', 'write', ctx({ allow: ['Edit(*.ts)'] }))).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
    expect(decide('src/deep/a.TS', 'write', ctx({ allow: ['Edit(*.ts)'] }))).toMatchObject({ behavior: 'passthrough' });
  });
  it('a rule with .. in its literal part resolves it', () => {
    expect(decide(path.join(outside, 'secret.txt'), 'read', ctx({ deny: ['Read(../outside/**)'] }))).toMatchObject({ behavior: 'deny' });
  });
});

describe('checkPathPermission: cross-tool rules and protected paths', () => {
  it('Edit rules cover writes, a Read deny blocks writes too, a Read allow does not allow writes', () => {
    expect(decide('src/a.ts', 'write', ctx({ allow: ['Edit(./src/**)'] }))).toMatchObject({ behavior: 'allow', rule: 'Edit(./src/**)' });
    expect(decide('.env', 'write', ctx({ deny: ['Read(./.env)'] }, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'deny', rule: 'Read(./.env)' });
    expect(decide('src/a.ts', 'write', ctx({ allow: ['Read(./src/**)'] }))).toMatchObject({ behavior: 'passthrough' });
  });
  it('ask rules ask even in bypassPermissions', () => {
    expect(decide('src/a.ts', 'write', ctx({ ask: ['Edit(./src/**)'] }, { mode: 'bypassPermissions' }))).toMatchObject({ behavior: 'ask', layer: 'askRule' });
  });
  it('deny beats allow whatever the source', () => {
    const rules = [
      ...parseRules(['Read(./secrets/**)'], 'allow', 'policySettings'),
      ...parseRules(['Read(./secrets/**)'], 'deny', 'userSettings'),
    ];
    const c = createPermissionContext({ cwd: proj, homeDir: home, rules });
    expect(decide('secrets/key.pem', 'read', c)).toMatchObject({ behavior: 'deny' });
  });
  it.each(['.git/config', '.claude/settings.json', '.toolgate/settings.json', '.vscode/settings.json', '.idea/x', '.husky/pre-commit', 'sub/.GIT/hooks/pre-commit', '~/.bashrc', '~/.zshrc', '~/.profile', '~/.config/git/config', '.mcp.json'])(
    'writing %s asks (safetyCheck) even with an allow rule and acceptEdits',
    (p) => {
      const c = ctx({ allow: ['Edit(/**)', 'Edit(~/**)'] }, { mode: 'acceptEdits', additionalDirectories: [home] });
      const r = decide(p, 'write', c);
      expect(r).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
      expect(r.reason).toMatch(/protected path/);
    },
  );
  it('protected paths are skipped in bypassPermissions, readable, and .claude/worktrees and .toolgate/worktrees are exempt', () => {
    expect(decide('.git/config', 'write', ctx({}, { mode: 'bypassPermissions' }))).toMatchObject({ behavior: 'allow' });
    expect(decide('.git/config', 'read', ctx())).toMatchObject({ behavior: 'allow' });
    expect(decide('.claude/worktrees/feature/src/a.ts', 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'allow' });
    expect(decide('.toolgate/worktrees/feature/src/a.ts', 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'allow' });
    // The settings beside them, and a worktree's own .git and .toolgate, stay protected.
    expect(decide('.toolgate/settings.json', 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(decide('.toolgate/worktrees/feature/.git', 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(decide('.toolgate/worktrees/feature/.toolgate/settings.json', 'write', ctx({}, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
  });
  it('control characters and relative paths are never allowed', () => {
    expect(checkPathPermission('relative/x', 'read', ctx()).behavior).toBe('ask');
    expect(checkPathPermission(`${proj}/a\nb`, 'read', ctx()).behavior).toBe('ask');
  });
});

describe('isPathReadDenied and readDenyGlobs', () => {
  it('isPathReadDenied sees through links', () => {
    const c = ctx({ deny: ['Read(./.env)'] });
    expect(isPathReadDenied(path.join(proj, '.env'), c)).toBe(true);
    expect(isPathReadDenied(path.join(proj, 'src', 'config.txt'), c)).toBe(true);
    expect(isPathReadDenied(path.join(proj, 'src', 'a.ts'), c)).toBe(false);
  });
  it('globs are relative to the search root', () => {
    const c = ctx({ deny: ['Read(./secrets/**)', 'Read(*.pem)', `Read(//${outside.slice(1)}/**)`, 'Read(./src/deep/x.ts)'] });
    const g = readDenyGlobs(c, proj);
    expect(g).toContain('[sS][eE][cC][rR][eE][tT][sS]/**');
    expect(g).toContain('**/*.[pP][eE][mM]');
    expect(g).toContain('[sS][rR][cC]/[dD][eE][eE][pP]/[xX].[tT][sS]');
    expect(g).not.toContain('**');
    expect(readDenyGlobs(c, path.join(proj, 'src'))).toContain('[dD][eE][eE][pP]/[xX].[tT][sS]');
    expect(readDenyGlobs(c, path.join(proj, 'secrets'))).toContain('**');
    expect(readDenyGlobs(c, outside)).toContain('**');
  });
  it('the globs really exclude the files with ripgrep', async () => {
    const { rgPath } = await import('@vscode/ripgrep');
    const { execFileSync } = await import('node:child_process');
    const c = ctx({ deny: ['Read(./secrets/**)', 'Read(.ENV)'] });
    // ripgrep matches --glob against paths relative to its own cwd: run it from the search root.
    const args = ['--files', '--hidden', ...readDenyGlobs(c, proj).flatMap((g) => ['--glob', `!${g}`])];
    const files = execFileSync(rgPath, args, { encoding: 'utf8', cwd: proj }).split('\n').filter(Boolean);
    expect(files).toContain('src/a.ts');
    expect(files).not.toContain('.env');
    expect(files).not.toContain('secrets/key.pem');
  });
});

describe('what a decision judged, and objects already opened', () => {
  it('checkPathPermission notes each path with the real path it judged; two answers for one path cancel it', () => {
    const checks = new PathChecks();
    const c = ctx();
    checkPathPermission(path.join(proj, 'innocent.txt'), 'read', c, checks);
    checkPathPermission(path.join(proj, 'src', 'a.ts'), 'read', c, checks);
    expect(checks.realPathOf(path.join(proj, 'innocent.txt'))).toBe(path.join(outside, 'secret.txt'));
    expect(checks.realPathOf(path.join(proj, 'src', 'a.ts'))).toBe(path.join(proj, 'src', 'a.ts'));
    expect(checks.realPathOf(path.join(proj, 'other'))).toBeUndefined();
    checks.note(path.join(proj, 'src', 'a.ts'), path.join(outside, 'a.ts'));
    expect(checks.realPathOf(path.join(proj, 'src', 'a.ts'))).toBeNull();
    expect(checks.judgedAny).toBe(true);
    expect(new PathChecks().judgedAny).toBe(false);
  });

  it('deniedOpenedObject judges the real path given, and a file of several names by its identity', () => {
    const c = ctx({ deny: ['Read(./.env)', 'Edit(./src/locked.ts)'] });
    const one = { dev: 1, ino: 1, nlink: 1 };
    expect(deniedOpenedObject(path.join(proj, '.env'), one, 'read', c)?.message).toMatch(/read .*\.env is denied by Read\(\.\/\.env\)/);
    expect(deniedOpenedObject(path.join(proj, '.env'), one, 'write', c)?.behavior).toBe('deny');
    expect(deniedOpenedObject(path.join(proj, 'src', 'locked.ts'), one, 'read', c)).toBeUndefined();
    expect(deniedOpenedObject(path.join(proj, 'src', 'locked.ts'), one, 'write', c)?.behavior).toBe('deny');
    expect(deniedOpenedObject(path.join(proj, 'src', 'a.ts'), one, 'read', c)).toBeUndefined();
    const other = path.join(proj, 'src', 'other-name');
    fs.linkSync(path.join(proj, '.env'), other);
    try {
      const st = fs.statSync(other);
      expect(deniedOpenedObject(other, st, 'read', c)?.message).toMatch(/a hard link to .*\.env\) is denied by Read\(\.\/\.env\)/);
      // Identity is the descriptor's word: a file of one name is never taken for another.
      expect(deniedOpenedObject(other, { ...one, ino: st.ino, dev: st.dev }, 'read', c)).toBeUndefined();
    } finally {
      fs.unlinkSync(other);
    }
  });
});
