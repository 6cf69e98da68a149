import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zodToInputJSONSchema } from '../../tool/api-format.js';
import { denyRule, makeContext, makeTempDir, removeDir, runTool, writeTree } from '../grep/test-helpers/search-fixtures.js';
import { GlobTool, type GlobOutput } from './index.js';

const T = 1_700_000_000;
let base: string;
let root: string;

beforeAll(() => {
  base = makeTempDir('toolgate-glob-');
  root = path.join(base, 'project');
  writeTree(root, {
    'src/a.ts': { mtime: T + 10 },
    'src/b.ts': { mtime: T + 30 },
    'src/deep/c.ts': { mtime: T + 20 },
    'src/deep/d.js': { mtime: T + 40 },
    'README.md': { mtime: T + 5 },
    'docs/guide.md': { mtime: T + 6 },
    '.config/tool.ts': { mtime: T + 1 },
    '.gitignore': { content: 'build/\n', mtime: T },
    'build/out.ts': { mtime: T + 2 },
    '.git/HEAD': { content: 'ref: refs/heads/main\n', mtime: T },
    '.git/hooks/pre-commit.ts': { mtime: T },
    '.hg/store.ts': { mtime: T },
    'secrets/key.ts': { mtime: T + 50 },
    '.env': { mtime: T + 60 },
    'tie/b.ts': { mtime: T + 3 },
    'tie/a.ts': { mtime: T + 3 },
  });
  writeTree(base, { 'sibling/x.txt': { mtime: T }, 'sibling/y.txt': { mtime: T + 1 } });
});

afterAll(() => removeDir(base));

const ctx = (extra: Partial<Parameters<typeof makeContext>[0]> = {}) => makeContext({ cwd: root, ...extra });
const abs = (rel: string) => path.join(root, rel);
const glob = (input: Record<string, unknown>, context = ctx()) => runTool(GlobTool, input, context);

describe('Glob definition', () => {
  it('is read-only and concurrency-safe with Claude Code 2.1.328 fields', async () => {
    expect(GlobTool.name).toBe('Glob');
    expect(GlobTool.isReadOnly({ pattern: '*' })).toBe(true);
    expect(GlobTool.isConcurrencySafe({ pattern: '*' })).toBe(true);
    expect(GlobTool.maxResultSizeChars).toBe(100_000);
    const schema = zodToInputJSONSchema(GlobTool.inputSchema);
    expect(Object.keys(schema.properties ?? {})).toEqual(['pattern', 'path']);
    expect(schema.required).toEqual(['pattern']);
    const prompt = await GlobTool.prompt({ getToolPermissionContext: () => ctx().getAppState().toolPermissionContext, tools: [] });
    expect(prompt).toMatch(/sorted by modification time, oldest first/);
  });

  it('reports the folder actually walked to the permission engine', () => {
    expect(GlobTool.getPath?.({ pattern: '**/*.ts', path: root })).toBe(root);
    expect(GlobTool.getPath?.({ pattern: 'src/**/*.ts', path: root })).toBe(abs('src'));
    expect(GlobTool.getPath?.({ pattern: '../../etc/**', path: root })).toBe(path.resolve(root, '../../etc'));
    expect(GlobTool.getPath?.({ pattern: '/etc/*.conf', path: root })).toBe('/etc');
    // Without a backfilled path the engine resolves the relative answer against its cwd.
    expect(GlobTool.getPath?.({ pattern: 'src/*.ts' })).toBe('src');
    const observable: Record<string, unknown> = { pattern: '*.ts' };
    GlobTool.backfillObservableInput?.(observable, ctx());
    expect(observable.path).toBe(root);
  });
});

