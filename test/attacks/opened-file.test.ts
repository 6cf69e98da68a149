/**
 * Invariant 2 (docs/security.md): a permission check is bound to the file actually opened. Each case runs the real
 * runtime (settings with deny rules, headless: what would prompt is refused) while another process flips a symlink
 * as fast as it can between something the engine allows and something it must not touch — a file a deny rule names,
 * a folder a deny rule covers, a folder outside the project. Whatever the interleaving, no result may show what is
 * denied, and nothing may be written where the check did not allow it. Each case also asserts that the race was
 * real: some calls went through to the allowed object, so the flipper did not simply win or lose every time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { ToolRuntime, ToolRuntimeOptions } from '../../src/agent/types.js';
import { localToolCallBackend, type ToolCallBackend } from '../../src/execution/backend.js';
import type { PermissionMode } from '../../src/tool/permission-types.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../../src/tool/tool.js';

const SECRET = 'TG-SECRET-7d1c09e4f2';
const SECRET_NAME = 'TG-SECRET-NAME-5b3a';

let root: string;
let project: string;
let home: string;
let flipper: ChildProcess | undefined;
let runtime: ToolRuntime | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-opened-')));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(path.join(project, 'secrets'), { recursive: true });
  mkdirSync(path.join(project, 'docs'), { recursive: true });
  mkdirSync(home);
  writeFileSync(path.join(project, '.env'), `API_KEY=${SECRET}\n`);
  writeFileSync(path.join(project, 'allowed.txt'), 'hello from allowed\n');
  writeFileSync(path.join(project, 'secrets', `${SECRET_NAME}.txt`), `${SECRET}\n`);
  writeFileSync(path.join(project, 'docs', 'readme.txt'), 'hello from docs\n');
});

afterEach(async () => {
  stopFlipper();
  await runtime?.dispose();
  runtime = undefined;
  rmSync(root, { recursive: true, force: true });
});

/**
 * The attacker: a separate process that points `link` at `a`, then at `b`, forever — each flip an atomic rename of a
 * fresh symlink over it, so `link` always exists. It stops when its parent is gone (a killed test leaves nothing).
 */
function startFlipper(link: string, a: string, b: string): void {
  const code = `
    const fs = require('node:fs');
    const [link, a, b, parent] = process.argv.slice(1);
    const tmp = link + '.flip';
    for (let i = 0; ; i++) {
      for (const target of [a, b]) {
        try { fs.unlinkSync(tmp); } catch {}
        fs.symlinkSync(target, tmp);
        fs.renameSync(tmp, link);
      }
      if ((i & 1023) === 0 && process.ppid !== Number(parent)) process.exit(0);
    }`;
  flipper = spawn(process.execPath, ['-e', code, link, a, b, String(process.pid)], { stdio: 'ignore' });
}

function stopFlipper(): void {
  if (flipper && flipper.exitCode === null && flipper.signalCode === null) flipper.kill('SIGKILL');
  flipper = undefined;
}

/** The link points at `a` now and the flipper is flipping (it has made the link at least once). */
async function waitForLink(link: string): Promise<void> {
  for (let i = 0; i < 500 && !existsSync(link); i++) await new Promise((r) => setTimeout(r, 10));
  expect(existsSync(link)).toBe(true);
}

async function start(mode: PermissionMode, rules: { deny?: string[]; allow?: string[] } = {}, extra: Partial<ToolRuntimeOptions> = {}): Promise<ToolRuntime> {
  runtime = await createToolRuntime({
    cwd: project,
    sessionDir: path.join(root, 'session'),
    mode,
    settings: { sources: [], object: { permissions: { deny: ['Read(./.env)', 'Read(./secrets/**)'], ...rules } } },
    ...extra,
  });
  return runtime;
}

/** A backend that runs `between()` after the permission decision, right before `call()`: the worst moment, every time. */
function flipBeforeCall(between: () => void): ToolCallBackend {
  return { name: 'local, after a flip', call: (request) => (between(), localToolCallBackend.call(request)) };
}

