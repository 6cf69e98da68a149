import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zodToInputJSONSchema } from '../../tool/api-format.js';
import type { ToolProgress } from '../../tool/tool.js';
import { grepCommandArgs } from './grep-search.js';
import { GrepTool, type GrepOutput } from './index.js';
import { runRipgrep } from '../shared/ripgrep.js';
import { readDenyFilter } from '../shared/search-path.js';
import { denyRule, makeContext, makeTempDir, removeDir, runTool, writeTree } from './test-helpers/search-fixtures.js';

const T = 1_700_000_000;
let root: string;

beforeAll(() => {
  root = makeTempDir('toolgate-grep-');
  writeTree(root, {
    'src/old.ts': { content: 'const alpha = 1;\nexport function needle() {}\n', mtime: T },
    'src/new.ts': { content: 'import x from "y";\nneedle();\nneedle again\n', mtime: T + 300 },
    'src/mid.py': { content: 'def needle():\n    pass\n', mtime: T + 200 },
    'docs/readme.md': { content: 'no match here\n', mtime: T + 100 },
    'ctx.txt': { content: 'one\ntwo\nthree\nTARGET\nfive\nsix\nseven\n', mtime: T + 50 },
    'multi.txt': { content: 'start of block\nmiddle\nend of block\n', mtime: T + 40 },
    'case.txt': { content: 'MixedCase Word\n', mtime: T + 30 },
    'dash.txt': { content: 'option -verbose here\n', mtime: T + 20 },
    '.hidden/secret-ish.ts': { content: 'needle in hidden\n', mtime: T + 10 },
    '.git/config': 'needle in git\n',
    '.svn/entries': 'needle in svn\n',
    '.hg/store': 'needle in hg\n',
    '.jj/repo': 'needle in jj\n',
    'secrets/key.ts': { content: 'needle secret key\n', mtime: T + 400 },
    '.env': { content: 'API_KEY=needle\n', mtime: T + 500 },
    'weird:name-1.txt': { content: 'needle with colon\n', mtime: T + 450 },
    'tie/b.txt': { content: 'tiebreak\n', mtime: T + 5 },
    'tie/a.txt': { content: 'tiebreak\n', mtime: T + 5 },
    'tie/c.txt': { content: 'tiebreak\n', mtime: T + 6 },
  });
});

afterAll(() => removeDir(root));

const ctx = (extra: Parameters<typeof makeContext>[0] | Record<string, never> = {}) => makeContext({ cwd: root, ...extra });
const abs = (rel: string) => path.join(root, rel);

describe('Grep definition', () => {
  it('is a read-only, concurrency-safe, strict tool with Claude Code 2.1.328 metadata', async () => {
    expect(GrepTool.name).toBe('Grep');
    expect(GrepTool.isReadOnly({ pattern: 'x' })).toBe(true);
    expect(GrepTool.isConcurrencySafe({ pattern: 'x' })).toBe(true);
    expect(GrepTool.maxResultSizeChars).toBe(100_000);
    expect(GrepTool.strict).toBe(true);
    expect(GrepTool.userFacingName()).toBe('Search');
    const schema = zodToInputJSONSchema(GrepTool.inputSchema);
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(
      ['-A', '-B', '-C', '-i', '-n', '-o', 'context', 'glob', 'head_limit', 'multiline', 'offset', 'output_mode', 'path', 'pattern', 'type'].sort(),
    );
    expect(schema.required).toEqual(['pattern']);
    expect(GrepTool.inputSchema.safeParse({ pattern: 'x', bogus: 1 }).success).toBe(false);
    expect(GrepTool.inputSchema.safeParse({ pattern: 'x', head_limit: -1 }).success).toBe(false);
    const prompt = await GrepTool.prompt({ getToolPermissionContext: () => ctx().getAppState().toolPermissionContext, tools: [] });
    expect(prompt).toMatch(/most recently modified first/);
    expect(prompt).toMatch(/offset/);
  });

  it('backfills an absolute path against the session cwd and hands it to the permission engine', () => {
    const context = ctx();
    context.setAppState((s) => ({ ...s, cwd: abs('src') }));
    const observable: Record<string, unknown> = { pattern: 'x', path: '../docs' };
    GrepTool.backfillObservableInput?.(observable, context);
    expect(observable.path).toBe(abs('docs'));
    const none: Record<string, unknown> = { pattern: 'x' };
    GrepTool.backfillObservableInput?.(none, context);
    expect(none.path).toBe(abs('src'));
    expect(GrepTool.getPath?.({ pattern: 'x', path: abs('docs') })).toBe(abs('docs'));
    expect(GrepTool.getPath?.({ pattern: 'x' })).toBeUndefined();
  });
});

