/**
 * Checks bound to the file opened (src/tools/shared/opened-file.ts) leave everyday paths alone: links inside the
 * project to allowed files are followed by every file tool, a new file goes where its folder really is, results keep
 * the path the model gave, and a call no engine decision judged (an embedder's own gate) still opens what its path
 * names — with deny rules applied to what was opened. The attacks are in test/attacks/opened-file.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import type { ToolRuntime } from '../src/agent/types.js';
import type { PermissionMode } from '../src/tool/permission-types.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../src/tool/tool.js';
import { ReadTool } from '../src/tools/read/index.js';
import { makeContext, runTool } from '../src/tools/shared/test-helpers/run-tool.js';

let root: string;
let project: string;
let runtime: ToolRuntime | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-checked-open-')));
  project = path.join(root, 'project');
  mkdirSync(path.join(project, 'src', 'real'), { recursive: true });
  writeFileSync(path.join(project, 'src', 'real', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(project, '.env'), 'KEY=1\n');
  symlinkSync('real', path.join(project, 'src', 'linked'));
  symlinkSync('src/real/a.ts', path.join(project, 'a-link.ts'));
});

afterEach(async () => {
  await runtime?.dispose();
  runtime = undefined;
  rmSync(root, { recursive: true, force: true });
});

async function start(mode: PermissionMode = 'acceptEdits'): Promise<ToolRuntime> {
  runtime = await createToolRuntime({
    cwd: project,
    sessionDir: path.join(root, 'session'),
    mode,
    settings: { sources: [], object: { permissions: { deny: ['Read(./.env)'] } } },
  });
  return runtime;
}

let n = 0;
async function call(rt: ToolRuntime, name: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const block = { type: 'tool_use', id: `toolu_co${++n}`, name, input } as ToolUseBlock;
  const { results } = await rt.run([block], { progress: false });
  const r = results[0] as ToolResultBlockParam;
  const text = typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
  return { text, isError: r.is_error === true };
}

describe('links inside the project', () => {
  it('Read, Edit and Write follow a link to an allowed file; the link stays a link', async () => {
    const rt = await start();
    const link = path.join(project, 'a-link.ts');
    expect(await call(rt, 'Read', { file_path: link })).toMatchObject({ isError: false, text: expect.stringContaining('export const a = 1;') });
    expect(await call(rt, 'Edit', { file_path: link, old_string: 'a = 1', new_string: 'a = 2' })).toMatchObject({ isError: false });
    expect(await call(rt, 'Read', { file_path: link })).toMatchObject({ isError: false });
    expect(await call(rt, 'Write', { file_path: link, content: 'export const a = 3;\n' })).toMatchObject({ isError: false });
    expect(readFileSync(path.join(project, 'src', 'real', 'a.ts'), 'utf8')).toBe('export const a = 3;\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('a new file through a linked folder lands in the real folder; new folders are made inside the project', async () => {
    const rt = await start();
    expect(await call(rt, 'Write', { file_path: path.join(project, 'src', 'linked', 'b.ts'), content: 'b\n' })).toMatchObject({ isError: false });
    expect(readFileSync(path.join(project, 'src', 'real', 'b.ts'), 'utf8')).toBe('b\n');
    expect(await call(rt, 'Write', { file_path: path.join(project, 'src', 'linked', 'x', 'y', 'c.ts'), content: 'c\n' })).toMatchObject({ isError: false });
    expect(readFileSync(path.join(project, 'src', 'real', 'x', 'y', 'c.ts'), 'utf8')).toBe('c\n');
    expect(await call(rt, 'Edit', { file_path: path.join(project, 'new', 'd.ts'), old_string: '', new_string: 'd\n' })).toMatchObject({ isError: false });
    expect(readFileSync(path.join(project, 'new', 'd.ts'), 'utf8')).toBe('d\n');
  });

  it('Grep and Glob search through a linked folder or file and show the paths as given', async () => {
    const rt = await start();
    const linked = path.join(project, 'src', 'linked');
    // Relative to the working directory, as Claude Code's Glob prints them (test/parity/cli).
    expect((await call(rt, 'Glob', { pattern: '*.ts', path: linked })).text).toBe('src/linked/a.ts');
    expect((await call(rt, 'Glob', { pattern: 'src/linked/*.ts' })).text).toBe('src/linked/a.ts');
    expect((await call(rt, 'Grep', { pattern: 'const', path: linked })).text).toBe('Found 1 file\nsrc/linked/a.ts');
    expect((await call(rt, 'Grep', { pattern: 'const', path: linked, output_mode: 'content' })).text).toBe('src/linked/a.ts:1:export const a = 1;');
    expect((await call(rt, 'Grep', { pattern: 'const', path: linked, output_mode: 'count' })).text).toContain('src/linked/a.ts:1');
    const file = path.join(project, 'a-link.ts');
    expect((await call(rt, 'Grep', { pattern: 'const', path: file })).text).toBe('Found 1 file\na-link.ts');
    expect((await call(rt, 'Grep', { pattern: 'const', path: file, output_mode: 'count' })).text).toContain('a-link.ts:1');
    expect((await call(rt, 'Grep', { pattern: 'const', path: file, output_mode: 'content' })).text).toBe('1:export const a = 1;');
  });

  it('a file whose name ends in " (deleted)" is read (the kernel marks removed files so; the name still names it)', async () => {
    const rt = await start();
    const odd = path.join(project, 'notes (deleted)');
    writeFileSync(odd, 'still here\n');
    expect(await call(rt, 'Read', { file_path: odd })).toMatchObject({ isError: false, text: expect.stringContaining('still here') });
  });
});

describe('a gate that is not the engine', () => {
  it('a link to a file outside the working directories is read: no engine decision to bind to, only deny rules', async () => {
    const outside = path.join(root, 'outside.txt');
    writeFileSync(outside, 'outside\n');
    symlinkSync(outside, path.join(project, 'out-link'));
    const context = makeContext(project);
    const r = await runTool(ReadTool, { file_path: path.join(project, 'out-link') }, context);
    expect(r.isError).toBe(false);
    expect(r.text).toContain('outside');
  });
});