let n = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_of${++n}`, name, input }) as ToolUseBlock;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

interface Outcome {
  readonly text: string;
  readonly isError: boolean;
}

async function call(rt: ToolRuntime, name: string, input: Record<string, unknown>): Promise<Outcome> {
  return (await calls(rt, [[name, input]]))[0]!;
}

/** Several calls in one run (read-only ones run concurrently): one result each. */
async function calls(rt: ToolRuntime, batch: readonly (readonly [string, Record<string, unknown>])[]): Promise<Outcome[]> {
  const { results } = await rt.run(
    batch.map(([name, input]) => use(name, input)),
    { progress: false },
  );
  expect(results).toHaveLength(batch.length);
  return results.map((r) => ({ text: text(r), isError: r.is_error === true }));
}

/**
 * Runs `tries` calls under the flipper, `batch` to a run; counts the calls that succeeded and the results that show a
 * marker (the secret's content, and the name of the file in the denied folder when the model could not have named it).
 */
async function race(
  rt: ToolRuntime,
  tries: number,
  callFor: (i: number) => readonly [string, Record<string, unknown>],
  { batch = 10, markers = [SECRET, SECRET_NAME], after }: { batch?: number; markers?: string[]; after?: () => void } = {},
) {
  let ok = 0;
  const leaks: string[] = [];
  // Up to three times the tries while none got through: on a loaded machine the flipper can win a long run of them,
  // and a race where every call was refused proves nothing about the calls that do go through.
  const most = tries * 3;
  for (let i = 0; i < tries || (ok === 0 && i < most); i += batch) {
    const outcomes = await calls(rt, Array.from({ length: Math.min(batch, Math.max(tries, most) - i) }, (_, k) => callFor(i + k)));
    after?.();
    for (const r of outcomes) {
      if (!r.isError) ok++;
      if (markers.some((m) => r.text.includes(m))) leaks.push(r.text.slice(0, 300));
    }
  }
  return { ok, leaks };
}

describe('a symlink flipped between the check and the open', () => {
  it('Read: 1,000 reads of a link flipping between an allowed file and a denied .env never show the .env', async () => {
    const rt = await start('default');
    const link = path.join(project, 'link.txt');
    startFlipper(link, 'allowed.txt', '.env');
    await waitForLink(link);
    const { ok, leaks } = await race(rt, 1000, () => ['Read', { file_path: link }]);
    stopFlipper();
    expect(leaks).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });

  it('Read: a parent folder flipping between an allowed folder and a denied one never shows the denied file', async () => {
    const rt = await start('default');
    // Same name in both folders: the path is always there, only the folder it lies in changes.
    writeFileSync(path.join(project, 'docs', `${SECRET_NAME}.txt`), 'hello from docs\n');
    const dir = path.join(project, 'dir');
    startFlipper(dir, 'docs', 'secrets');
    await waitForLink(dir);
    const { ok, leaks } = await race(rt, 1000, () => ['Read', { file_path: path.join(dir, `${SECRET_NAME}.txt`) }], { markers: [SECRET] });
    stopFlipper();
    expect(leaks).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });

  it('Grep: searching a link to a file, or a folder, that flips to a denied one never shows denied content or names', async () => {
    const rt = await start('default');
    const link = path.join(project, 'link.txt');
    const dir = path.join(project, 'dir');
    writeFileSync(path.join(project, 'docs', 'api.txt'), 'API_KEY=placeholder\n');
    startFlipper(link, 'allowed.txt', '.env');
    await waitForLink(link);
    const files = await race(rt, 150, () => ['Grep', { pattern: 'hello|API', path: link, output_mode: 'content' }]);
    stopFlipper();
    startFlipper(dir, 'docs', 'secrets');
    await waitForLink(dir);
    const dirs = await race(rt, 150, (i) => ['Grep', { pattern: 'hello|API|TG', path: dir, output_mode: i % 2 === 0 ? 'content' : 'files_with_matches' }]);
    stopFlipper();
    expect([...files.leaks, ...dirs.leaks]).toEqual([]);
    expect(files.ok).toBeGreaterThan(0);
    expect(dirs.ok).toBeGreaterThan(0);
  });

  it('Glob: listing a folder that flips to a denied one never shows the names in it', async () => {
    const rt = await start('default');
    const dir = path.join(project, 'dir');
    startFlipper(dir, 'docs', 'secrets');
    await waitForLink(dir);
    const { ok, leaks } = await race(rt, 300, (i) => ['Glob', i % 2 === 0 ? { pattern: '**/*.txt', path: dir } : { pattern: 'dir/*' }]);
    stopFlipper();
    expect(leaks).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });
});

describe('a write whose target flips after the check', () => {
  it('Edit: edits of a link flipping to a denied .env neither show the .env (a stale diff, a snippet) nor change it', async () => {
    const rt = await start('acceptEdits');
    const link = path.join(project, 'link.txt');
    symlinkSync('allowed.txt', link);
    expect((await call(rt, 'Read', { file_path: link })).text).toContain('hello from allowed');
    rmSync(link);
    startFlipper(link, 'allowed.txt', '.env');
    await waitForLink(link);
    // Each edit that goes through adds a dot: old_string stays a prefix of the line, so the next one matches too.
    const { ok, leaks } = await race(rt, 300, () => ['Edit', { file_path: link, old_string: 'hello from allowed', new_string: 'hello from allowed.' }]);
    stopFlipper();
    expect(leaks).toEqual([]);
    expect(readFileSync(path.join(project, '.env'), 'utf8')).toBe(`API_KEY=${SECRET}\n`);
    expect(readFileSync(path.join(project, 'allowed.txt'), 'utf8')).not.toContain(SECRET);
    expect(ok).toBeGreaterThan(0);
  });

  it('Write: writes through a link flipping to a denied .env never replace it', async () => {
    const rt = await start('acceptEdits', { deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./.env)'] });
    const link = path.join(project, 'new-link.txt');
    // A link to a file that does not exist yet (the Write creates it), flipping with one to the denied .env.
    startFlipper(link, 'fresh.txt', '.env');
    await waitForLink(link);
    // One write a run, the file it made removed after it: every write is a new file's.
    const { ok, leaks } = await race(rt, 300, (i) => ['Write', { file_path: link, content: `written ${i}\n` }], {
      batch: 1,
      after: () => rmSync(path.join(project, 'fresh.txt'), { force: true }),
    });
    stopFlipper();
    expect(leaks).toEqual([]);
    expect(readFileSync(path.join(project, '.env'), 'utf8')).toBe(`API_KEY=${SECRET}\n`);
    expect(ok).toBeGreaterThan(0);
  });

  it('Write: a target folder flipped to a folder outside the project (a home) gets nothing, not even a folder', async () => {
    const rt = await start('acceptEdits');
    mkdirSync(path.join(project, 'out'));
    const dir = path.join(project, 'dir');
    startFlipper(dir, 'out', home);
    await waitForLink(dir);
    const { ok } = await race(rt, 300, (i) => ['Write', { file_path: path.join(dir, `new${i}`, 'file.txt'), content: 'x\n' }]);
    stopFlipper();
    expect(readdirSync(home)).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });

  it('Write: a file outside the project that an allow rule names, flipped to another outside folder, is written only where allowed', async () => {
    const allowedOutside = path.join(root, 'shared');
    mkdirSync(allowedOutside);
    const rt = await start('default', { allow: [`Edit(/${allowedOutside}/**)`] });
    const dir = path.join(allowedOutside, 'dir');
    mkdirSync(path.join(allowedOutside, 'real'));
    startFlipper(dir, 'real', home);
    await waitForLink(dir);
    const { ok } = await race(rt, 300, (i) => ['Write', { file_path: path.join(dir, `f${i}.txt`), content: 'x\n' }]);
    stopFlipper();
    expect(readdirSync(home)).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });
});

describe('the flip made at the worst moment: after the decision, right before call()', () => {
  const retarget = (link: string, target: string) => () => {
    rmSync(link, { force: true });
    symlinkSync(target, link);
  };

  it('Read, Edit, Write, Grep and Glob refuse a link that now leads to a denied file or folder, naming the rule', async () => {
    const link = path.join(project, 'link.txt');
    const dir = path.join(project, 'dir');
    let flips: (() => void)[] = [];
    const rt = await start('acceptEdits', {}, { backend: flipBeforeCall(() => flips.forEach((f) => f())) });
    const cases: [string, Record<string, unknown>][] = [
      ['Read', { file_path: link }],
      ['Edit', { file_path: link, old_string: 'hello', new_string: 'bye' }],
      ['Write', { file_path: link, content: 'overwritten\n' }],
      ['Grep', { pattern: 'API|hello', path: link, output_mode: 'content' }],
      ['Grep', { pattern: 'TG|hello', path: dir, output_mode: 'content' }],
      ['Glob', { pattern: '*', path: dir }],
    ];
    for (const [name, input] of cases) {
      symlinkSync('allowed.txt', link);
      symlinkSync('docs', dir);
      // Edit and Write need the file read first (through the link, while it leads to the allowed file).
      if (name !== 'Read') await call(rt, 'Read', { file_path: link });
      flips = [retarget(link, '.env'), retarget(dir, 'secrets')];
      const r = await call(rt, name, input);
      flips = [];
      expect(r.isError, name).toBe(true);
      expect(r.text, name).toMatch(/is denied by Read\(\.\/(\.env|secrets\/\*\*)\)/);
      expect(r.text).not.toContain(SECRET);
      expect(r.text).not.toContain(SECRET_NAME);
      rmSync(link);
      rmSync(dir);
    }
    expect(readFileSync(path.join(project, '.env'), 'utf8')).toBe(`API_KEY=${SECRET}\n`);
    expect(readFileSync(path.join(project, 'allowed.txt'), 'utf8')).toBe('hello from allowed\n');
  });

  it('a link to a file outside the project that a person approved, retargeted after the approval, is refused', async () => {
    const outside = path.join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'notes.txt'), 'approved notes\n');
    writeFileSync(path.join(home, 'id_rsa'), `${SECRET}\n`);
    const link = path.join(project, 'notes.txt');
    symlinkSync(path.join(outside, 'notes.txt'), link);
    let flip = false;
    const asked: string[] = [];
    const rt = await start('default', {}, {
      onPermissionRequest: async (request) => (asked.push(String(request.input.file_path)), { behavior: 'allow' }),
      backend: flipBeforeCall(() => flip && retarget(link, path.join(home, 'id_rsa'))()),
    });
    // Approved and read where the approval said.
    expect((await call(rt, 'Read', { file_path: link })).text).toContain('approved notes');
    flip = true;
    const r = await call(rt, 'Read', { file_path: link });
    expect(asked).toEqual([link, link]);
    expect(r.isError).toBe(true);
    expect(r.text).toContain(`when its permission was checked it led to ${path.join(outside, 'notes.txt')}, when it was opened it led to ${path.join(home, 'id_rsa')}`);
    expect(r.text).not.toContain(SECRET);
  });

  it('a file replaced after the check by a hard link to the denied .env is refused (the descriptor says which file it is)', async () => {
    const file = path.join(project, 'allowed.txt');
    const rt = await start('default', {}, {
      backend: flipBeforeCall(() => {
        linkSync(path.join(project, '.env'), path.join(project, 'tmp-link'));
        renameSync(path.join(project, 'tmp-link'), file);
      }),
    });
    const r = await call(rt, 'Read', { file_path: file });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/a hard link to .*\.env\) is denied by Read\(\.\/\.env\)/);
    expect(r.text).not.toContain(SECRET);
  });

  it('a missing file in a folder flipped to a denied one gets no "did you mean" from the denied folder', async () => {
    const dir = path.join(project, 'dir');
    symlinkSync('docs', dir);
    const rt = await start('default', {}, { backend: flipBeforeCall(retarget(dir, 'secrets')) });
    // One letter off the denied file's name: a suggestion from that folder would spell it out.
    const r = await call(rt, 'Read', { file_path: path.join(dir, `${SECRET_NAME}.md`) });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('File does not exist');
    expect(r.text).not.toContain(`${SECRET_NAME}.txt`);
  });
});