describe('Grep files_with_matches (default)', () => {
  it('lists matching files relative to the working directory, newest first', async () => {
    const r = await runTool(GrepTool, { pattern: 'needle' }, ctx());
    expect(r.isError).toBe(false);
    expect(r.text).toBe(
      [
        'Found 7 files',
        '.env',
        'weird:name-1.txt',
        'secrets/key.ts',
        'src/new.ts',
        'src/mid.py',
        '.hidden/secret-ish.ts',
        'src/old.ts',
      ].join('\n'),
    );
  });

  it('orders files with the same mtime by path', async () => {
    const r = await runTool(GrepTool, { pattern: 'tiebreak' }, ctx());
    expect(r.text).toBe(['Found 3 files', 'tie/c.txt', 'tie/a.txt', 'tie/b.txt'].join('\n'));
  });

  it('says "No files found" when nothing matches', async () => {
    expect((await runTool(GrepTool, { pattern: 'zzz_nothing_zzz' }, ctx())).text).toBe('No files found');
  });

  it('never searches VCS folders, but does search hidden files', async () => {
    const r = await runTool(GrepTool, { pattern: 'needle in' }, ctx());
    expect(r.text).toBe(`Found 1 file\n.hidden/secret-ish.ts`);
  });

  it('pages with head_limit and offset, reporting the limit only when it cut something off', async () => {
    const first = await runTool(GrepTool, { pattern: 'needle', path: 'src', head_limit: 2 }, ctx());
    expect(first.text).toBe(`Found 2 files limit: 2\nsrc/new.ts\nsrc/mid.py`);
    expect((first.data as GrepOutput).appliedLimit).toBe(2);
    const second = await runTool(GrepTool, { pattern: 'needle', path: 'src', head_limit: 2, offset: 2 }, ctx());
    expect(second.text).toBe(`Found 1 file offset: 2\nsrc/old.ts`);
    expect((second.data as GrepOutput).appliedLimit).toBeUndefined();
    const exact = await runTool(GrepTool, { pattern: 'needle', path: 'src', head_limit: 3 }, ctx());
    expect(exact.text).toBe(`Found 3 files\nsrc/new.ts\nsrc/mid.py\nsrc/old.ts`);
    const past = await runTool(GrepTool, { pattern: 'needle', path: 'src', offset: 10 }, ctx());
    expect(past.text).toBe('No entries at this offset. [Showing results with pagination = offset: 10]');
    const unlimited = await runTool(GrepTool, { pattern: 'needle', path: 'src', head_limit: 0 }, ctx());
    expect(unlimited.text.split('\n')[0]).toBe('Found 3 files');
  });

  it('caps at 250 entries by default', async () => {
    const dir = makeTempDir('toolgate-grep-many-');
    try {
      writeTree(dir, Object.fromEntries(Array.from({ length: 260 }, (_, i) => [`f${String(i).padStart(3, '0')}.txt`, 'hit\n'])));
      const r = await runTool(GrepTool, { pattern: 'hit' }, makeContext({ cwd: dir }));
      expect(r.text.split('\n')[0]).toBe('Found 250 files limit: 250');
      expect(r.text.split('\n')).toHaveLength(251);
      expect((r.data as GrepOutput).totalFiles).toBe(260);
    } finally {
      removeDir(dir);
    }
  });
});

