/**
 * The rule syntax as Claude Code documents it (reference B4, code.claude.com/docs/en/permissions), one golden case
 * per documented example, each decided by the engine as an allow rule and as a deny rule. Where the documentation can
 * be read two ways the deny rule takes the wider reading and the allow rule the narrower: a `:*` inside a rule, a
 * trailing `:*` after another wildcard, a bare `./.env`. `~user` is that user's home from the passwd database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PermissionBehavior, ToolPermissionContext } from '../tool/permission-types.js';
import { checkBashPermission } from './bash/check-permission.js';
import { loadBashParser } from './bash/parser.js';
import { bashDeps } from './content-check.js';
import { createPermissionContext, parseRules } from './permission-context.js';
import { parsePermissionRule, validatePermissionRule } from './permission-rule.js';
import { checkPathPermission, expandPath } from './paths.js';
import { homeOfUser } from './user-home.js';

await loadBashParser();

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-rule-syntax-')));
const proj = path.join(tmp, 'proj');
const home = path.join(tmp, 'home');
for (const d of [path.join(proj, 'src'), path.join(home, 'Documents', 'sub')]) fs.mkdirSync(d, { recursive: true });
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function ctx(behavior: PermissionBehavior, rule: string): ToolPermissionContext {
  return createPermissionContext({ cwd: proj, homeDir: home, rules: parseRules([rule], behavior, 'projectSettings', { sourceFile: path.join(proj, '.claude', 'settings.json') }) });
}

/** `allow`: the rule allows the command; `deny`: it denies it; `-`: the rule has nothing to say. */
function bash(rule: string, behavior: PermissionBehavior, command: string): 'allow' | 'deny' | '-' {
  const c = ctx(behavior, `Bash(${rule})`);
  const r = checkBashPermission(command, c, bashDeps(c));
  if (r.behavior === 'deny' && r.decisionReason?.layer === 'denyRule') return 'deny';
  if (r.behavior === 'allow' && r.decisionReason?.layer === 'allowRule') return 'allow';
  return '-';
}

type Row = readonly [rule: string, command: string, asAllow: 'allow' | '-', asDeny: 'deny' | '-'];

describe('Bash rules, as documented', () => {
  it.each<Row>([
    // Exact match.
    ['npm run build', 'npm run build', 'allow', 'deny'],
    ['npm run build', 'npm run build --prod', '-', '-'],
    // `Bash` and `Bash(*)` match everything.
    ['*', 'npm publish', 'allow', 'deny'],
    // A space before `*` is a word boundary; without it, any characters.
    ['ls *', 'ls -la', 'allow', 'deny'],
    ['ls *', 'ls', 'allow', 'deny'],
    ['ls *', 'lsof -i', '-', '-'],
    ['ls*', 'lsof -i', 'allow', 'deny'],
    // `*` anywhere.
    ['* --version', 'node --version', 'allow', 'deny'],
    ['* --version', 'node --version --verbose', '-', '-'],
    ['* install', 'pip install', 'allow', 'deny'],
    ['npm run *', 'npm run lint', 'allow', 'deny'],
    // A `*` between spaces stands for at least one word.
    ['git * main', 'git checkout main', 'allow', 'deny'],
    ['git * main', 'git log --oneline -5 main', 'allow', 'deny'],
    ['git * main', 'git main', '-', '-'],
    ['git * main', 'git checkout maint', '-', '-'],
    ['git log * main', 'git log main', '-', '-'],
    ['git log * main', 'git log --oneline main', 'allow', 'deny'],
    // A trailing `:*` is a trailing ` *` (the legacy prefix form).
    ['npm run test:*', 'npm run test', 'allow', 'deny'],
    ['npm run test:*', 'npm run test --watch', 'allow', 'deny'],
    // … and, for a deny rule, also `:` then anything, and a prefix of the text (its other readings).
    ['npm run test:*', 'npm run test:unit', '-', 'deny'],
    ['npm run test:*', 'npm run testing', '-', 'deny'],
    ['npm run test:*', 'npm run lint', '-', '-'],
    ['curl http://site.com/:*', 'curl http://site.com/', 'allow', 'deny'],
    ['curl http://site.com/:*', 'curl http://site.com/a/b', '-', 'deny'],
    ['curl http://site.com/:*', 'curl http://evil.com/', '-', '-'],
    // After another wildcard, a trailing `:*` allows only its narrower reading and denies by every reading.
    ['git * commit:*', 'git x commit -m y', '-', 'deny'],
    ['git * commit:*', 'git x commit:y', 'allow', 'deny'],
    // `:*` inside a rule is documented nowhere: deny by every reading, allow nothing.
    ['git push:* --force', 'git push --force', '-', 'deny'],
    ['git push:* --force', 'git push origin main --force', '-', 'deny'],
    ['git push:* --force', 'git push origin main', '-', '-'],
  ])('Bash(%s) on %j: as allow %s, as deny %s', (rule, command, asAllow, asDeny) => {
    expect(bash(rule, 'allow', command)).toBe(asAllow);
    expect(bash(rule, 'deny', command)).toBe(asDeny);
  });

  it('a `:*` inside a rule voids an allow rule with an error, and only warns on deny and ask rules', () => {
    const v = parsePermissionRule('Bash(git push:* --force)');
    expect(validatePermissionRule(v, 'allow').errors).toEqual([expect.stringContaining('":*" is only valid at the end')]);
    expect(validatePermissionRule(v, 'deny')).toMatchObject({ errors: [], warnings: [expect.stringContaining('every way it could be read')] });
    expect(validatePermissionRule(parsePermissionRule('Bash(npm run test:*)'), 'allow')).toEqual({ errors: [], warnings: [] });
  });
});

