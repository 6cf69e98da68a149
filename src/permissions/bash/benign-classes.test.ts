/**
 * The other side of issue 32's classes (test/attacks/bash-classes.test.ts): everyday read-only commands — globs,
 * `$HOME`, `git log -p`, `git diff`, `sed -n '1,20p'`, `cd src && ls`, `cd sub && git status` in the project's own
 * repository — stay allowed without a prompt, with no rule and with the documented `Read(./.env)` deny. No class is
 * closed by prompting for everything. Real files and a real git repository in a temp project.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { fakeBash as Bash } from '../test-helpers/tools.js';
import { loadBashParser } from './parser.js';

await loadBashParser();

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-benign-classes-')));
const proj = join(root, 'proj');
afterAll(() => rmSync(root, { recursive: true, force: true }));
for (const d of ['src/deep', 'sub/inner', 'docs']) mkdirSync(join(proj, d), { recursive: true });
mkdirSync(join(root, 'home'), { recursive: true });
for (const [f, text] of Object.entries({
  'README.md': '# readme\nfoo\n',
  'package.json': '{"name":"x"}\n',
  'src/a.ts': 'export const a = 1; // TODO\n',
  'src/b.ts': 'export const b = 2;\n',
  'src/deep/c.ts': 'export const c = 3;\n',
  'sub/x.txt': 'x\n',
  'sub/inner/y.txt': 'y\n',
  'docs/guide.md': 'guide\n',
  '.env': 'TOKEN=1\n',
})) {
  writeFileSync(join(proj, f), text);
}
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: proj, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
git('init', '-q');
writeFileSync(join(proj, '.gitignore'), '.env\n');
git('add', '.');
git('commit', '-q', '-m', 'one');
writeFileSync(join(proj, 'src', 'a.ts'), 'export const a = 10; // TODO\n');
git('commit', '-q', '-am', 'two');

async function decide(command: string, deny: readonly string[]) {
  const ctx = createPermissionContext({ cwd: proj, homeDir: join(root, 'home'), rules: parseRules(deny, 'deny', 'projectSettings') });
  const d = await resolvePermission(Bash, { command }, ctx);
  return `${d.behavior}${d.behavior === 'allow' ? '' : `: ${d.decisionReason?.reason ?? ''}`}`;
}

/** Allowed as read-only with no rule and with the documented `Read(./.env)` deny. */
const EVERYDAY = [
  'ls', 'ls -la', 'ls src', 'ls -a src', 'ls src/*.ts', 'ls -d */', 'cat README.md', 'cat src/*.ts', 'cat src/*/*.ts', 'cat *.md',
  'head -n 20 src/a.ts', 'tail -5 README.md', 'wc -l src/*.ts', 'wc -l src/**/*.ts', 'grep -n foo README.md', 'grep -n export src/*.ts',
  "find . -name '*.ts'", 'find src -type f', 'git status', 'git status --short', 'git log --oneline -10', 'git log --stat -3',
  'git log --format=%H -1', 'git log --pretty=oneline', 'git diff --stat', 'git diff --name-only HEAD~1', 'git show --stat HEAD',
  'git branch -a', 'git rev-parse HEAD', 'git ls-files', 'git diff --text --stat', "sed -n '1,20p' src/a.ts", "sed -n 1,5p README.md",
  "sed 's/foo/bar/' README.md", 'sed -n p README.md', "sed -n 's/foo/bar/p' README.md", "sed ':a;N;$!ba;s/\\n/ /g' README.md",
  "sed '/foo/{s/foo/bar/;b}' README.md", "sed -n '/#/{p;b end};p;:end' README.md", "sed -E 's/(f)oo/\\1/g' README.md", "sed -n '/export/p' src/a.ts", "sed '1!G;h;$!d' README.md", "awk '{print $1}' README.md",
  'cd src && ls', 'cd src && cat a.ts', 'cd src && cat *.ts', 'cd src/deep && ls ..', 'cd sub && git status', 'cd sub && git log --oneline -3',
  'cd sub/inner && git status --short', 'git -C sub status', 'git -C src log --oneline -1', 'cd -- src && ls', 'cd src && cd .. && git status',
  'echo $HOME', 'echo "$USER"', "printf '%s\\n' \"$PATH\"", 'echo $1 $# "$@"', 'pwd', 'cat src/*.ts | wc -l', 'ls src/*.ts | head -3',
  'diff src/a.ts src/b.ts', 'jq . package.json', 'sort README.md | uniq -c', 'du -sh src', 'stat src/a.ts', 'file src/a.ts', 'ls ~+/src',
  'git blame -w -M src/a.ts', 'git blame -L 1,1 src/a.ts', 'git blame --ignore-revs-file=.git-blame-ignore-revs src/a.ts', 'cat ./src/../README.md', 'cat src/deep/../a.ts', 'ls docs/*.md && cat docs/guide.md', 'git status && git diff --stat',
];

/** Commands that print file contents from history: allowed with no Read deny rule (with one they ask, on purpose). */
const HISTORY = ['git log -p -3', 'git log -p -- src', 'git diff', 'git diff HEAD~1 -- src', 'git show HEAD', 'git blame src/a.ts', 'git diff --text', 'cd sub && git diff'];

describe('everyday read-only commands stay allowed', () => {
  it.each(EVERYDAY)('%j', async (command) => {
    expect(await decide(command, [])).toBe('allow');
    expect(await decide(command, ['Read(./.env)'])).toBe('allow');
  });

  it.each(HISTORY)('%j (no Read deny rule)', async (command) => {
    expect(await decide(command, [])).toBe('allow');
  });
});