describe('Grep content mode', () => {
  it('shows path:line:text with line numbers by default, and path:text with -n false', async () => {
    const r = await runTool(GrepTool, { pattern: 'needle', path: 'src', output_mode: 'content', glob: '*.ts' }, ctx());
    expect(r.text).toBe(
      [`src/new.ts:2:needle();`, `src/new.ts:3:needle again`, `src/old.ts:2:export function needle() {}`].join('\n'),
    );
    const noNumbers = await runTool(GrepTool, { pattern: 'needle', path: 'src/mid.py', output_mode: 'content', '-n': false }, ctx());
    expect(noNumbers.text).toBe('def needle():');
  });

  it('keeps file names containing ":" and "-" intact', async () => {
    const r = await runTool(GrepTool, { pattern: 'colon', output_mode: 'content' }, ctx());
    expect(r.text).toBe(`weird:name-1.txt:1:needle with colon`);
  });

  it('adds context with -A, -B, -C and context (which wins over -C)', async () => {
    const run = (extra: Record<string, unknown>) =>
      runTool(GrepTool, { pattern: 'TARGET', path: 'ctx.txt', output_mode: 'content', ...extra }, ctx()).then((r) => r.text);
    expect(await run({ '-A': 1 })).toBe('4:TARGET\n5-five');
    expect(await run({ '-B': 2 })).toBe('2-two\n3-three\n4:TARGET');
    expect(await run({ '-C': 1 })).toBe('3-three\n4:TARGET\n5-five');
    expect(await run({ '-C': 3, context: 1 })).toBe('3-three\n4:TARGET\n5-five');
    expect(await run({ '-A': 1, '-n': false })).toBe('TARGET\nfive');
  });

  it('separates context groups with --', async () => {
    const r = await runTool(GrepTool, { pattern: 'one|seven', path: 'ctx.txt', output_mode: 'content', '-A': 1 }, ctx());
    expect(r.text).toBe('1:one\n2-two\n--\n7:seven');
  });

  it('supports -i, -o and multiline', async () => {
    const run = (input: Record<string, unknown>) => runTool(GrepTool, { output_mode: 'content', ...input }, ctx()).then((r) => r.text);
    expect(await run({ pattern: 'mixedcase', path: 'case.txt' })).toBe('No matches found');
    expect(await run({ pattern: 'mixedcase', path: 'case.txt', '-i': true })).toBe('1:MixedCase Word');
    expect(await run({ pattern: 'Mixed\\w+', path: 'case.txt', '-o': true })).toBe('1:MixedCase');
    expect(await run({ pattern: 'start.*end', path: 'multi.txt' })).toBe('No matches found');
    expect(await run({ pattern: 'start.*end', path: 'multi.txt', multiline: true })).toBe(
      '1:start of block\n2:middle\n3:end of block',
    );
  });

  it('passes a pattern that starts with "-" as a pattern, not a flag', async () => {
    const r = await runTool(GrepTool, { pattern: '-verbose', output_mode: 'content' }, ctx());
    expect(r.text).toBe(`dash.txt:1:option -verbose here`);
  });

  it('pages lines and says so; past the end it says "No entries at this offset"', async () => {
    const run = (extra: Record<string, unknown>) =>
      runTool(GrepTool, { pattern: '.', path: 'ctx.txt', output_mode: 'content', ...extra }, ctx());
    const page = await run({ head_limit: 2, offset: 1 });
    expect(page.text).toBe('2:two\n3:three\n\n[Showing results with pagination = limit: 2, offset: 1]');
    const last = await run({ head_limit: 3, offset: 5 });
    expect(last.text).toBe('6:six\n7:seven\n\n[Showing results with pagination = offset: 5]');
    const past = await run({ offset: 50 });
    expect(past.text).toBe('No entries at this offset\n\n[Showing results with pagination = offset: 50]');
    expect((await run({ head_limit: 0 })).text.split('\n')).toHaveLength(7);
  });

  it('stops reading once the page is full, however much rg would print', async () => {
    const dir = makeTempDir('toolgate-grep-big-');
    try {
      writeTree(dir, { 'big.txt': 'match line\n'.repeat(300_000) });
      const r = await runTool(GrepTool, { pattern: 'match', output_mode: 'content', head_limit: 5 }, makeContext({ cwd: dir }));
      const data = r.data as GrepOutput;
      expect(data.numLines).toBe(5);
      expect(data.appliedLimit).toBe(5);
      expect(data.totalLines).toBeUndefined();
      expect(r.text.endsWith('[Showing results with pagination = limit: 5]')).toBe(true);
    } finally {
      removeDir(dir);
    }
  });
});

