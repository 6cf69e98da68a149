/**
 * Issue 10, classes 3 and 9 (and the documented path-rule golden cases): with `Read(./.env)`-style denies against a
 * real project, globs that could expand to a denied file and git commands that print file contents from history ask
 * (askRule: no mode passes it), unless limited to paths no deny covers. Decided through the real engine.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { fakeBash as Bash } from '../test-helpers/tools.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-bypass-rd-')));
const proj = join(root, 'proj');
const home = join(root, 'home');
for (const d of [join(proj, 'src'), join(proj, 'conf'), join(proj, '.git'), join(proj, 'docs', 'sub'), home]) mkdirSync(d, { recursive: true });
writeFileSync(join(proj, '.env'), 'SECRET=1');
writeFileSync(join(proj, '.secret'), 'S');
writeFileSync(join(proj, 'conf', 'secret.txt'), 'S');
writeFileSync(join(proj, 'conf', 'app.yml'), 'a: 1');
writeFileSync(join(proj, 'src', 'x.ts'), 'x');
writeFileSync(join(proj, 'README.md'), 'r');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ENV = ['Read(./.env)'];
const CONF = ['Read(./conf/secret.txt)'];
const SECRET = ['Read(./.secret)'];

type Want = 'allow' | 'deny' | 'askRule' | 'ask';
async function outcome(command: string, deny: readonly string[], mode: 'default' | 'bypassPermissions' = 'default'): Promise<Want> {
  const ctx = createPermissionContext({ cwd: proj, homeDir: home, mode, rules: parseRules([...deny], 'deny', 'projectSettings') });
  const d = await resolvePermission(Bash, { command }, ctx);
  if (d.behavior !== 'ask') return d.behavior;
  return d.decisionReason?.layer === 'askRule' ? 'askRule' : 'ask';
}

function table(cases: readonly [string, readonly string[], Want][]): void {
  it.each(cases.map((c) => [c[0], ...c] as const))('%j', async (_l, command, deny, want) => {
    expect(await outcome(command, deny)).toBe(want);
    // Neither a deny nor a rule-backed ask is passed by bypassPermissions.
    if (want === 'deny' || want === 'askRule') expect(await outcome(command, deny, 'bypassPermissions')).toBe(want);
  });
}

describe('class 3: globs that could reach a Read-denied file', () => {
  table([
    ['head conf/*', CONF, 'deny'],
    ['cat conf/*', CONF, 'deny'],
    ['cat conf/s*', CONF, 'deny'],
    ['cat conf/?ecret.txt', CONF, 'deny'],
    ['cat conf/[st]ecret.txt', CONF, 'deny'],
    ['cat .s*', SECRET, 'deny'],
    ['cat .e??', ENV, 'deny'],
    ['cat .[e]nv', ENV, 'deny'],
    ['tail -n 1 c*/*', CONF, 'deny'],
    ['grep x conf/*', CONF, 'deny'],
    ['cat {conf,src}/*', CONF, 'deny'],
    ['cat conf/{app.yml,secret.txt}', CONF, 'deny'],
    ['find . -name *.txt', CONF, 'ask'],
    ['find conf -name s*', [], 'ask'],
    ['cat conf/**', CONF, 'deny'],
    ['wc -c .*', SECRET, 'deny'],
    ['wc -c *', SECRET, 'allow'], // `*` does not match dotfiles
    // Benign: globs that cannot reach a denied file.
    ['cat conf/*.yml', CONF, 'allow'],
    ['ls src/*', CONF, 'allow'],
    ['cat src/*.ts', ENV, 'allow'],
    ["find . -name '*.ts'", ENV, 'allow'],
  ]);
});

