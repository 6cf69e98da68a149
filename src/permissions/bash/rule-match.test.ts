import { describe, expect, it } from 'vitest';
import { compileBashRule, matchBashRuleContent, matchCompiled, matchFlagsCompiled, mayMatchCompiled, type MatchWord } from './rule-match.js';
import { loadBashParser } from './parser.js';

// The analysis is synchronous once the parser is loaded (the engine loads it before judging a shell call).
await loadBashParser();

const words = (s: string): string[] => s.split(' ');
const hole: MatchWord = { value: '$x', literal: false };
const lit = (s: string): MatchWord[] => words(s).map((value) => ({ value, literal: true }));

describe('matchBashRuleContent', () => {
  const cases: [rule: string, command: string, expected: boolean][] = [
    // exact
    ['npm run build', 'npm run build', true],
    ['npm run build', 'npm run build --prod', false],
    ['npm run build', 'npm run', false],
    ['npm test', 'npm test', true],
    // prefix `:*` with a word boundary
    ['npm run test:*', 'npm run test', true],
    ['npm run test:*', 'npm run test --coverage', true],
    ['npm run test:*', 'npm run testx', false],
    ['npm run test:*', 'npm run test:unit', false],
    ['git status:*', 'git status -s', true],
    ['git status:*', 'git', false],
    // space form: the words before, then anything (including nothing)
    ['git commit *', 'git commit', true],
    ['git commit *', 'git commit -m msg', true],
    ['git commit *', 'git commitx', false],
    ['ls *', 'ls', true],
    ['ls *', 'ls -la', true],
    ['ls *', 'lsof', false],
    // `*` elsewhere: a glob over the joined words, no word boundary (documented)
    ['ls*', 'lsof', true],
    ['ls*', 'ls', true],
    ['ls*', 'cat', false],
    ['git * main', 'git push origin main', true],
    ['git * main', 'git push origin main2', false],
    ['* --version', 'node --version', true],
    ['* --version', 'node --help', false],
    ['docker run * --rm *', 'docker run -it --rm x', true],
    // anything
    ['*', 'rm -rf /', true],
    ['', 'anything at all', true],
    // quotes in rules are removed like in commands
    ['git commit -m "fix bug"', 'git commit -m fix bug', false],
    ['echo "a b"', 'echo a b', false],
    ["grep 'x*'", 'grep x*', true],
    ["grep 'x*'", 'grep xyz', false],
    ['npm  test', 'npm test', true],
  ];
  it.each(cases)('Bash(%s) vs %s → %s', (rule, command, expected) => {
    expect(matchBashRuleContent(rule, words(command))).toBe(expected);
  });

  it('keeps multi-word arguments apart from separate words', () => {
    expect(matchBashRuleContent('git commit -m "fix bug"', ['git', 'commit', '-m', 'fix bug'])).toBe(true);
    expect(matchBashRuleContent('echo "a b"', ['echo', 'a', 'b'])).toBe(false);
  });
});

describe('holes (non-literal words)', () => {
  it('never match literal rule words, only a *', () => {
    expect(matchCompiled(compileBashRule('rm foo'), [...lit('rm'), hole])).toBe(false);
    expect(matchCompiled(compileBashRule('rm:*'), [...lit('rm'), hole])).toBe(true);
    expect(matchCompiled(compileBashRule('echo *'), [...lit('echo'), hole])).toBe(true);
    expect(matchCompiled(compileBashRule('npm test'), [hole, ...lit('test')])).toBe(false);
  });
  it('may match when a hole stands where the rule has words', () => {
    expect(mayMatchCompiled(compileBashRule('rm -rf:*'), [...lit('rm'), hole])).toBe(true);
    expect(mayMatchCompiled(compileBashRule('git push:*'), [...lit('git'), hole])).toBe(true);
    expect(mayMatchCompiled(compileBashRule('git push:*'), [...lit('git log'), hole])).toBe(false);
    expect(mayMatchCompiled(compileBashRule('rm:*'), [hole, ...lit('-rf /')])).toBe(true);
    expect(mayMatchCompiled(compileBashRule('rm:*'), [...lit('echo'), hole])).toBe(false);
    expect(mayMatchCompiled(compileBashRule('curl * | sh'), [...lit('curl'), hole])).toBe(true);
  });
});

describe('flag-aware deny matching', () => {
  const cases: [rule: string, command: string, expected: boolean][] = [
    ['rm -rf:*', 'rm -fr x', true],
    ['rm -rf:*', 'rm -r -f x', true],
    ['rm -rf:*', 'rm -f -r x', true],
    ['rm -rf:*', 'rm x -rf', true],
    ['rm -rf:*', 'rm --recursive --force x', true],
    ['rm -rf:*', 'rm -Rf x', true],
    ['rm -rf:*', 'rm -r x', false],
    ['rm -rf:*', 'rm -- -rf', false],
    ['git push --force:*', 'git push -f origin', true],
    ['git push --force:*', 'git push origin', false],
    ['git push -f:*', 'git push --force', true],
  ];
  it.each(cases)('Bash(%s) vs %s → %s', (rule, command, expected) => {
    expect(matchFlagsCompiled(compileBashRule(rule), lit(command))).toBe(expected);
  });
});
