import { describe, expect, it } from 'vitest';
import { SecretScanner, type SecretPattern } from './secret-scanner.js';

const p = (value: string, marker: string, wholeWord = false): SecretPattern => ({ value, marker, wholeWord });

/** The obvious algorithm, to check the fast one against: at each position the longest allowed pattern, left to right. */
function reference(text: string, patterns: readonly SecretPattern[]): string {
  const word = (c: string | undefined) => c !== undefined && /\w/.test(c);
  const sorted = [...patterns].sort((a, b) => b.value.length - a.value.length);
  let out = '';
  for (let i = 0; i < text.length; ) {
    const hit = sorted.find(
      (s) => text.startsWith(s.value, i) && (!s.wholeWord || ((!word(text[i - 1]) || !word(s.value[0])) && (!word(text[i + s.value.length]) || !word(s.value.at(-1))))),
    );
    if (hit) {
      out += hit.marker;
      i += hit.value.length;
    } else out += text[i++];
  }
  return out;
}

describe('SecretScanner', () => {
  const patterns = [p('sk-live-0123456789', '[A]'), p('sk-live-0123456789-and-more', '[B]'), p('hunter2', '[C]'), p('pw9x', '[D]', true)];
  const scanner = new SecretScanner(patterns);

  it('long and short secrets together, longest first, whole words for the shortest', () => {
    const text = 'a sk-live-0123456789 b sk-live-0123456789-and-more c hunter2hunter2 pw9x apw9x pw9x_ (pw9x)';
    expect(scanner.replace(text)).toBe('a [A] b [B] c [C][C] [D] apw9x pw9x_ ([D])');
    expect(scanner.replace(text)).toBe(reference(text, patterns));
    const clean = 'nothing to see';
    expect(scanner.replace(clean)).toBe(clean);
  });

  it('large texts (assembled in a Buffer) equal the reference: one-byte, wide characters, a wide marker', () => {
    const filler = 'log line with words and numbers 12345 ';
    for (const extra of ['', 'é', '日本語', '\u{1F600}']) {
      let text = '';
      for (let i = 0; i < 3_000; i++) text += filler + (i % 97 === 0 ? `hunter2 ${extra} sk-live-0123456789-and-more pw9x ` : '') + (i % 500 === 0 ? extra : '');
      expect(text.length).toBeGreaterThan(64 * 1024);
      expect(scanner.replace(text)).toBe(reference(text, patterns));
      const wideMarkers = [p('hunter2', '[秘密]'), p('sk-live-0123456789', '[A]')];
      expect(new SecretScanner(wideMarkers).replace(text)).toBe(reference(text, wideMarkers));
    }
  });

  it('a lone surrogate survives the round trip unchanged', () => {
    const text = `${'x'.repeat(70_000)}\uD800 hunter2 \uDC00`;
    expect(scanner.replace(text)).toBe(`${'x'.repeat(70_000)}\uD800 [C] \uDC00`);
  });
});
