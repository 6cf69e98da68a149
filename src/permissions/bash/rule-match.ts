/**
 * Bash rule content matching. Rules are compiled once (cached) into one of: anything (`Bash`, `Bash(*)`), exact
 * words, a word prefix (`npm run test:*`, `git commit *`), or a glob over the space-joined words (`*` anywhere else).
 * Words are compared after quote removal on both sides, so `git "status"` matches `Bash(git status)`.
 *
 * Words that are not literal (`$x`, `$(…)`) are holes: only a `*` can match one. For deny rules we also ask whether
 * a hole *could* make the rule match (`rm $flags` against `Bash(rm -rf:*)`), which the caller turns into an ask.
 */

import type { PermissionBehavior } from '../../tool/permission-types.js';

/** A word of a command as the matcher sees it. */
export interface MatchWord {
  readonly value: string;
  readonly literal: boolean;
}

export type CompiledRule =
  | { readonly kind: 'any' }
  | { readonly kind: 'exact' | 'prefix'; readonly words: readonly string[] }
  | { readonly kind: 'glob'; readonly regex: RegExp; readonly head: string }
  /** Several readings of one rule, any of which matches (a deny rule read widely); none at all never matches. */
  | { readonly kind: 'anyOf'; readonly readings: readonly CompiledRule[] };

interface Token {
  readonly text: string;
  /** Indexes of unquoted `*` in text. */
  readonly stars: readonly number[];
}

/** Shell-like split of rule content: quotes removed, unquoted `*` remembered. Undefined on an unclosed quote. */
function tokenizeRule(content: string): Token[] | undefined {
  const tokens: Token[] = [];
  let text = '';
  let stars: number[] = [];
  let inWord = false;
  for (let i = 0; i < content.length; i++) {
    const ch = content[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      if (inWord) tokens.push({ text, stars });
      text = '';
      stars = [];
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "'") {
      const end = content.indexOf("'", i + 1);
      if (end === -1) return undefined;
      text += content.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < content.length && content[j] !== '"'; j++) {
        if (content[j] === '\\' && j + 1 < content.length && '\\"$`'.includes(content[j + 1]!)) j++;
        text += content[j];
      }
      if (j >= content.length) return undefined;
      i = j;
    } else if (ch === '\\' && i + 1 < content.length) {
      text += content[++i];
    } else {
      if (ch === '*') stars.push(text.length);
      text += ch;
    }
  }
  if (inWord) tokens.push({ text, stars });
  return tokens;
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function globRegex(tokens: readonly Token[], trailingAny: boolean): { regex: RegExp; head: string } {
  let source = '';
  let head = '';
  let headDone = false;
  tokens.forEach((token, t) => {
    if (t > 0) {
      source += ' ';
      if (!headDone) head += ' ';
    }
    let last = 0;
    for (const star of token.stars) {
      source += escapeRegex(token.text.slice(last, star)) + '[\\s\\S]*';
      if (!headDone) head += token.text.slice(last, star);
      headDone = true;
      last = star + 1;
    }
    source += escapeRegex(token.text.slice(last));
    if (!headDone) head += token.text.slice(last);
  });
  if (trailingAny) source += '(?: [\\s\\S]*)?';
  return { regex: new RegExp(`^${source}$`), head };
}

const cache = new Map<string, CompiledRule>();

/** The documented reading of rule content: a trailing `:*` is a trailing ` *`; any other `:*` is `:` then `*`. */
export function compileBashRule(content: string): CompiledRule {
  const cached = cache.get(content);
  if (cached) return cached;
  const trimmed = content.trim();
  const compiled = compile(trimmed.endsWith(':*') ? `${trimmed.slice(0, -2)} *` : trimmed);
  if (cache.size > 2000) cache.clear();
  cache.set(content, compiled);
  return compiled;
}

/** Whether `:*` appears anywhere but at the end (Claude Code documents it only as a suffix). */
export function hasInnerColonStar(content: string): boolean {
  const trimmed = content.trim();
  return trimmed.slice(0, trimmed.endsWith(':*') ? -2 : undefined).includes(':*');
}

const NEVER: CompiledRule = { kind: 'anyOf', readings: [] };

/**
 * Rule content as a rule of this behaviour reads it, fail-safe where `:*` can be read more than one way. A deny or ask
 * rule matches by every reading: the documented one (a trailing `:*` is a trailing ` *`), and each `:*` as `:` then
 * `*` (`npm run test:*` also covers `npm run test:unit`), as `*` (a prefix of the text: `curl http://site.com/:*` also
 * covers `curl http://site.com/x`), as ` *`, or as nothing. An allow rule takes the documented reading where that is
 * the narrower, and one with an inner `:*` allows nothing (the settings loader reports it).
 */