describe('Grep count mode', () => {
  it('lists path:count sorted by path and reports the totals', async () => {
    const r = await runTool(GrepTool, { pattern: 'needle', path: 'src', output_mode: 'count' }, ctx());
    expect(r.text).toBe(
      `src/mid.py:1\nsrc/new.ts:2\nsrc/old.ts:1\n\nFound 4 total occurrences across 3 files.`,
    );
    const one = await runTool(GrepTool, { pattern: 'TARGET', path: 'ctx.txt', output_mode: 'count' }, ctx());
    expect(one.text).toBe(`ctx.txt:1\n\nFound 1 total occurrence across 1 file.`);
    const none = await runTool(GrepTool, { pattern: 'zzz_none', output_mode: 'count' }, ctx());
    expect(none.text).toBe('No matches found\n\nFound 0 total occurrences across 0 files.');
  });

  it('keeps the totals of all files when paginated', async () => {
    const page = await runTool(GrepTool, { pattern: 'needle', path: 'src', output_mode: 'count', head_limit: 1, offset: 1 }, ctx());
    expect(page.text).toBe(`src/new.ts:2\n\nFound 4 total occurrences across 3 files. with pagination = limit: 1, offset: 1`);
    const past = await runTool(GrepTool, { pattern: 'needle', path: 'src', output_mode: 'count', offset: 9 }, ctx());
    expect(past.text).toBe('No entries at this offset\n\nFound 4 total occurrences across 3 files. with pagination = offset: 9');
  });
});

describe('Grep filters', () => {
  it('filters by type and by glob (comma lists and brace sets)', async () => {
    const files = async (input: Record<string, unknown>) =>
      (await runTool(GrepTool, { pattern: 'needle', path: 'src', ...input }, ctx())).text.split('\n').slice(1).sort();
    expect(await files({ type: 'py' })).toEqual(['src/mid.py']);
    expect(await files({ glob: '*.ts' })).toEqual(['src/new.ts', 'src/old.ts']);
    expect(await files({ glob: '*.py,old.*' })).toEqual(['src/mid.py', 'src/old.ts']);
    expect(await files({ glob: '*.{py,md}' })).toEqual(['src/mid.py']);
  });

  it('skips files ignored by .gitignore inside a git repository', async () => {
    const dir = makeTempDir('toolgate-grep-ignore-');
    try {
      writeTree(dir, { '.git/HEAD': 'ref\n', '.gitignore': 'build/\n', 'build/out.js': 'hit\n', 'src/in.js': 'hit\n' });
      const r = await runTool(GrepTool, { pattern: 'hit' }, makeContext({ cwd: dir }));
      expect(r.text).toBe('Found 1 file\nsrc/in.js');
    } finally {
      removeDir(dir);
    }
  });
});

