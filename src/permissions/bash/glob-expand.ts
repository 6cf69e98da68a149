/**
 * Brace and pathname expansion the way bash does them by default (no dotglob, globstar, nocaseglob or extglob),
 * against the real filesystem: so a Read deny is checked against the files `cat .e*` or `cat .{env,x}` would
 * really open, not against the pattern text. Bounded: past a limit the answer is "cannot tell", never a guess.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { lstatIfExists, readdirSync, realpathNative } from '../observed-fs.js';
import { tildeCandidates, type CwdState } from './paths.js';
import { procCwd } from './read-deny-words.js';

export const MAX_GLOB_MATCHES = 1000;
const MAX_DIRS_READ = 256;
const MAX_ENTRIES_SEEN = 50_000;

export type Expansion = { readonly ok: true; readonly paths: readonly string[] } | { readonly ok: false; readonly reason: string };

export const hasGlobChars = (s: string): boolean => /[*?[]/.test(s);

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: '\\p{L}',
  alnum: '\\p{L}\\p{N}',
  upper: '\\p{Lu}',
  lower: '\\p{Ll}',
  digit: '0-9',
  xdigit: '0-9A-Fa-f',
  space: '\\s',
  blank: ' \\t',
  punct: '\\p{P}\\p{S}',
  word: '\\p{L}\\p{N}_',
  cntrl: '\\x00-\\x1f\\x7f',
  print: '\\P{Cc}',
  graph: '\\P{Cc}',
};

const escapeRegex = (c: string): string => (/[.*+?^${}()|[\]\\/-]/.test(c) ? `\\${c}` : c);

/** A bracket expression starting at `seg[start] === '['`: its regex and where it ends; null if unclosed (literal `[`). */
function bracket(seg: string, start: number): { regex: string; end: number } | null | 'unsupported' {
  let i = start + 1;
  let negate = false;
  if (seg[i] === '!' || seg[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  for (; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === ']' && !first) return { regex: `[${negate ? '^' : ''}${body}]`, end: i };
    first = false;
    if (c === '[' && (seg[i + 1] === ':' || seg[i + 1] === '=' || seg[i + 1] === '.')) {
      const kind = seg[i + 1]!;
      const close = seg.indexOf(`${kind}]`, i + 2);
      if (close === -1) return null;
      const name = seg.slice(i + 2, close);
      const cls = kind === ':' ? POSIX_CLASSES[name] : undefined;
      if (cls === undefined) return 'unsupported';
      body += cls;
      i = close + 1;
      continue;
    }
    if (c === '-' && body !== '' && seg[i + 1] !== undefined && seg[i + 1] !== ']') {
      body += '-';
      continue;
    }
    body += escapeRegex(c);
  }
  return null;
}

/** The bracket expression at `seg[start] === '['` as a regex for one character (see `bracket`). */
export function bracketRegex(seg: string, start: number): { regex: RegExp; end: number } | null | 'unsupported' {
  const b = bracket(seg, start);
  if (b === null || b === 'unsupported') return b;
  try {
    return { regex: new RegExp(`^${b.regex}$`, 'u'), end: b.end };
  } catch {
    return 'unsupported';
  }
}

/** One pattern segment (no `/`) as an anchored regex; 'unsupported' for classes we do not model. */
export function globSegmentRegex(seg: string): RegExp | 'unsupported' {
  let out = '^';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '[') {
      const b = bracket(seg, i);
      if (b === 'unsupported') return b;
      if (b === null) out += '\\[';
      else {
        out += b.regex;
        i = b.end;
      }
    } else out += escapeRegex(c);
  }
  try {
    return new RegExp(`${out}$`, 'u');
  } catch {
    return 'unsupported';
  }
}

interface Budget {
  dirs: number;
  entries: number;
}

function listDir(dir: string, budget: Budget): string[] | 'limit' {
  if (++budget.dirs > MAX_DIRS_READ) return 'limit';
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  budget.entries += names.length;
  return budget.entries > MAX_ENTRIES_SEEN ? 'limit' : names;
}

const exists = (p: string): boolean => {
  try {
    return lstatIfExists(p) !== undefined;
  } catch {
    return false;
  }
};

/**
 * The absolute paths bash would put in place of `pattern` (relative patterns in each of `cwds`). An empty list means
 * no match (bash then passes the word unchanged). `.` and `..` count as matches of a pattern starting with `.` (bash
 * before 5.2 expands `.*` to them). `~`, `~+` and `~user` expand as bash expands them (paths.ts); a `..` segment is
 * the physical parent (after a symbolic link, the link target's); `/proc/self/cwd` is the command's directory; a glob
 * that would list another directory of `/proc` cannot be expanded here (its entries are the shell's, not ours).
 */