/** `deny`/`allow`: the rule decided reading (or writing) the path; `-`: it did not. */
function file(rule: string, behavior: PermissionBehavior, p: string): string {
  const c = ctx(behavior, rule);
  const kind = rule.startsWith('Edit(') ? 'write' : 'read';
  const r = checkPathPermission(expandPath(p, proj, home), kind, c);
  const layer = r.decisionReason?.layer;
  return layer === 'denyRule' || layer === 'allowRule' ? r.behavior : '-';
}

describe('Read and Edit paths, as documented', () => {
  it.each([
    // `//path`: from the filesystem root.
    ['Read(//etc/ssl/**)', '/etc/ssl/private/key.pem', 'allow', 'deny'],
    // `~/path`: from the home directory.
    ['Read(~/Documents/*.pdf)', '~/Documents/a.pdf', 'allow', 'deny'],
    ['Read(~/Documents/*.pdf)', '~/Documents/sub/a.pdf', '-', '-'],
    // `/path`: from the settings file's project root.
    ['Edit(/src/**/*.ts)', 'src/deep/a.ts', 'allow', 'deny'],
    ['Edit(/src/**/*.ts)', 'lib/src/a.ts', '-', '-'],
    // `path`: a name at any depth.
    ['Read(*.env)', 'src/prod.env', 'allow', 'deny'],
    // `./path`: the working directory's; a bare `./.env` denies `.env` anywhere as well (the wider reading).
    ['Read(./.env)', '.env', 'allow', 'deny'],
    ['Read(./.env)', 'src/.env', '-', 'deny'],
    ['Read(./secrets/**)', 'secrets/a', 'allow', 'deny'],
    ['Read(./secrets/**)', 'src/secrets/a', '-', '-'],
  ])('%s on %s: as allow %s, as deny %s', (rule, p, asAllow, asDeny) => {
    expect(file(rule, 'allow', p)).toBe(asAllow);
    expect(file(rule, 'deny', p)).toBe(asDeny);
  });
});

/** Users from the passwd file itself, read here independently of the code under test. */
function passwdUsers(): { name: string; home: string }[] {
  return fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((l) => l.split(':'))
    .filter((f) => f.length >= 7 && f[5]!.startsWith('/'))
    .map((f) => ({ name: f[0]!, home: f[5]! }));
}

describe('~user is that user\'s home (the passwd database), never a folder named ~user', () => {
  // A user whose home is not where homes usually are (Debian's `daemon` lives in /usr/sbin): a guess would miss it.
  const users = passwdUsers();
  const odd = users.find((u) => u.home !== path.join(path.dirname(os.homedir()), u.name) && u.home !== '/');

  it('this machine has such a user to test with', () => {
    expect(odd).toBeDefined();
  });

  it('homeOfUser reads the passwd database; unknown users have none', () => {
    for (const u of users.slice(0, 10)) expect(homeOfUser(u.name)).toBe(u.home);
    expect(homeOfUser('no-such-user-tg21')).toBeUndefined();
    expect(homeOfUser('../etc')).toBeUndefined();
  });

  it('a deny rule `Read(~user/…)` denies that home, and not a folder named ~user in the working directory', () => {
    const u = odd!;
    fs.mkdirSync(path.join(proj, `~${u.name}`), { recursive: true });
    expect(file(`Read(~${u.name}/secret)`, 'deny', path.join(u.home, 'secret'))).toBe('deny');
    expect(file(`Read(~${u.name}/secret)`, 'deny', path.join(proj, `~${u.name}`, 'secret'))).toBe('-');
    expect(file(`Read(~${u.name}/secret)`, 'allow', path.join(u.home, 'secret'))).toBe('allow');
    expect(expandPath(`~${u.name}/x`, proj, home)).toBe(path.join(u.home, 'x'));
  });

  it('for a user the passwd database does not know, an allow rule allows nothing and a deny rule still denies', () => {
    const guess = path.join(path.dirname(home), 'no-such-user-tg21', 'x');
    expect(file('Read(~no-such-user-tg21/**)', 'allow', guess)).toBe('-');
    expect(file('Read(~no-such-user-tg21/**)', 'deny', guess)).toBe('deny');
    expect(file('Read(~no-such-user-tg21/**)', 'deny', path.join(proj, '~no-such-user-tg21', 'x'))).toBe('-');
  });
});