describe('Grep and Read deny rules', () => {
  const denied = () => ctx({ denyRules: [denyRule('Read', './secrets/**'), denyRule('Read', '.env')] } as never);

  it('never shows denied files, in any mode', async () => {
    const files = await runTool(GrepTool, { pattern: 'needle|API_KEY', head_limit: 0 }, denied());
    expect(files.text).not.toMatch(/secrets|\.env/);
    expect(files.text).toMatch(/^Found 5 files/);
    const content = await runTool(GrepTool, { pattern: 'in hidden|secret key|API_KEY', output_mode: 'content' }, denied());
    expect(content.text).toBe(`.hidden/secret-ish.ts:1:needle in hidden`);
    const count = await runTool(GrepTool, { pattern: 'needle', output_mode: 'count' }, denied());
    expect(count.text).not.toMatch(/secrets|\.env/);
    expect(count.text).toMatch(/Found 6 total occurrences across 5 files\.$/);
    // The folder itself is denied: the search is refused before rg starts (the engine refuses it first in a session).
    const direct = await runTool(GrepTool, { pattern: 'needle', path: 'secrets' }, denied());
    expect(direct.isError).toBe(true);
    expect(direct.text).toMatch(/Permission to read .*secrets is denied by Read\(\.\/secrets\/\*\*\)/);
  });

  it('keeps denied files out of the rg search itself, not only out of what is shown', async () => {
    const context = denied();
    const deny = readDenyFilter(context.getAppState().toolPermissionContext, root);
    expect(deny.globs.length).toBeGreaterThan(0);
    const seen: string[] = [];
    await runRipgrep({
      args: grepCommandArgs({ input: { pattern: 'needle|API_KEY' }, target: root, deny }),
      cwd: root,
      signal: new AbortController().signal,
      timeoutMs: 10_000,
      separator: '\0',
      onRecord: (file) => void seen.push(file),
    });
    expect(seen.filter((f) => f !== '').sort()).toEqual(
      ['weird:name-1.txt', 'src/new.ts', 'src/mid.py', '.hidden/secret-ish.ts', 'src/old.ts'].map(abs).sort(),
    );
  });

  it('refuses a search root reached through a symlink into a denied folder', async () => {
    // The engine denies such a call on its own (it judges real paths); the tool's own check is the second line.
    fs.symlinkSync(abs('secrets'), abs('via-link'));
    try {
      const context = denied();
      // The folder opened is judged where it really is (opened-file.ts): refused, naming the rule, in every mode.
      for (const output_mode of ['files_with_matches', 'content', 'count'] as const) {
        const r = await runTool(GrepTool, { pattern: 'needle', path: 'via-link', output_mode }, context);
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(/Permission to read .*secrets is denied by Read\(\.\/secrets\/\*\*\).*via-link led there/);
      }
      // Without the rule the same search finds the file: the check, not the search, hid it.
      expect((await runTool(GrepTool, { pattern: 'needle', path: 'via-link' }, ctx())).text).toBe(`Found 1 file\nvia-link/key.ts`);
    } finally {
      fs.unlinkSync(abs('via-link'));
    }
  });

  it('filters what rg\'s globs miss: a folder named in decomposed Unicode (NFD) under a rule written composed', async () => {
    const dir = makeTempDir('toolgate-grep-nfd-');
    try {
      writeTree(dir, { 'cafe\u0301/x.txt': 'needle\n', 'ok.txt': 'needle\n' });
      const context = makeContext({ cwd: dir, denyRules: [denyRule('Read', './caf\u00e9/**')] });
      const ok = 'ok.txt';
      expect((await runTool(GrepTool, { pattern: 'needle' }, context)).text).toBe(`Found 1 file\n${ok}`);
      expect((await runTool(GrepTool, { pattern: 'needle', output_mode: 'count' }, context)).text).toBe(
        `${ok}:1\n\nFound 1 total occurrence across 1 file.`,
      );
      expect((await runTool(GrepTool, { pattern: 'needle', output_mode: 'content' }, context)).text).toBe(`${ok}:1:needle`);
      expect((await runTool(GrepTool, { pattern: 'needle' }, makeContext({ cwd: dir }))).text).toMatch(/^Found 2 files/);
    } finally {
      removeDir(dir);
    }
  });

  it('honours deny rules written for Grep itself, case-insensitively', async () => {
    const r = await runTool(GrepTool, { pattern: 'needle' }, ctx({ denyRules: [denyRule('Grep', './SRC/**')] } as never));
    expect(r.text).toMatch(/^Found \d+ files/);
    expect(r.text).not.toMatch(/(^|\n)src\//);
  });
});

describe('Grep errors', () => {
  it('rejects a null byte in any string field with Claude Code\'s message', async () => {
    for (const field of ['pattern', 'path', 'glob', 'type']) {
      const input = { pattern: 'x', [field]: 'a\0b' };
      const r = await runTool(GrepTool, input, ctx());
      expect(r).toMatchObject({
        isError: true,
        errorCode: 2,
        text: `Grep ${field} cannot contain null bytes (\\0). Remove the null byte and try again.`,
      });
    }
  });

  it('rejects a missing path, naming the cwd', async () => {
    const r = await runTool(GrepTool, { pattern: 'x', path: 'nope' }, ctx());
    expect(r).toMatchObject({ isError: true, errorCode: 1, text: `Path does not exist: nope. Note: your current working directory is ${root}.` });
  });

  it('refuses a FIFO rather than blocking on it', async () => {
    const dir = makeTempDir('toolgate-grep-fifo-');
    try {
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkfifo', [path.join(dir, 'pipe')]);
      const r = await runTool(GrepTool, { pattern: 'x', path: 'pipe' }, makeContext({ cwd: dir }));
      expect(r).toMatchObject({ isError: true, text: 'Path is not a regular file or directory: pipe' });
    } finally {
      removeDir(dir);
    }
  });

  it('returns ripgrep\'s own diagnostic when it rejects the pattern, glob or type', async () => {
    const bad = await runTool(GrepTool, { pattern: '(unclosed' }, ctx());
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: regex parse error:/);
    expect(bad.text).toMatch(/unclosed group/);
    const type = await runTool(GrepTool, { pattern: 'x', type: 'nosuchtype' }, ctx());
    expect(type.text).toMatch(/unrecognized file type: nosuchtype/);
    const glob = await runTool(GrepTool, { pattern: 'x', glob: '{a' }, ctx());
    expect(glob.text).toMatch(/error parsing glob '\{a'/);
  });

  it('rejects with AbortError when the call is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const call = GrepTool.call({ pattern: 'needle' }, ctx({ abortController: controller } as never), null as never, null as never);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reports a time limit that passes before anything is found', async () => {
    const dir = makeTempDir('toolgate-grep-timeout-');
    try {
      writeTree(dir, { 'a.txt': 'needle\n' });
      // rg blocks opening an ignore file that is a FIFO: a search that cannot finish, deterministically.
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkfifo', [path.join(dir, '.ignore')]);
      const r = await runTool(GrepTool, { pattern: 'needle' }, makeContext({ cwd: dir, settings: { grepTimeoutMs: 300 } }));
      expect(r).toMatchObject({
        isError: true,
        text: `Grep timed out after 300ms searching ${dir} before finding anything. Narrow the search with path, glob or type.`,
      });
    } finally {
      removeDir(dir);
    }
  });
});

