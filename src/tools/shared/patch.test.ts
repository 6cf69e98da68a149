import { structuredPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { changedSpan, lineNumberAt, patchBetween, patchForSpan, snippetOf } from './patch.js';

const text = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('patches confined to the changed region', () => {
  it('equal the hunks of a whole-file structuredPatch', () => {
    const cases = [
      text.replace('line 30\n', 'line thirty\n'),
      text.replace('line 1\n', ''),
      text.replace('line 60\n', 'line 60\nline 61\n'),
      text.replace('line 10\n', 'X\n').replace('line 12\n', 'Y\n'),
      text.slice(0, -1),
      '',
    ];
    for (const after of cases) {
      const whole = structuredPatch('', '', text, after, '', '', { context: 3 }).hunks;
      expect(patchBetween(text, after)).toEqual(whole);
    }
  });

  it('accept a known start line without changing the result', () => {
    const after = text.replace('line 40', 'line forty');
    const span = changedSpan(text, after);
    expect(patchForSpan(text, after, span, lineNumberAt(text, span.start))).toEqual(patchForSpan(text, after, span));
  });
});

describe('snippetOf', () => {
  it('numbers the changed lines with four lines around them, from an index or from the top', () => {
    const fromTop = snippetOf(text, 30, 31);
    expect(fromTop.startLine).toBe(26);
    expect(fromTop.text.split('\n')).toEqual(['26\tline 26', '27\tline 27', '28\tline 28', '29\tline 29', '30\tline 30', '31\tline 31', '32\tline 32', '33\tline 33', '34\tline 34', '35\tline 35']);
    expect(snippetOf(text, 30, 31, text.indexOf('line 30') + 3)).toEqual(fromTop);
    expect(snippetOf(text, 2, 2, text.indexOf('line 2\n')).startLine).toBe(1);
  });

  it('stops at 80 lines and says how many more changed', () => {
    const s = snippetOf(text, 1, 100);
    expect(s.text.split('\n')).toHaveLength(60);
    expect(snippetOf(Array.from({ length: 200 }, (_, i) => `${i}`).join('\n'), 1, 150).text).toMatch(/\n… \(74 more changed lines not shown\)$/);
  });
});
