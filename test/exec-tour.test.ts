/**
 * The examples/ tour, run the way its README says (`toolgate exec examples/tour.json --cwd examples/workspace`), on a
 * copy of the workspace so the checkout is never touched: every call ends the way the README's table promises.
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempSession, type TempSession } from './helpers/execution.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let session: TempSession;
beforeEach(() => {
  session = tempSession('toolgate-tour-');
  cpSync(path.join(root, 'examples/workspace'), path.join(session.dir, 'workspace'), { recursive: true });
});
afterEach(() => session.cleanup());

it('runs the examples tour with the outcomes its README describes', async () => {
  const workspace = path.join(session.dir, 'workspace');
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), 'exec', path.join(root, 'examples/tour.json'), '--cwd', workspace, '--json', '--session-dir', path.join(session.dir, 's')],
      { cwd: root, env: { ...process.env, HOME: session.dir, USERPROFILE: session.dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
  const results = (JSON.parse(stdout) as { content: { tool_use_id: string; content: unknown; is_error?: boolean }[] }).content;
  const byId = new Map(results.map((r) => [r.tool_use_id, { text: typeof r.content === 'string' ? r.content : JSON.stringify(r.content), error: r.is_error === true }]));
  expect([...byId.keys()]).toEqual([
    'toolu_01_read', 'toolu_02_grep', 'toolu_03_glob', 'toolu_04_secret', 'toolu_05_write',
    'toolu_06_edit', 'toolu_07_invalid', 'toolu_08_publish', 'toolu_09_ls',
  ]);
  expect(byId.get('toolu_01_read')).toMatchObject({ error: false, text: expect.stringContaining('Hello, world!') });
  expect(byId.get('toolu_02_grep')).toMatchObject({ error: false, text: expect.stringContaining('TODO') });
  expect(byId.get('toolu_03_glob')).toMatchObject({ error: false, text: expect.stringContaining('notes.md') });
  expect(byId.get('toolu_04_secret')).toMatchObject({ error: true, text: expect.stringContaining('Read(./secrets/**)') });
  expect(byId.get('toolu_05_write')!.error).toBe(false);
  expect(byId.get('toolu_06_edit')!.error).toBe(false);
  expect(byId.get('toolu_07_invalid')).toMatchObject({ error: true, text: expect.stringContaining('The parameter `limit` type is expected as `number` but provided as `string`') });
  expect(byId.get('toolu_08_publish')).toMatchObject({ error: true, text: expect.stringContaining('Bash(npm publish') });
  expect(byId.get('toolu_09_ls')).toMatchObject({ error: true, text: expect.stringContaining('NOT a user interrupt') });
  expect(readFileSync(path.join(workspace, 'greeting.txt'), 'utf8')).toBe('Hello, world!\n');
});
