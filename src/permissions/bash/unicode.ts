/**
 * Characters that make what a person reads differ from what bash runs: control characters, invisible and
 * formatting code points (zero-width, bidi overrides) and unicode spaces, anywhere → ask. Visible non-ASCII
 * characters (look-alike letters such as Cyrillic `а` or fullwidth `ｌｓ；`) are refused outside quotes by the
 * analyser (`hasNonAscii` on unquoted words); inside quotes they are just text (`git commit -m "fix — naïve"`).
 */

// \t and \n are the only control characters a command legitimately contains.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
// Format (Cf: zero-width, bidi), separators other than the ASCII space, private use, lone surrogates, unassigned,
// and the letters that render as blank (Hangul fillers, braille blank, Mongolian vowel separator).
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}\u115f\u1160\u3164\uffa0\u2800\u180e]|(?! )\p{Zs}/u;

function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why the raw command must not be reasoned about character-wise, or undefined when its characters are fine. */
export function checkCommandCharacters(command: string): string | undefined {
  const control = CONTROL.exec(command);
  if (control) return `control character ${codePoint(control[0])} in the command`;
  // Fast path: plain ASCII has nothing else to look at.
  if (!hasNonAscii(command)) return undefined;
  const invisible = INVISIBLE.exec(command);
  if (invisible) return `invisible or formatting unicode character ${codePoint(invisible[0])} in the command`;
  return undefined;
}

/** True when the text has any non-ASCII character (outside quotes these are look-alikes waiting to happen). */
export function hasNonAscii(text: string): boolean {
  return /[^\p{ASCII}]/u.test(text);
}
