/** Single-quotes a string as one bash word (the one quoting of the tools: Bash's scripts, suggestions in messages). */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The quoting a position of a bash command is in. */
export type ShellQuoting = 'none' | 'single' | 'double';

/**
 * The quoting in force at each position of a bash command (`map[i]`: before `text[i]`; `map[text.length]`: at the
 * end), as far as quotes, backslashes and `#` comments tell. Nested `$( )` and here-documents are not followed; the
 * callers stay safe when it guesses wrong (see `quoteIn`, plugin-folder.ts).
 */
export function shellQuotingMap(text: string): ShellQuoting[] {
  const map: ShellQuoting[] = [];
  let q: ShellQuoting = 'none';
  for (let i = 0; i < text.length; i++) {
    map[i] = q;
    const c = text[i]!;
    if (q === 'single') {
      if (c === "'") q = 'none';
    } else if (c === '\\') {
      if (i + 1 < text.length) map[++i] = q;
    } else if (q === 'double') {
      if (c === '"') q = 'none';
    } else if (c === "'") q = 'single';
    else if (c === '"') q = 'double';
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      // A comment's apostrophe opens no quote.
      while (i + 1 < text.length && text[i + 1] !== '\n') map[++i] = q;
    }
  }
  map[text.length] = q;
  return map;
}

/** `value` written so that bash reads it back as itself where the quoting is `q` (one word outside quotes). */
export function quoteIn(q: ShellQuoting, value: string): string {
  if (q === 'single') return value.replace(/'/g, `'\\''`);
  if (q === 'double') return value.replace(/[\\"$`]/g, '\\$&');
  return shellQuote(value);
}
