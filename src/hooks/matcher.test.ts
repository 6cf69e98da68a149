import { describe, expect, it } from 'vitest';
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
