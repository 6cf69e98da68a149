import { describe, expect, it } from 'vitest';
import { OldestFiles, patternNamesVcsDirectory, planGlob } from './glob-files.js';

describe('planGlob', () => {
  it('keeps slash-less patterns floating and anchors the rest below their literal folders', () => {
    expect(planGlob('*.ts', '/r')).toEqual({ root: '/r', glob: '*.ts' });
    expect(planGlob('**/*.ts', '/r')).toEqual({ root: '/r', glob: '/**/*.ts' });
    expect(planGlob('src/**/*.ts', '/r')).toEqual({ root: '/r/src', glob: '/**/*.ts' });
    expect(planGlob('src/*.ts', '/r')).toEqual({ root: '/r/src', glob: '/*.ts' });
    expect(planGlob('./src/a.ts', '/r')).toEqual({ root: '/r/src', glob: '/a.ts' });
    expect(planGlob('../x/{a,b}/*.js', '/r/p')).toEqual({ root: '/r/x', glob: '/{a,b}/*.js' });
    expect(planGlob('src/', '/r')).toEqual({ root: '/r/src', glob: '**' });
    expect(planGlob('/etc/*.conf', '/r')).toEqual({ root: '/etc', glob: '/*.conf' });
    expect(planGlob('~/notes/*.md', '/r', '/home/u')).toEqual({ root: '/home/u/notes', glob: '/*.md' });
    expect(planGlob('!src/x', '/r')).toEqual({ root: '/r', glob: '!src/x' });
    // A relative base stays relative, for the permission engine to resolve.
    expect(planGlob('src/*.ts', '.')).toEqual({ root: 'src', glob: '/*.ts' });
  });

  it('knows when a pattern names a version-control folder', () => {
    expect(patternNamesVcsDirectory('.git/**')).toBe(true);
    expect(patternNamesVcsDirectory('**/.hg/hgrc')).toBe(true);
    expect(patternNamesVcsDirectory('**/*.git')).toBe(false);
    expect(patternNamesVcsDirectory('src/**')).toBe(false);
  });
});

describe('OldestFiles', () => {
  it('keeps exactly what a full sort would keep (oldest first, ties by path)', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (const [n, limit] of [
      [0, 5],
      [3, 5],
      [500, 10],
      [2000, 100],
      [50, 0],
    ] as const) {
      const items = Array.from({ length: n }, (_, i) => ({ file: `/f/${Math.floor(rnd() * 1e6)}-${i}`, mtime: Math.floor(rnd() * 20) }));
      const heap = new OldestFiles(limit);
      for (const { file, mtime } of items) heap.add(file, mtime);
      const expected = [...items]
        .sort((a, b) => a.mtime - b.mtime || (a.file < b.file ? -1 : 1))
        .slice(0, limit)
        .map((x) => x.file);
      expect(heap.sorted()).toEqual(expected);
    }
  });
});
