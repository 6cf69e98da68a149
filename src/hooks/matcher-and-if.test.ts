import { describe, expect, it } from 'vitest';
import { matchesIfCondition } from './if-condition.js';
import { hookMatcherError, matchesHookMatcher } from './matcher.js';

describe('matchesHookMatcher (reference A3)', () => {
  it.each([
    [undefined, 'Bash', true],
    ['', 'anything', true],
    ['*', 'mcp__x__y', true],
    ['Bash', 'Bash', true],
    ['Bash', 'BashOutput', false],
    ['Edit|Write', 'Write', true],
    ['Edit|Write', 'MultiEdit', false],
    ['Edit, Write', 'Write', true],
    [' Edit | Write ', 'Edit', true],
    ['Edit.*', 'NotebookEdit', true], // unanchored, as in Claude Code
    ['^Edit$', 'NotebookEdit', false],
    ['mcp__memory__.*', 'mcp__memory__create_entities', true],
    ['mcp__memory__.*', 'mcp__github__get', false],
    ['mcp__memory', 'mcp__memory__create_entities', false], // a bare server name is an exact string
    ['(unclosed', 'Bash', false],
  ])('%j vs %s → %s', (matcher, tool, expected) => {
    expect(matchesHookMatcher(matcher, tool)).toBe(expected);
  });

  it('reports invalid regexes only', () => {
    expect(hookMatcherError('Edit|Write')).toBeUndefined();
    expect(hookMatcherError('mcp__.*')).toBeUndefined();
    expect(hookMatcherError('(unclosed')).toMatch(/Unterminated group|Invalid regular expression/);
  });
});

describe('matchesIfCondition', () => {
  const ctx = { cwd: '/repo/sub', projectDir: '/repo' };
  const bash = (rule: string, command: string) => matchesIfCondition(rule, 'Bash', { command }, ctx);
  const file = (rule: string, tool: string, path: string) => matchesIfCondition(rule, tool, { file_path: path }, ctx);

  it('Bash: every subcommand, leading VAR=value stripped, `:*` legacy prefix, word boundary', () => {
    expect(bash('Bash(git *)', 'git status')).toBe(true);
    expect(bash('Bash(git *)', 'git')).toBe(true);
    expect(bash('Bash(git *)', 'gitk --all')).toBe(false);
    expect(bash('Bash(rm *)', 'ls && rm -rf build')).toBe(true);
    expect(bash('Bash(rm *)', 'ls | grep x; echo ok')).toBe(false);
    expect(bash('Bash(rm *)', 'FOO=1 BAR="a b" rm x')).toBe(true);
    expect(bash('Bash(npm test:*)', 'npm test -- --ci')).toBe(true);
    expect(bash('Bash(npm test:*)', 'npm install')).toBe(false);
    expect(bash('Bash(rm *)', 'echo $(rm -rf /tmp/x)')).toBe(true);
    expect(bash('Bash', 'anything')).toBe(true);
  });

  it('Bash: fails open (hook runs) on what it cannot reason about', () => {
    expect(bash('Bash(git push *)', 'g=git; $g push')).toBe(true);
    expect(bash('Bash(rm *)', 'echo "unbalanced')).toBe(true);
    expect(bash('Bash(rm *)', 'r\\m x')).toBe(true);
    expect(matchesIfCondition('not a rule(', 'Bash', { command: 'ls' }, ctx)).toBe(true);
  });

  it('file tools: gitignore-style paths', () => {
    expect(file('Edit(*.ts)', 'Edit', '/repo/src/deep/a.ts')).toBe(true);
    expect(file('Edit(*.ts)', 'Edit', '/repo/src/a.js')).toBe(false);
    expect(file('Edit(*.ts)', 'Write', '/repo/a.ts')).toBe(false); // another tool
    expect(file('Edit(/src/**)', 'Edit', '/repo/src/x/y.ts')).toBe(true);
    expect(file('Edit(/src/**)', 'Edit', '/repo/sub/src/y.ts')).toBe(false);
    expect(file('Read(//etc/**)', 'Read', '/etc/passwd')).toBe(true);
    expect(file('Read(lib/)', 'Read', '/repo/sub/lib/a/b.ts')).toBe(true);
    expect(file('Read(lib/)', 'Read', '/repo/lib/a.ts')).toBe(false);
    expect(file('Read(.env*)', 'Read', 'config/.env.local')).toBe(true);
  });

  it('WebFetch domains and MCP server rules', () => {
    const fetch = (rule: string, url: string) => matchesIfCondition(rule, 'WebFetch', { url }, ctx);
    expect(fetch('WebFetch(domain:example.com)', 'https://example.com/a')).toBe(true);
    expect(fetch('WebFetch(domain:example.com)', 'https://evil.com/?example.com')).toBe(false);
    expect(fetch('WebFetch(domain:*.example.com)', 'https://api.example.com/')).toBe(true);
    expect(matchesIfCondition('mcp__memory', 'mcp__memory__get', {}, ctx)).toBe(true);
    expect(matchesIfCondition('mcp__memory__*', 'mcp__memory__get', {}, ctx)).toBe(true);
    expect(matchesIfCondition('mcp__memory', 'mcp__github__get', {}, ctx)).toBe(false);
  });
});