describe('Glob results', () => {
  it('lists paths relative to the cwd, oldest first (equal times by path), as Claude Code does', async () => {
    const r = await glob({ pattern: '**/*.ts' });
    expect(r.text).toBe(['.config/tool.ts', 'build/out.ts', 'tie/a.ts', 'tie/b.ts', 'src/a.ts', 'src/deep/c.ts', 'src/b.ts', 'secrets/key.ts'].join('\n'));
    expect((r.data as GlobOutput).truncated).toBe(false);
  });

  it('says "No files found" when nothing matches', async () => {
    expect((await glob({ pattern: '**/*.rs' })).text).toBe('No files found');
    expect((await glob({ pattern: 'nowhere/**/*.ts' })).text).toBe('No files found');
  });

  it('matches a pattern without "/" at any depth, and anchors one with "/"', async () => {
    expect((await glob({ pattern: '*.md' })).text).toBe(['README.md', 'docs/guide.md'].join('\n'));
    expect((await glob({ pattern: 'src/*.ts' })).text).toBe(['src/a.ts', 'src/b.ts'].join('\n'));
    expect((await glob({ pattern: 'src/**/*.ts' })).text).toBe(['src/a.ts', 'src/deep/c.ts', 'src/b.ts'].join('\n'));
    expect((await glob({ pattern: 'src/deep/c.ts' })).text).toBe('src/deep/c.ts');
    expect((await glob({ pattern: '*.{md,js}' })).text).toBe(['README.md', 'docs/guide.md', 'src/deep/d.js'].join('\n'));
  });

  it('searches from the path given, from "../" folders and from absolute patterns', async () => {
    expect((await glob({ pattern: '*.ts', path: 'src/deep' })).text).toBe('src/deep/c.ts');
    expect((await glob({ pattern: '*.ts', path: abs('src/deep') })).text).toBe('src/deep/c.ts');
    // Outside the cwd: absolute.
    const sibling = [path.join(base, 'sibling/x.txt'), path.join(base, 'sibling/y.txt')].join('\n');
    expect((await glob({ pattern: '../sibling/*.txt' })).text).toBe(sibling);
    expect((await glob({ pattern: `${base}/sibling/*.txt`, path: 'src' })).text).toBe(sibling);
  });

  it('resolves a relative path against the session cwd', async () => {
    const context = ctx();
    context.setAppState((s) => ({ ...s, cwd: abs('src') }));
    expect((await glob({ pattern: '*.ts', path: 'deep' }, context)).text).toBe('deep/c.ts');
  });

  it('includes hidden files and, by default, files .gitignore excludes', async () => {
    const r = await glob({ pattern: '**/*.ts' });
    expect(r.text).toContain('.config/tool.ts');
    expect(r.text).toContain('build/out.ts');
  });

  it('applies .gitignore when settings.globRespectGitignore is on', async () => {
    const r = await glob({ pattern: '**/*.ts' }, ctx({ settings: { globRespectGitignore: true } }));
    expect(r.text).not.toContain('build/out.ts');
    expect(r.text).toContain('.config/tool.ts');
  });

  it('skips version-control folders unless the pattern names one', async () => {
    expect((await glob({ pattern: '**/*' })).text).not.toMatch(/(^|\/)\.git\/|(^|\/)\.hg\//m);
    expect((await glob({ pattern: '.git/**' })).text.split('\n').sort()).toEqual(['.git/HEAD', '.git/hooks/pre-commit.ts']);
    expect((await glob({ pattern: '**/.hg/*.ts' })).text).toBe('.hg/store.ts');
  });
});

describe('Glob truncation', () => {
  it('lists the oldest 100 and says how many more matched', async () => {
    const dir = makeTempDir('toolgate-glob-many-');
    try {
      writeTree(dir, Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`f${i}.txt`, { mtime: T + i }])));
      const r = await glob({ pattern: '*.txt' }, makeContext({ cwd: dir }));
      const lines = r.text.split('\n');
      expect(lines).toHaveLength(101);
      expect(lines[0]).toBe('f0.txt');
      expect(lines[99]).toBe('f99.txt');
      expect(lines[100]).toBe(
        '(Showing 100 of 130 matching files; 30 more are not listed. Narrow the pattern or path to see the rest.)',
      );
      expect(r.data).toMatchObject({ numFiles: 100, truncated: true, totalMatches: 130, countIsComplete: true });
    } finally {
      removeDir(dir);
    }
  });

  it('adds no note at exactly 100', async () => {
    const dir = makeTempDir('toolgate-glob-100-');
    try {
      writeTree(dir, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}.txt`, { mtime: T + i }])));
      const r = await glob({ pattern: '*.txt' }, makeContext({ cwd: dir }));
      expect(r.text.split('\n')).toHaveLength(100);
      expect((r.data as GlobOutput).truncated).toBe(false);
    } finally {
      removeDir(dir);
    }
  });
});

describe('Glob and Read deny rules', () => {
  const denied = () => ctx({ denyRules: [denyRule('Read', './secrets/**'), denyRule('Read', '.env')] });

  it('never lists denied files, whatever the pattern', async () => {
    const all = await glob({ pattern: '**/*' }, denied());
    expect(all.text).not.toMatch(/secrets|\.env/);
    expect(all.text).toContain('src/a.ts');
    expect((await glob({ pattern: '.env' }, denied())).text).toBe('No files found');
    // The folder walked is itself denied: refused before rg starts (the engine refuses it first in a session).
    for (const input of [{ pattern: 'secrets/**' }, { pattern: '*', path: 'secrets' }]) {
      const r = await glob(input, denied());
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/Permission to read .*secrets is denied by Read\(\.\/secrets\/\*\*\)/);
    }
  });

  it('refuses a search root reached through a symlink into a denied folder', async () => {
    fs.symlinkSync(abs('secrets'), abs('via-link'));
    try {
      const r = await glob({ pattern: '*', path: 'via-link' }, denied());
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/Permission to read .*secrets is denied by Read\(\.\/secrets\/\*\*\).*via-link led there/);
      expect((await glob({ pattern: '*', path: 'via-link' })).text).toBe('via-link/key.ts');
    } finally {
      fs.unlinkSync(abs('via-link'));
    }
  });

  it('filters what rg\'s globs miss: a folder named in decomposed Unicode (NFD) under a rule written composed', async () => {
    const dir = makeTempDir('toolgate-glob-nfd-');
    try {
      writeTree(dir, { 'cafe\u0301/x.txt': '', 'ok.txt': '' });
      const context = makeContext({ cwd: dir, denyRules: [denyRule('Read', './caf\u00e9/**')] });
      expect((await glob({ pattern: '**/*' }, context)).text).toBe('ok.txt');
      expect((await glob({ pattern: '**/*' }, makeContext({ cwd: dir }))).text.split('\n')).toHaveLength(2);
    } finally {
      removeDir(dir);
    }
  });

  it('counts only what may be listed', async () => {
    const r = await glob({ pattern: '**/*.ts' }, denied());
    expect((r.data as GlobOutput).numFiles).toBe(7);
  });
});

describe('Glob errors', () => {
  it('rejects a null byte in pattern or path with Claude Code\'s message', async () => {
    expect(await glob({ pattern: '*.ts\0' })).toMatchObject({
      isError: true,
      errorCode: 2,
      text: 'Glob pattern cannot contain null bytes (\\0). Remove the null byte and try again.',
    });
    expect(await glob({ pattern: '*.ts', path: 'src\0' })).toMatchObject({
      isError: true,
      errorCode: 2,
      text: 'Glob path cannot contain null bytes (\\0). Remove the null byte and try again.',
    });
  });

  it('rejects a missing directory, a file as path and an empty pattern', async () => {
    expect(await glob({ pattern: '*', path: 'nope' })).toMatchObject({
      isError: true,
      errorCode: 1,
      text: `Directory does not exist: nope. Note: your current working directory is ${root}.`,
    });
    expect(await glob({ pattern: '*', path: 'README.md' })).toMatchObject({
      isError: true,
      errorCode: 2,
      text: 'Path is not a directory: README.md',
    });
    expect(await glob({ pattern: '  ' })).toMatchObject({ isError: true, text: 'Glob pattern cannot be empty.' });
  });

  it('rejects with AbortError when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const call = GlobTool.call({ pattern: '**/*' }, ctx({ abortController: controller }), null as never, null as never);
    await expect(call).rejects.toMatchObject({ name: 'AbortError', message: 'Glob was aborted' });
  });

  it('stops at the time limit with a clear message instead of a partial listing', async () => {
    const dir = makeTempDir('toolgate-glob-timeout-');
    try {
      writeTree(dir, { 'a.txt': '' });
      // rg blocks opening an ignore file that is a FIFO: a walk that cannot finish, deterministically.
      execFileSync('mkfifo', [path.join(dir, '.ignore')]);
      const context = makeContext({ cwd: dir, settings: { globTimeoutMs: 300, globRespectGitignore: true } });
      const r = await glob({ pattern: '**/*.txt' }, context);
      expect(r).toMatchObject({
        isError: true,
        text: `Glob timed out after 300ms listing ${dir} (0 matching files found so far). Use a more specific path or pattern.`,
      });
    } finally {
      removeDir(dir);
    }
  });
});