export function compileBashRuleFor(content: string, behavior: PermissionBehavior): CompiledRule {
  const trimmed = content.trim();
  if (!trimmed.includes(':*')) return compileBashRule(trimmed);
  if (behavior === 'allow') {
    if (hasInnerColonStar(trimmed)) return NEVER;
    // `git * commit:*`: documented as `git * commit *`, but a `:*` after another wildcard is not what Claude Code
    // matches as a prefix either; the narrower reading (`commit:` then anything) allows no more than either.
    return compileBashRule(trimmed.slice(0, -2)).kind === 'glob' ? compile(trimmed) : compileBashRule(trimmed);
  }
  const key = `\u0000${trimmed}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const readings = [compileBashRule(trimmed), ...[':*', '*', ' *', ''].map((v) => compile(trimmed.split(':*').join(v)))];
  const compiled: CompiledRule = { kind: 'anyOf', readings };
  cache.set(key, compiled);
  return compiled;
}

function compile(content: string): CompiledRule {
  if (content === '' || content === '*') return { kind: 'any' };
  let body = content;
  let trailingAny = false;
  // The trailing ` *` may match nothing only when it is the rule's only wildcard (`Bash(ls *)` allows `ls`;
  // `Bash(git * *)` needs two more words).
  const onlyWildcard = (rest: string): boolean => !(tokenizeRule(rest) ?? []).some((t) => t.stars.length > 0);
  if (/\s\*$/.test(body) && onlyWildcard(body.slice(0, -1))) {
    body = body.slice(0, -1);
    trailingAny = true;
  }
  const tokens = tokenizeRule(body);
  if (!tokens) {
    // An unclosed quote: match the text as written, whitespace-separated.
    const words = body.split(/\s+/).filter(Boolean);
    return { kind: trailingAny ? 'prefix' : 'exact', words };
  }
  if (tokens.length === 0) return { kind: 'any' };
  if (tokens.some((t) => t.stars.length > 0)) return { kind: 'glob', ...globRegex(tokens, trailingAny) };
  return { kind: trailingAny ? 'prefix' : 'exact', words: tokens.map((t) => t.text) };
}

const HOLE = '\uE000';

function joinWords(words: readonly MatchWord[]): string {
  let s = '';
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (i > 0) s += ' ';
    s += w.literal ? w.value : HOLE;
  }
  return s;
}

/** Definite match: holes only match a `*`. */
export function matchCompiled(rule: CompiledRule, words: readonly MatchWord[]): boolean {
  switch (rule.kind) {
    case 'any':
      return true;
    case 'anyOf':
      return rule.readings.some((r) => matchCompiled(r, words));
    case 'exact':
      if (words.length !== rule.words.length) return false;
      return rule.words.every((w, i) => words[i]!.literal && words[i]!.value === w);
    case 'prefix':
      if (words.length < rule.words.length) return false;
      return rule.words.every((w, i) => words[i]!.literal && words[i]!.value === w);
    case 'glob':
      return rule.regex.test(joinWords(words));
  }
}

/** Could the holes in `words` expand so that the rule matches? (Only meaningful when there are holes.) */
export function mayMatchCompiled(rule: CompiledRule, words: readonly MatchWord[]): boolean {
  const firstHole = words.findIndex((w) => !w.literal);
  if (firstHole === -1) return matchCompiled(rule, words);
  switch (rule.kind) {
    case 'any':
      return true;
    case 'anyOf':
      return rule.readings.some((r) => mayMatchCompiled(r, words));
    case 'exact':
    case 'prefix':
      // A hole can become any number of words, so everything from it on is unknown.
      for (let i = 0; i < Math.min(firstHole, rule.words.length); i++) if (words[i]!.value !== rule.words[i]) return false;
      return true;
    case 'glob': {
      const known = joinWords(words.slice(0, firstHole));
      return known.startsWith(rule.head) || rule.head.startsWith(known);
    }
  }
}

// Flag-aware deny matching: `Bash(rm -rf:*)` also denies `rm -fr x`, `rm -r -f x`, `rm --recursive --force x`.
const FLAG_ALIASES: Record<string, Record<string, string>> = {
  rm: { '-R': '-r', '--recursive': '-r', '--force': '-f', '--dir': '-d' },
  git: { '--force': '-f' },
  chmod: { '-R': '-R', '--recursive': '-R' },
  chown: { '--recursive': '-R' },
};

function expandFlags(command: string, word: string): string[] {
  const aliases = FLAG_ALIASES[command];
  const alias = aliases?.[word];
  if (alias) return [alias];
  if (/^-[A-Za-z]{2,}$/.test(word)) return [...word.slice(1)].map((c) => aliases?.[`-${c}`] ?? `-${c}`);
  return [word];
}

/** Deny-only: a prefix/exact rule `cmd [sub…] -flags…` matches when the command has all those flags, in any form. */
export function matchFlagsCompiled(rule: CompiledRule, words: readonly MatchWord[]): boolean {
  if (rule.kind === 'anyOf') return rule.readings.some((r) => matchFlagsCompiled(r, words));
  if (rule.kind !== 'prefix' && rule.kind !== 'exact') return false;
  const firstFlag = rule.words.findIndex((w) => w.startsWith('-'));
  if (firstFlag <= 0) return false;
  const ruleFlags = rule.words.slice(firstFlag);
  if (!ruleFlags.every((w) => /^--?[A-Za-z]/.test(w) && !w.includes('='))) return false;
  if (words.length < firstFlag) return false;
  for (let i = 0; i < firstFlag; i++) if (!words[i]!.literal || words[i]!.value !== rule.words[i]) return false;
  const command = rule.words[0]!;
  const have = new Set<string>();
  for (let i = firstFlag; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) continue;
    if (w.value === '--') break;
    if (w.value.startsWith('-')) for (const f of expandFlags(command, w.value)) have.add(f);
  }
  const need = ruleFlags.flatMap((f) => expandFlags(command, f));
  return need.every((f) => have.has(f));
}

/** Public form: does this rule content match these literal words? */
export function matchBashRuleContent(ruleContent: string, argv: readonly string[]): boolean {
  return matchCompiled(
    compileBashRule(ruleContent),
    argv.map((value) => ({ value, literal: true })),
  );
}

/** Whether a rule can only ever match through a prefix or wildcard (those never approve `find -exec`, `watch` …). */
export function isWildcardRule(content: string): boolean {
  const kind = compileBashRule(content).kind;
  return kind === 'prefix' || kind === 'glob' || kind === 'any' || kind === 'anyOf';
}