describe('Grep paths', () => {
  it('resolves a relative path against the session cwd, which a cd in Bash may have moved', async () => {
    const context = ctx();
    context.setAppState((s) => ({ ...s, cwd: abs('src') }));
    const r = await runTool(GrepTool, { pattern: 'def needle', path: '.' }, context);
    expect(r.text).toBe('Found 1 file\nmid.py');
    expect(fs.existsSync(abs('src/mid.py'))).toBe(true);
  });

  it('shows paths inside the working directory relative to it and others absolute, in every mode', async () => {
    const context = ctx();
    context.setAppState((s) => ({ ...s, cwd: abs('src') }));
    // Outside the cwd (the engine checked the absolute path; the result names it in full).
    expect((await runTool(GrepTool, { pattern: 'no match', path: '../docs' }, context)).text).toBe(`Found 1 file\n${abs('docs/readme.md')}`);
    expect((await runTool(GrepTool, { pattern: 'no match', path: '..', output_mode: 'count' }, context)).text).toBe(
      `${abs('docs/readme.md')}:1\n\nFound 1 total occurrence across 1 file.`,
    );
    // Inside it, from a search rooted above it: relative where inside, absolute where not.
    const content = await runTool(GrepTool, { pattern: 'needle\\(\\)|no match', path: '..', output_mode: 'content' }, context);
    expect(content.text).toBe([`${abs('docs/readme.md')}:1:no match here`, 'mid.py:1:def needle():', 'new.ts:2:needle();', 'old.ts:2:export function needle() {}'].join('\n'));
    const data = (await runTool(GrepTool, { pattern: 'def needle', path: '..' }, context)).data as GrepOutput;
    expect(data.filenames).toEqual(['mid.py']);
    // One file searched: rg prints no path; the lines are as they were.
    expect((await runTool(GrepTool, { pattern: 'needle', path: 'new.ts', output_mode: 'content' }, context)).text).toBe('2:needle();\n3:needle again');
  });

  it('treats "undefined" and "null" paths as the cwd', async () => {
    const r = await runTool(GrepTool, { pattern: 'TARGET', path: 'undefined' }, ctx());
    expect(r.text).toBe(`Found 1 file\nctx.txt`);
  });
});

describe('Grep progress (the seeds: Grep reports its match counts while it runs)', () => {
  const collect = async (input: Record<string, unknown>, context = ctx()) => {
    const seen: ToolProgress[] = [];
    const r = await runTool(GrepTool, input, context, (p) => seen.push(p));
    return { r, seen };
  };

  it('files: the first file found is reported at once, then counts that only grow, up to what the result lists', async () => {
    const { r, seen } = await collect({ pattern: 'needle' });
    const found = (r.data as GrepOutput).numFiles;
    expect(found).toBeGreaterThan(1);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]!.data).toEqual({ type: 'grep_progress', found: 1, unit: 'files' });
    expect(seen[0]!.toolUseID).toMatch(/^toolu_test_/);
    const counts = seen.map((p) => p.data.found as number);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)!).toBeLessThanOrEqual(found);
  });

  it('content: counted in lines', async () => {
    const { seen } = await collect({ pattern: 'needle', output_mode: 'content' });
    expect(seen[0]!.data).toEqual({ type: 'grep_progress', found: 1, unit: 'lines' });
  });

  it('nothing found, nothing reported', async () => {
    const { r, seen } = await collect({ pattern: 'no-such-string-anywhere-here' });
    expect(r.text).toBe('No files found');
    expect(seen).toEqual([]);
  });

  it('no count while Read deny rules name paths (rg may print a file the final filter drops)', async () => {
    const { r, seen } = await collect({ pattern: 'needle' }, ctx({ denyRules: [denyRule('Read', './secrets/**')] } as never));
    expect((r.data as GrepOutput).numFiles).toBeGreaterThan(0);
    expect(seen).toEqual([]);
  });
});