export function expandGlob(pattern: string, cwds: readonly string[], home: string | undefined): Expansion {
  const state: CwdState = { dirs: cwds, unknown: false };
  const spellings = tildeCandidates(pattern, state, home);
  if (spellings === undefined) return { ok: false, reason: `where ${pattern} starts cannot be known` };
  const budget: Budget = { dirs: 0, entries: 0 };
  const out = new Set<string>();
  for (const p of spellings) {
    const failed = expandInto(p, pattern, state, budget, out);
    if (failed !== undefined) return { ok: false, reason: failed };
  }
  return { ok: true, paths: [...out] };
}

const physicalParent = (dir: string): string => {
  try {
    return dirname(realpathNative(dir));
  } catch {
    return dirname(dir);
  }
};

const underProc = (dir: string): boolean => {
  if (dir === '/proc' || dir.startsWith('/proc/')) return true;
  try {
    const real = realpathNative(dir);
    return real === '/proc' || real.startsWith('/proc/');
  } catch {
    return false;
  }
};

/** Adds the matches of one spelling of the pattern to `out`; why not, when it cannot be expanded. */
function expandInto(p: string, pattern: string, state: CwdState, budget: Budget, out: Set<string>): string | undefined {
  const bases = isAbsolute(p) ? ['/'] : state.dirs;
  const segments = p.split('/').filter((s) => s !== '');
  for (const base of bases) {
    let current = [resolve(base)];
    let globbed = false;
    for (const seg of segments) {
      if (!hasGlobChars(seg)) {
        current = seg === '.' ? current : seg === '..' ? current.map(physicalParent) : current.map((c) => join(c, seg));
        current = current.flatMap((c) => procCwd(c, state) ?? []);
        continue;
      }
      globbed = true;
      const re = globSegmentRegex(seg);
      if (re === 'unsupported') return `${pattern} uses a bracket class toolgate does not model`;
      const dotOk = seg.startsWith('.');
      const next: string[] = [];
      for (const dir of current) {
        if (underProc(dir)) return `${pattern} would list ${dir}, whose entries name the shell's own process`;
        const names = listDir(dir, budget);
        if (names === 'limit') return `${pattern} is too large to expand`;
        if (dotOk) for (const special of ['.', '..']) if (re.test(special)) next.push(join(dir, special));
        for (const name of names) {
          if (name.startsWith('.') && !dotOk) continue;
          if (re.test(name)) next.push(join(dir, name));
        }
        if (next.length > MAX_GLOB_MATCHES) return `${pattern} expands to more than ${MAX_GLOB_MATCHES} paths`;
      }
      current = next;
      if (current.length === 0) break;
    }
    if (!globbed) continue;
    for (const c of current) if (exists(c)) out.add(c);
    if (out.size > MAX_GLOB_MATCHES) return `${pattern} expands to more than ${MAX_GLOB_MATCHES} paths`;
  }
  return undefined;
}

/** Source text that is only brace expansion around plain characters (no quotes, `$`, backquotes, escapes). */
export const isPlainBraceWord = (text: string): boolean => text.includes('{') && /^[\w./~*?[\]{},!@%+=:^#-]+$/u.test(text);

function matchingBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function topLevelCommas(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(last, i));
      last = i + 1;
    }
  }
  parts.push(body.slice(last));
  return parts;
}

/** The words of `{1..3}` / `{a..e..2}`; undefined when `body` is no sequence, 'tooLarge' past the limit. */
function sequence(body: string): string[] | 'tooLarge' | undefined {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return undefined;
  const [, a, b, stepText] = m as unknown as [string, string, string, string | undefined];
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const numeric = /\d/.test(a);
  if (numeric !== /\d/.test(b)) return undefined;
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  if (Math.abs(to - from) / step > MAX_GLOB_MATCHES) return 'tooLarge';
  const width = numeric && (/^-?0\d/.test(a) || /^-?0\d/.test(b)) ? Math.max(a.length, b.length) : 0;
  const pad = (v: number): string => {
    if (!width) return String(v);
    const digits = String(Math.abs(v)).padStart(width - (v < 0 ? 1 : 0), '0');
    return v < 0 ? `-${digits}` : digits;
  };
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) out.push(numeric ? pad(v) : String.fromCharCode(v));
  return out;
}

/** The words `{a,b}` / `{1..3}` expansion makes of `text`; undefined when they would be more than the limit. */
export function expandBraces(text: string): string[] | undefined {
  const out: string[] = [];
  const walk = (s: string, from: number): boolean => {
    for (let i = s.indexOf('{', from); i !== -1; i = s.indexOf('{', i + 1)) {
      const close = matchingBrace(s, i);
      if (close === -1) break;
      const body = s.slice(i + 1, close);
      const parts = topLevelCommas(body);
      const alternatives = parts.length > 1 ? parts : sequence(body);
      if (alternatives === 'tooLarge') return false;
      if (!alternatives) continue;
      const prefix = s.slice(0, i);
      const suffix = s.slice(close + 1);
      for (const alt of alternatives) if (!walk(prefix + alt + suffix, prefix.length)) return false;
      return true;
    }
    out.push(s);
    return out.length <= MAX_GLOB_MATCHES;
  };
  return walk(text, 0) ? out : undefined;
}
