import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isReadOnlyCommand } from './read-only.js';
import { loadBashParser } from './parser.js';

// The analysis is synchronous once the parser is loaded (the engine loads it before judging a shell call).
await loadBashParser();

const root = mkdtempSync(join(tmpdir(), 'toolgate-bash-ro-'));
const cwd = join(root, 'repo');
const other = join(root, 'other');
mkdirSync(join(cwd, 'src'), { recursive: true });
mkdirSync(other);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('isReadOnlyCommand (classification only, no working directory given)', () => {
  const readOnly = [
    'ls -la', 'cat a b', 'head -n 5 a', 'tail -f log', 'wc -l a', 'grep -rn x .', 'rg -i foo', 'find . -name x',
    'tree -L 2', 'stat a', 'file a', 'du -sh', 'df -h', 'pwd', 'echo hi', 'printf x', 'which node', 'type ls',
    'git status', 'git log --oneline', 'git diff --cached', 'git show HEAD', 'git branch -a', 'git rev-parse HEAD',
    'git ls-files', 'git blame a', 'git grep foo', 'sort a | uniq -c', 'cut -f1 a', "tr a-z A-Z < a", 'jq . a',
    'diff a b', 'cmp a b', 'basename a', 'dirname a', 'realpath a', 'readlink a', 'env', 'date', 'whoami', 'id',
    'uname -a', 'hostname', 'cat /etc/passwd', 'ls && echo done', 'git status; git diff', "sed -n '2p' a",
    "awk 'NR>1' a", 'cd /tmp && ls', 'x=1; echo $x', "bash -c 'ls'", 'echo $(git rev-parse HEAD)', 'true',
    'ls 2>/dev/null', 'ls 2>&1', 'find . | xargs grep x', '[[ -f a ]] && cat a', 'command -v git', 'timeout 5 ls',
  ];
  it.each(readOnly.map((c) => [c]))('%j is read-only', (command) => {
    expect(isReadOnlyCommand(command)).toBe(true);
  });

  const notReadOnly = [
    'rm a', 'mv a b', 'cp a b', 'touch a', 'mkdir x', 'npm test', 'node x.js', 'python -c 1', 'git commit',
    'git push', 'git checkout x', 'git branch -D x', 'git diff --output=x', 'git -c core.pager=x log',
    'sed -i s/a/b/ a', 'find . -delete', 'find . -exec ls \\;', 'sort -o x a', 'rg --pre x y', 'tee a',
    'ls > out', 'ls >> out', 'echo x > a', 'cat a | sh', 'xargs rm', 'ls; rm a', 'ls && npm i', 'eval ls', '$x',
    'ls $(rm a)', "awk '{system(\"x\")}'", 'PATH=/x ls', 'echo "unterminated', 'ls > "$f"', 'curl x', 'ssh h',
    'sudo ls', 'env ls', 'watch ls', 'ls\x00', 'сat a', 'chmod +x a', 'kill 1', 'source x', 'exec ls',
  ];
  it.each(notReadOnly.map((c) => [c]))('%j is not read-only', (command) => {
    expect(isReadOnlyCommand(command)).toBe(false);
  });
});

describe('isReadOnlyCommand with working directories', () => {
  const opts = { cwd, workingDirectories: [other], homeDir: join(root, 'home') };
  it.each([
    ['ls src', true],
    ['cat src/a', true],
    [`ls ${other}`, true],
    ['ls ..', false],
    ['cat /etc/passwd', false],
    ['cat ~/x', false],
    ['cd .. && ls', false],
    ['cd src && ls', true],
    ['cd src && cat ../a', true],
    ['cd src; cat ../../x', false],
    ['git -C /tmp status', false],
    ['git status', true],
    ['cat < /etc/hosts', false],
    ['find . | xargs cat', false],
    ['grep x $f', false],
    ['ls', true],
  ] as const)('%j → %s', (command, expected) => {
    expect(isReadOnlyCommand(command, opts)).toBe(expected);
  });
});
