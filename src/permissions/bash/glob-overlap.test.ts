/**
 * glob-overlap.ts: whether a bash glob and a deny pattern could name the same path. Where it says no, no name may
 * match both: checked against concrete names, each tested with the two matchers the engine uses (bash's glob as
 * glob-expand.ts reads it, the rule segment as path-pattern.ts reads it).
 */
import { describe, expect, it } from 'vitest';
import { segmentMatches } from '../path-pattern.js';
import { globSegmentRegex } from './glob-expand.js';
import { globMeetsRule, segmentsMeet } from './glob-overlap.js';

/** Bash's glob on one name, with dotglob off. */
const bashMatches = (glob: string, name: string): boolean => {
  const re = globSegmentRegex(glob);
  if (re === 'unsupported') throw new Error(glob);
  return re.test(name) && (!name.startsWith('.') || glob.startsWith('.'));
};

const NAMES = ['.env', '.env.local', 'env', 'a.env', '.secret', 'x.pem', '.pem', 'keys', 'src', 'a.ts', '[x]', 'E', 'e', '.e', 'xenv'];

describe('segmentsMeet', () => {
  it.each([
    ['.e*', '.env', true],
    ['.[e]nv', '.env', true],
    ['.?nv', '.env', true],
    ['*', '.env', false],
    ['?env', '.env', false],
    ['[.]env', '.env', false],
    ['*env', '.env', false],
    ['*.ts', '*.pem', false],
    ['*', '*.pem', true],
    ['*.p*', '*.pem', true],
    ['.E*', '.env', false],
    ['x*', '[xy]*', true],
    ['a*', '[xy]*', false],
    ['.*', '*', true],
  ] as const)('%j and %j: %s', (glob, rule, want) => {
    expect(segmentsMeet(glob, rule, false)).toBe(want);
  });

  it('case-insensitive rules meet either case', () => {
    expect(segmentsMeet('.E*', '.env', true)).toBe(true);
    expect(segmentsMeet('.E*', '.env', false)).toBe(false);
  });

  it('never says no where a name matches both', () => {
    const globs = ['*', '.*', '.e*', '?env', '[.]env', '*.ts', '*.p*', 'e*', '[a-z]*', '.[!x]*', 'k*', '*s'];
    const rules = ['.env', '.env*', '*.pem', '*', 'keys', '.e?v', '[ek]*', 'E'];
    for (const g of globs) {
      for (const r of rules) {
        const both = NAMES.some((n) => bashMatches(g, n) && segmentMatches(r, n, false));
        if (both) expect(segmentsMeet(g, r, false), `${g} / ${r}`).toBe(true);
      }
    }
  });
});

describe('globMeetsRule (segments below one directory)', () => {
  it.each([
    [['*', 'config.json'], ['secrets', '**'], true],
    [['src', '*'], ['secrets', '**'], false],
    [['s*'], ['secrets', '**'], true],
    [['*'], ['**', '*.key'], true],
    [['*.ts'], ['**', '*.key'], false],
    // A folder named `x.key` is what `**/*.key` names, and a pattern naming a folder covers what is in it.
    [['*', '*.ts'], ['**', '*.key'], true],
    [['src', '*.ts'], ['**', '*.key'], false],
    [['*', '..', 'x'], ['.env'], true],
    [['*'], ['.env'], false],
    [['.e*'], ['.env'], true],
  ] as const)('%j and %j: %s', (glob, rule, want) => {
    expect(globMeetsRule(glob, rule, false)).toBe(want);
  });
});
