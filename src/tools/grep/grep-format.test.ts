import { describe, expect, it } from 'vitest';
import { splitGlobParam } from './grep-args.js';
import { ripgrepFailureMessage } from './grep-search.js';
import { withoutDenied, type ReadDenyFilter } from '../shared/search-path.js';
import { formatGrepOutput, formatLimitInfo, paginate } from './grep-format.js';
import { formatDuration } from '../shared/units.js';

describe('paginate', () => {
  it('reports the limit only when it cut entries off, and the offset whenever one was used', () => {
    expect(paginate([1, 2, 3], 2, 0)).toEqual({ items: [1, 2], appliedLimit: 2 });
    expect(paginate([1, 2, 3], 3, 0)).toEqual({ items: [1, 2, 3] });
    expect(paginate([1, 2, 3], 1, 1)).toEqual({ items: [2], appliedLimit: 1, appliedOffset: 1 });
    expect(paginate([1, 2, 3], 0, 1)).toEqual({ items: [2, 3], appliedOffset: 1 });
    expect(paginate([1, 2, 3], 5, 7)).toEqual({ items: [], appliedOffset: 7 });
  });

  it('formats the pagination info as Claude Code does', () => {
    expect(formatLimitInfo(250, undefined)).toBe('limit: 250');
    expect(formatLimitInfo(undefined, 10)).toBe('offset: 10');
    expect(formatLimitInfo(5, 10)).toBe('limit: 5, offset: 10');
    expect(formatLimitInfo(undefined, 0)).toBe('');
  });
});

describe('formatGrepOutput', () => {
  it('adds a note when the time limit cut the search short', () => {
    const text = formatGrepOutput({ mode: 'files_with_matches', numFiles: 1, filenames: ['/a'], totalFiles: 1, timedOut: true, timeoutMs: 20_000 });
    expect(text).toBe(
      'Found 1 file\n/a\n\n(The search timed out after 20s: the results above are incomplete. Narrow it with path, glob or type.)',
    );
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(5)).toBe('5ms');
  });
});

describe('splitGlobParam', () => {
  it('splits on whitespace and commas, but keeps brace sets whole', () => {
    expect(splitGlobParam('*.ts')).toEqual(['*.ts']);
    expect(splitGlobParam('*.ts,*.tsx')).toEqual(['*.ts', '*.tsx']);
    expect(splitGlobParam('*.ts  *.md')).toEqual(['*.ts', '*.md']);
    expect(splitGlobParam('*.{ts,tsx} src/**')).toEqual(['*.{ts,tsx}', 'src/**']);
    expect(splitGlobParam(undefined)).toEqual([]);
    expect(splitGlobParam(' ')).toEqual([]);
  });
});

describe('ripgrepFailureMessage', () => {
  it('names a rejected pattern, glob or type as such, and any other failure as a failed search', () => {
    expect(ripgrepFailureMessage({ exitCode: 2, stderr: 'rg: unrecognized file type: zz\n' })).toBe(
      'Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: unrecognized file type: zz',
    );
    expect(ripgrepFailureMessage({ exitCode: 2, stderr: 'rg: /x: Permission denied (os error 13)\n' })).toBe(
      'Search failed — ripgrep exited with code 2:\nrg: /x: Permission denied (os error 13)',
    );
    expect(ripgrepFailureMessage({ exitCode: null, stderr: '' })).toBe('Search failed — ripgrep was killed.');
  });
});

describe('withoutDenied', () => {
  const deny = (denied: string[]): ReadDenyFilter & { checked: string[] } => {
    const checked: string[] = [];
    return { globs: [], active: true, checked, isDenied: (p) => (checked.push(p), denied.includes(p)) };
  };

  it('checks only the entries that can be shown while none is denied', () => {
    const filter = deny(['/z']);
    const items = ['/a', '/b', '/c', '/z'];
    expect(withoutDenied(items, 2, (p) => p, filter)).toBe(items);
    expect(filter.checked).toEqual(['/a', '/b']);
  });

  it('filters the whole list once a shown entry is denied', () => {
    const filter = deny(['/b', '/z']);
    expect(withoutDenied(['/a', '/b', '/c', '/z'], 2, (p) => p, filter)).toEqual(['/a', '/c']);
  });

  it('does nothing without deny rules', () => {
    const items = ['/a'];
    expect(withoutDenied(items, Infinity, (p) => p, { globs: [], active: false, isDenied: () => true })).toBe(items);
  });
});
