/**
 * Where `old_string` is in the file. Exact first. Only when the exact string is nowhere, a guarded fallback tries, in
 * growing steps: (1) stripping Read's line-number prefixes (`N<TAB>`, `N→`, `N:`) when every line of old_string has
 * one and the numbers run consecutively; (2) treating curly quotes as straight; (3) ignoring trailing whitespace at
 * line ends. A step is used only if it finds exactly one match; the result names it. No step ever equates tabs with
 * spaces — a tab-indented file edited with space-indented old_string fails, with a hint saying why.
 */

export interface MatchFound {
  readonly kind: 'found';
  /** Character ranges in the content to replace, ascending and disjoint. */
  readonly ranges: ReadonlyArray<readonly [number, number]>;
  /** new_string as it will be inserted (line-number prefixes stripped when old_string had them). */
  readonly newString: string;
  /** The normalisations that were needed, in words; empty for an exact match. */
  readonly normalizations: readonly string[];
}

export interface MatchAmbiguous {
  readonly kind: 'ambiguous';
  readonly count: number;
  readonly normalizations: readonly string[];
}

export interface MatchNone {
  readonly kind: 'none';
  readonly hint?: string;
}

export type MatchResult = MatchFound | MatchAmbiguous | MatchNone;

/** Start indices of non-overlapping occurrences, stopping after `limit`. */
export function findOccurrences(haystack: string, needle: string, limit = Number.POSITIVE_INFINITY): number[] {
  const starts: number[] = [];
  if (needle.length === 0) return starts;
  let i = haystack.indexOf(needle);
  while (i !== -1 && starts.length < limit) {
    starts.push(i);
    i = haystack.indexOf(needle, i + needle.length);
  }
  return starts;
}

// The arrow as an escape: the CLI bundle stays ASCII (test/cli-bundle.test.ts).
const PREFIX = /^\s*(\d+)(?:\t|\u2192|:|$)/;

/** old_string without Read's line prefixes, when every line has one and they count up by one; else undefined. */
export function stripLinePrefixes(text: string, requireConsecutive: boolean): string | undefined {
  const lines = text.split('\n');
  let expected: number | undefined;
  const out: string[] = [];
  for (const line of lines) {
    const m = PREFIX.exec(line);
    if (!m) return undefined;
    const n = Number(m[1]);
    if (requireConsecutive && expected !== undefined && n !== expected) return undefined;
    expected = n + 1;
    out.push(line.slice(m[0].length));
  }
  return out.join('\n');
}

const CURLY_QUOTES = '\u2018\u2019\u201A\u201B\u201C\u201D\u201E\u201F';
const HAS_CURLY = new RegExp(`[${CURLY_QUOTES}]`);
const ALL_CURLY = new RegExp(`[${CURLY_QUOTES}]`, 'g');

/** Length-preserving, so positions map one to one. */
function straightenQuotes(text: string): string {
  return text.replace(ALL_CURLY, (c) => ('\u2018\u2019\u201A\u201B'.includes(c) ? "'" : '"'));
}

interface Stripped {
  readonly text: string;
  /** Normalised index → index in the text before stripping. */
  readonly toOriginal: (index: number) => number;
}

/** Removes spaces, tabs and `\r` before each line break and at the end, remembering where. */
function stripTrailingWhitespace(text: string): Stripped {
  const re = /[ \t\r]+(?=\n|$)/g;
  const at: number[] = [];
  const cumulative: number[] = [];
  let out = '';
  let last = 0;
  let removed = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out += text.slice(last, m.index);
    removed += m[0].length;
    at.push(out.length);
    cumulative.push(removed);
    last = m.index + m[0].length;
    if (m[0].length === 0) re.lastIndex++;
  }
  out += text.slice(last);
  const toOriginal = (index: number): number => {
    let lo = 0;
    let hi = at.length - 1;
    let k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (at[mid]! <= index) {
        k = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return index + (k === -1 ? 0 : cumulative[k]!);
  };
  return { text: out, toOriginal };
}

function tabHint(content: string, oldString: string): string | undefined {
  if (oldString.includes('\t') || !content.includes('\t')) return undefined;
  if (!/(^|\n) {2,}\S/.test(oldString)) return undefined;
  return 'Note: this file indents with tab characters, but old_string is indented with spaces. Copy the indentation exactly as it appears after the line-number separator in Read output (a tab stays a tab).';
}

export function findMatch(content: string, oldString: string, newString: string, replaceAll: boolean): MatchResult {
  const exact = findOccurrences(content, oldString);
  if (exact.length > 1 && !replaceAll) return { kind: 'ambiguous', count: exact.length, normalizations: [] };
  if (exact.length > 0) {
    const starts = replaceAll ? exact : exact.slice(0, 1);
    return { kind: 'found', ranges: starts.map((s) => [s, s + oldString.length] as const), newString, normalizations: [] };
  }

  let needle = oldString;
  let replacement = newString;
  const names: string[] = [];
  const prefixed = stripLinePrefixes(oldString, true);
  if (prefixed !== undefined && prefixed !== oldString) {
    needle = prefixed;
    const newStripped = newString.length > 0 ? stripLinePrefixes(newString, false) : undefined;
    if (newStripped !== undefined) replacement = newStripped;
    names.push(`stripped Read line-number prefixes from old_string${newStripped !== undefined ? ' and new_string' : ''}`);
    const result = tryNeedle(content, needle, names, replacement);
    if (result) return result;
  }

  let haystack = content;
  if (HAS_CURLY.test(content) || HAS_CURLY.test(needle)) {
    haystack = straightenQuotes(content);
    needle = straightenQuotes(needle);
    names.push('treated curly quotes as straight quotes');
    const result = tryNeedle(haystack, needle, names, replacement);
    if (result) return result;
  }

  const stripped = stripTrailingWhitespace(haystack);
  const strippedNeedle = stripTrailingWhitespace(needle).text;
  if (stripped.text !== haystack || strippedNeedle !== needle) {
    names.push('ignored trailing whitespace at line ends');
    const starts = findOccurrences(stripped.text, strippedNeedle, 2);
    if (starts.length > 1) return { kind: 'ambiguous', count: findOccurrences(stripped.text, strippedNeedle).length, normalizations: names };
    if (starts.length === 1 && strippedNeedle.length > 0) {
      const s = starts[0]!;
      const range = [stripped.toOriginal(s), stripped.toOriginal(s + strippedNeedle.length - 1) + 1] as const;
      return { kind: 'found', ranges: [range], newString: replacement, normalizations: names };
    }
  }
  return { kind: 'none', hint: tabHint(content, oldString) };
}

/**
 * One fallback step over a length-preserving normalisation (positions map one to one): exactly one match is a find,
 * several end the search, none goes on to the next step.
 */
function tryNeedle(haystack: string, needle: string, names: readonly string[], newString: string): MatchFound | MatchAmbiguous | undefined {
  if (needle.length === 0) return undefined;
  const starts = findOccurrences(haystack, needle, 2);
  if (starts.length > 1) return { kind: 'ambiguous', count: findOccurrences(haystack, needle).length, normalizations: [...names] };
  if (starts.length === 1) {
    const s = starts[0]!;
    return { kind: 'found', ranges: [[s, s + needle.length]], newString, normalizations: [...names] };
  }
  return undefined;
}
