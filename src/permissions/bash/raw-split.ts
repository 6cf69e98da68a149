/**
 * A deliberately naive split of a command the parser could not (or must not) be trusted with: cut at every shell
 * separator and substitution opener, even inside quotes, so deny rules still see each piece. Used only to deny or
 * ask, never to allow.
 */

const SEPARATORS = /&&|\|\||;;?|\|&?|&|\n|\$\(|`|<\(|>\(|\(|\)|\{|\}|\bthen\b|\bdo\b|\belse\b/;

/** Raw text pieces, trimmed, empty ones dropped. Line continuations are joined first. */
export function rawSegments(command: string): string[] {
  const joined = command.replace(/\\\r?\n/g, '');
  return joined
    .split(new RegExp(SEPARATORS.source, 'g'))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Whitespace split with quotes and backslashes removed: a best guess at the words of a raw piece. */
export function naiveWords(segment: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: string | null = null;
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
      continue;
    }
    if (ch === '\\' && i + 1 < segment.length) {
      current += segment[++i];
      inWord = true;
      continue;
    }
    if (/\s/.test(ch) || ch === '<' || ch === '>') {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      continue;
    }
    current += ch;
    inWord = true;
  }
  if (inWord) words.push(current);
  // Leading assignments do not change which command runs.
  while (words.length > 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
  return words;
}
