/**
 * A compiled pattern's `matches` answers without its regex where the pattern's literal start decides; it must give the
 * regex's answer for every path, case-insensitive Unicode folding and line terminators included.
 */
import { describe, expect, it } from 'vitest';
import type { PermissionBehavior, PermissionRule } from '../tool/permission-types.js';
import { compilePathPatternVariants } from './path-pattern.js';
import { createPermissionContext } from './permission-context.js';

const ctx = createPermissionContext({ cwd: '/work/proj', homeDir: '/home/u' });

function compiled(pattern: string, behavior: PermissionBehavior) {
  const rule: PermissionRule = { source: 'userSettings', ruleBehavior: behavior, ruleValue: { toolName: 'Read', ruleContent: pattern } };
  // Real locations as given: the folders here do not exist, and the variants are not what this test is about.
  return compilePathPatternVariants(rule, pattern, ctx, (p) => p);
}

/** A small deterministic generator (no wall clock, no Math.random: a failure is reproducible). */
function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}

const PATTERNS = [
  '//data/Secret/**',
  '//data/secret',
  '//data/secret/*.key',
  '//data/s?cret/**',
  '~/.ssh/**',
  './.env',
  'src/**',
  './src/case1/**',
  '//data/caf\u00e9/**',
  '//data/\u017Fecret/**',
  '*.pem',
  '**/.env',
  '//data/[a-c]b/**',
  '//data/secret/',
];

// Paths near the patterns: other case, the characters that fold into ASCII (ſ → s, K → k), line terminators,
// a trailing slash, a longer name sharing the prefix, non-ASCII.
const PIECES = ['data', 'DATA', 'Secret', 'secret', 'SECRET', '\u017Fecret', 'secretx', 'a.key', 'x.pem', '.env', 'caf\u00e9', 'CAF\u00c9', 'ab', '\u212Aey', 'k\ney', 'x\u2028y', '', 'work', 'proj', 'src', 'case1', 'home', 'u', '.ssh', 'id'];

describe('PathMatcher', () => {
  it('matches gives the regex answer for every path tried, allow and deny alike', () => {
    const next = rng(38);
    let agreed = 0;
    let matched = 0;
    for (const behavior of ['allow', 'deny'] as const) {
      for (const pattern of PATTERNS) {
        for (const pat of compiled(pattern, behavior)) {
          for (let i = 0; i < 400; i++) {
            const depth = 1 + Math.floor(next() * 5);
            let p = '';
            for (let d = 0; d < depth; d++) p += `/${PIECES[Math.floor(next() * PIECES.length)]!}`;
            // Half of the paths start at the pattern's own literal start (some glued to it: `/data/secretx`).
            if (next() < 0.5) p = `/${pat.segments.filter((s) => !/[*?[\\]/.test(s)).join('/')}${next() < 0.3 ? p.slice(1) : p}`;
            const expected = pat.regex.test(p);
            expect(pat.matches(p), `${behavior} ${pattern} (${pat.segments.join('/')}) vs ${JSON.stringify(p)}`).toBe(expected);
            agreed++;
            if (expected) matched++;
          }
        }
      }
    }
    // Both answers were exercised, many times.
    expect(matched).toBeGreaterThan(1000);
    expect(agreed - matched).toBeGreaterThan(1000);
  });

  it('deny patterns ignore case as Unicode does (ſ is s, K is k); allow patterns do not', () => {
    const [deny] = compiled('//data/secret/**', 'deny');
    expect(deny!.matches('/DATA/Secret/x')).toBe(true);
    expect(deny!.matches('/data/\u017Fecret/x')).toBe(true);
    expect(deny!.matches('/data/secretx')).toBe(false);
    const [key] = compiled('//data/key', 'deny');
    expect(key!.matches('/data/\u212Aey')).toBe(true);
    const [allow] = compiled('//data/secret/**', 'allow');
    expect(allow!.matches('/DATA/secret/x')).toBe(false);
    expect(allow!.matches('/data/secret')).toBe(true);
  });

  it('one regex per distinct pattern, shared by every rule that compiles to it', () => {
    const a = compiled('//data/x/*.key', 'deny')[0]!;
    const b = compiled('//data/x/*.key', 'deny')[0]!;
    expect(a.regex).toBe(b.regex);
    expect(compiled('//data/x/*.key', 'allow')[0]!.regex).not.toBe(a.regex);
  });
});