describe('class 9: git commands that print file contents from history', () => {
  table([
    ['git show', ENV, 'askRule'],
    ['git show HEAD', ENV, 'askRule'],
    ['git show HEAD~3', ENV, 'askRule'],
    ['git --no-pager show', ENV, 'askRule'],
    ['git log -p', ENV, 'askRule'],
    ['git log --patch -1', ENV, 'askRule'],
    ['git log -u', ENV, 'askRule'],
    ['git log -S SECRET --oneline', ENV, 'askRule'],
    ['git log -G key', ENV, 'askRule'],
    ['git log -p -- .', ENV, 'askRule'],
    ['git whatchanged -p', ENV, 'askRule'],
    ['git reflog -p', ENV, 'askRule'],
    ['git diff', ENV, 'askRule'],
    ['git diff HEAD~1', ENV, 'askRule'],
    ['git diff HEAD~1 HEAD', ENV, 'askRule'],
    ['git diff --cached', ENV, 'askRule'],
    ['git diff-tree -p HEAD', ENV, 'askRule'],
    ['git stash show -p', ENV, 'askRule'],
    ['git archive HEAD', ENV, 'askRule'],
    ['git archive --format=tar HEAD', ENV, 'askRule'],
    ['git format-patch --stdout -1', ENV, 'askRule'],
    ['git cat-file --batch-all-objects --batch', ENV, 'askRule'],
    ['git cat-file -p abc123', ENV, 'askRule'],
    ['git cat-file blob abc123', ENV, 'askRule'],
    ['git cat-file -p HEAD:.env', ENV, 'deny'],
    ['git show HEAD:.env', ENV, 'deny'],
    ['git grep SECRET HEAD', ENV, 'askRule'],
    ['git bundle create x.bundle --all', ENV, 'askRule'],
    ['git fast-export --all', ENV, 'askRule'],
    ['git range-diff a...b', ENV, 'askRule'],
    ['git -C . log -p', ENV, 'askRule'],
    ['git log -p -- :/', ENV, 'askRule'],
    ['git log -p -- "*.env"', ENV, 'askRule'],
    ['git diff HEAD -- .env', ENV, 'deny'],
    // Limited to paths no deny covers, or printing no contents: allowed.
    ['git show --stat', ENV, 'allow'],
    ['git show -s HEAD', ENV, 'allow'],
    ['git show HEAD:src/x.ts', ENV, 'allow'],
    ['git show HEAD -- src/x.ts', ENV, 'allow'],
    ['git log -p -- src', ['Read(/.env)'], 'allow'],
    // A bare `./.env` deny is also `.env` in any folder: src's history may hold one.
    ['git log -p -- src', ENV, 'askRule'],
    ['git log --oneline', ENV, 'allow'],
    ['git log --stat -5', ENV, 'allow'],
    ['git diff --stat', ENV, 'allow'],
    ['git diff --name-only HEAD~1', ENV, 'allow'],
    ['git diff HEAD -- src/x.ts', ENV, 'allow'],
    ['git cat-file -t HEAD', ENV, 'allow'],
    ['git status', ENV, 'allow'],
    // Without a Read deny, history reads are ordinary read-only git.
    ['git show', [], 'allow'],
    ['git log -p', [], 'allow'],
  ]);
});

describe('documented path rules (golden)', () => {
  const Edit = buildTool({
    name: 'Edit',
    permissionTraits: { kind: 'write', pathField: 'file_path' },
    inputSchema: z.object({ file_path: z.string() }),
    maxResultSizeChars: 1,
    prompt: async () => '',
    call: async () => ({ data: '' }),
    getPath: (i) => i.file_path,
  });
  const Read = { ...Edit, name: 'Read', permissionTraits: { kind: 'read', pathField: 'file_path' }, isReadOnly: () => true } as typeof Edit;
  const decide = async (tool: typeof Edit, file: string, allow: string[], deny: string[] = []) => {
    const ctx = createPermissionContext({
      cwd: proj,
      homeDir: home,
      rules: [...parseRules(allow, 'allow', 'projectSettings'), ...parseRules(deny, 'deny', 'projectSettings')],
    });
    return (await resolvePermission(tool, { file_path: file }, ctx)).behavior;
  };
  it.each([
    ['Edit(/docs/*) covers one level', Edit, join(proj, 'docs', 'a.md'), ['Edit(/docs/*)'], 'allow'],
    ['Edit(/docs/*) not two', Edit, join(proj, 'docs', 'sub', 'a.md'), ['Edit(/docs/*)'], 'ask'],
    ['Edit(/docs/**) covers every level', Edit, join(proj, 'docs', 'sub', 'a.md'), ['Edit(/docs/**)'], 'allow'],
    ['Edit(./docs/*.md) one level', Edit, join(proj, 'docs', 'sub', 'b.md'), ['Edit(./docs/*.md)'], 'ask'],
    ['Edit(//tmp/scratch.txt) absolute', Edit, '/tmp/scratch.txt', ['Edit(//tmp/scratch.txt)'], 'allow'],
    ['Read(~/.zshrc) home', Read, join(home, '.zshrc'), ['Read(~/.zshrc)'], 'allow'],
    ['Edit(src/**) from the cwd', Edit, join(proj, 'src', 'deep', 'x.ts'), ['Edit(src/**)'], 'allow'],
    ['Edit(*.ts) any depth below the cwd', Edit, join(proj, 'src', 'deep', 'x.ts'), ['Edit(*.ts)'], 'allow'],
  ] as const)('%s', async (_name, tool, file, allow, want) => {
    expect(await decide(tool, file, [...allow])).toBe(want);
  });
  it('a deny ending in a wildcard keeps the reading that covers more (what is below a matching directory)', async () => {
    expect(await decide(Read, join(proj, 'docs', 'sub', 'a.md'), [], ['Read(./docs/*)'])).toBe('deny');
  });
});

describe('REV:path is anchored at the repository as it is now', () => {
  it('a repository created after a first look anchors the next `git show HEAD:path` at its root', async () => {
    const repo = join(root, 'later');
    mkdirSync(join(repo, 'docs'), { recursive: true });
    writeFileSync(join(repo, 'secret.txt'), 'S');
    const decide = async () => {
      const ctx = createPermissionContext({ cwd: join(repo, 'docs'), homeDir: home, rules: parseRules([`Read(/${join(repo, 'secret.txt')})`], 'deny', 'projectSettings') });
      return (await resolvePermission(Bash, { command: 'git show HEAD:secret.txt' }, ctx)).behavior;
    };
    // No repository yet: `secret.txt` after the colon names nothing on this machine.
    expect(await decide()).not.toBe('deny');
    mkdirSync(join(repo, '.git'));
    expect(await decide()).toBe('deny');
  });
});
