/**
 * Red team on invariant 2 (docs/security.md §2, issue 32): "a permission check is bound to the file actually opened".
 * Each case is a hole found in the defence as it landed (597f4c6): real files, real attacker processes running
 * concurrently (a flipper, a folder exchanger), the real runtime, the model's tool_use blocks. Each case FAILS on the
 * code as it is, because of its hole; the comment above it names the hole and its severity. Nothing in src/ is fixed
 * here. A case that races stops at its first few leaks (a failing run stays short); once fixed it runs every try.
 *
 * What was tried and held (one line each):
 * - Read of /proc/self/root/<project>/.env, /proc/<pid>/cwd/.env of a background process, /proc/<pid>/root/…/secrets/x.
 * - Read of `<project>//.env`, `<project>/./.env`, `docs/../.env`, `.ENV` (case), `.env/.` — all denied by the rule.
 * - Write and Edit (old_string '') through a committed dangling symlink to a file outside the project: refused.
 * - Bash `ln secrets/x docs/copy` to make a second name of a denied file: the Bash analyser denies it (Read rule).
 * - Glob `docs/../secrets/*`, Glob `SECRETS/*` (case): the pattern's base is judged and denied.
 * - Grep `glob: '../secrets/*'`, `glob: 'secrets/**'`, `glob: '**\/SECRETS/**'`: the deny globs come last and win.
 * - Glob (rg --files, parallel walker) over a folder whose subfolder is exchanged with a link to the denied folder
 *   (renameat2 RENAME_EXCHANGE, 3,000 files before it, 300 listings): no denied name listed.
 * - Grep and Read of a file whose own name flips (a link swapped by rename) — the opened-file tests' cases, not redone.
 * - Read's screenshot-name alternative (U+202F): opened through a link to outside is refused (judged on its own).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, linkSync, openSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { ToolRuntime, ToolRuntimeOptions } from '../../src/agent/types.js';
import { createDurableToolCallBackend } from '../../src/distributed/durable-tool-call-backend.js';
import { executeRemoteToolCall, type DurableToolEngine, type RemoteToolCall } from '../../src/distributed/remote-tool-call.js';
import type { PermissionMode } from '../../src/tool/permission-types.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../../src/tool/tool.js';
import { lspServersBin } from '../../src/tools/lsp/test-helpers/servers.js';
import { ReadTool } from '../../src/tools/read/index.js';
import { WriteTool } from '../../src/tools/write/index.js';

const SECRET = 'TG-SECRET-7d1c09e4f2';
const SECRET_NAME = 'TG-SECRET-NAME-5b3a';
const DENY = ['Read(./.env)', 'Read(./secrets/**)'];

let root: string;
let project: string;
let home: string;
const procs: ChildProcess[] = [];
let runtime: ToolRuntime | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-red-open-')));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(path.join(project, 'secrets'), { recursive: true });
  mkdirSync(path.join(project, 'docs'), { recursive: true });
  mkdirSync(home);
  writeFileSync(path.join(project, '.env'), `API_KEY=${SECRET}\n`);
  writeFileSync(path.join(project, 'allowed.txt'), 'hello from allowed\n');
  writeFileSync(path.join(project, 'secrets', `${SECRET_NAME}.txt`), `API_KEY=${SECRET}\n`);
  writeFileSync(path.join(project, 'docs', 'readme.txt'), 'hello from docs\n');
});

afterEach(async () => {
  stopAttackers();
  await runtime?.dispose();
  runtime = undefined;
  rmSync(root, { recursive: true, force: true });
});

/** Ends the attacker processes this test started (by their handles only). */
function stopAttackers(): void {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
}

/** A background attacker (node -e `code`, `args` in scope): it exits by itself once the test process is gone. */
function attacker(code: string, args: string[]): void {
  const body = `const fs = require('node:fs'); const parent = Number(process.argv[1]); const args = process.argv.slice(2);
    ${code}`;
  procs.push(spawn(process.execPath, ['-e', body, String(process.pid), ...args], { stdio: 'ignore' }));
}

/** `link` points at `a`, then at `b`, forever; each flip an atomic rename of a fresh symlink, so `link` always exists. */
function flipLink(link: string, a: string, b: string): void {
  attacker(
    `const [link, a, b] = args; const tmp = link + '.flip';
     for (let i = 0; ; i++) {
       for (const t of [a, b]) { try { fs.unlinkSync(tmp); } catch {} fs.symlinkSync(t, tmp); fs.renameSync(tmp, link); }
       if ((i & 1023) === 0 && process.ppid !== parent) process.exit(0);
     }`,
    [link, a, b],
  );
}

/** `file` is a regular file holding `benign`, then a symlink to `target`, forever (each swap an atomic rename). */
function flipFileAndLink(file: string, benign: string, target: string): void {
  attacker(
    `const [file, benign, target] = args; const r = file + '.r', l = file + '.l';
     for (let i = 0; ; i++) {
       try { fs.writeFileSync(r, benign); fs.renameSync(r, file); } catch {}
       try { fs.unlinkSync(l); } catch {}
       try { fs.symlinkSync(target, l); fs.renameSync(l, file); } catch {}
       if ((i & 255) === 0 && process.ppid !== parent) process.exit(0);
     }`,
    [file, benign, target],
  );
}

/**
 * `a` and `b` exchange places forever (renameat2 RENAME_EXCHANGE, through python's ctypes — node has no binding): a
 * real folder and a symlink swap atomically, so the name always exists and is a folder or a link by turns.
 */
function exchangeForever(a: string, b: string): void {
  const code = [
    'import ctypes, os, sys',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'a, b, parent = sys.argv[1].encode(), sys.argv[2].encode(), int(sys.argv[3])',
    'i = 0',
    'while True:',
    '    libc.renameat2(-100, a, -100, b, 2)',
    '    i += 1',
    '    if i % 1024 == 0 and os.getppid() != parent: sys.exit(0)',
  ].join('\n');
  procs.push(spawn('python3', ['-c', code, a, b, String(process.pid)], { stdio: 'ignore' }));
}

async function waitFor(p: string): Promise<void> {
  for (let i = 0; i < 500 && !existsSync(p); i++) await new Promise((r) => setTimeout(r, 10));
  expect(existsSync(p)).toBe(true);
}

/** The real runtime, headless (what would ask is refused), no settings file read: `object` is the settings. */
async function start(mode: PermissionMode, object: Record<string, unknown> = { permissions: { deny: DENY } }, extra: Partial<ToolRuntimeOptions> = {}): Promise<ToolRuntime> {
  runtime = await createToolRuntime({ cwd: project, sessionDir: path.join(root, 'session'), mode, settings: { sources: [], object }, ...extra });
  return runtime;
}

let n = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_red${++n}`, name, input }) as ToolUseBlock;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

interface Outcome {
  readonly text: string;
  readonly isError: boolean;
}

/** Several tool_use blocks in one run (read-only ones run concurrently): one result each. */
async function calls(rt: ToolRuntime, batch: readonly (readonly [string, Record<string, unknown>])[]): Promise<Outcome[]> {
  const { results } = await rt.run(batch.map(([name, input]) => use(name, input)), { progress: false });
  expect(results).toHaveLength(batch.length);
  return results.map((r) => ({ text: text(r), isError: r.is_error === true }));
}

async function call(rt: ToolRuntime, name: string, input: Record<string, unknown>): Promise<Outcome> {
  return (await calls(rt, [[name, input]]))[0]!;
}

/**
 * Up to `tries` calls under the attacker, `batch` to a run; a result that shows a marker is a leak. Stops after
 * `enough` leaks, or when `broken()` says the damage is done: a failing run stays short, a fixed one runs every try —
 * or, past `minTries`, as many as fit in `budgetMs`: at load 29 on two cores 1,000 tries did not fit the test's 600 s
 * and the run failed for it. The budget trims the work, never a verdict: every call made is still checked.
 */
async function race(
  rt: ToolRuntime,
  tries: number,
  callFor: (i: number) => readonly [string, Record<string, unknown>],
  { batch = 10, markers = [SECRET, SECRET_NAME], enough = 3, broken, minTries = 100, budgetMs = 240_000 }: { batch?: number; markers?: string[]; enough?: number; broken?: () => boolean; minTries?: number; budgetMs?: number } = {},
) {
  let ok = 0;
  let tried = 0;
  const leaks: string[] = [];
  const end = Date.now() + budgetMs;
  for (let i = 0; i < tries && leaks.length < enough && broken?.() !== true && (i < minTries || Date.now() < end); i += batch) {
    const outcomes = await calls(rt, Array.from({ length: Math.min(batch, tries - i) }, (_, k) => callFor(i + k)));
    for (const r of outcomes) {
      tried++;
      if (!r.isError) ok++;
      if (markers.some((m) => r.text.includes(m))) leaks.push(r.text.slice(0, 400));
    }
  }
  return { ok, tried, leaks };
}

/** Many files sorted before the one attacked: rg reads the folder, then searches them in order — the window is wide. */
function padFolder(dir: string, count: number): void {
  for (let i = 0; i < count; i++) writeFileSync(path.join(dir, `a${String(i).padStart(4, '0')}.txt`), 'nothing here\n');
}

describe('Grep: rg opens by name below the bound root (the residue of §2 is worse than it says)', () => {
  // HOLE (critical: denied CONTENT read). §2's residue speaks of a *folder* below the root swapped for a link and of
  // rg descending it; it does not say that every *file* below the root is opened by name as well, following a
  // symlink put there after rg read the folder, nor that the content of a denied file comes out. A background
  // process that only writes inside the project (a regular file and a symlink to ../.env, renamed in turn over
  // docs/zz-notes.txt) makes Grep's content mode print the lines of the denied .env; the post-filter resolves the
  // path again later, when it is a regular file once more, and lets the line through.
  it('a file below the searched folder swapped for a link to .env mid-walk never shows the .env', { timeout: 600_000 }, async () => {
    const rt = await start('default');
    padFolder(path.join(project, 'docs'), 400);
    const file = path.join(project, 'docs', 'zz-notes.txt');
    flipFileAndLink(file, 'API_KEY=placeholder\n', '../.env');
    await waitFor(file);
    const { ok, leaks } = await race(rt, 1000, () => ['Grep', { pattern: 'API_KEY', path: path.join(project, 'docs'), output_mode: 'content' }], { markers: [SECRET] });
    stopAttackers();
    expect(leaks).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });

  // HOLE (critical: denied names AND content read; also rg's stderr). A subfolder below the searched root exchanged
  // (atomically, RENAME_EXCHANGE) with a link to the denied folder: rg read it as a folder, opens it by name, walks
  // the denied folder, prints its file names and lines under docs/zz-sub/, which no deny glob names. When the
  // exchange races rg's own open, rg's error message — passed to the model verbatim — names the denied file too
  // ("rg: ./zz-sub/TG-SECRET-NAME-….txt: No such file or directory").
  it('a subfolder exchanged with a link to the denied folder mid-walk shows neither its names nor its lines', { timeout: 600_000 }, async () => {
    const rt = await start('default');
    padFolder(path.join(project, 'docs'), 400);
    const sub = path.join(project, 'docs', 'zz-sub');
    mkdirSync(sub);
    writeFileSync(path.join(sub, 'benign.txt'), 'API_KEY=placeholder\n');
    symlinkSync('../secrets', path.join(project, 'docs', 'zz-spare'));
    exchangeForever(sub, path.join(project, 'docs', 'zz-spare'));
    const { ok, leaks } = await race(rt, 1000, (i) => ['Grep', { pattern: 'API_KEY', path: path.join(project, 'docs'), output_mode: i % 2 === 0 ? 'content' : 'files_with_matches' }]);
    stopAttackers();
    expect(leaks).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });
});

const servers = lspServersBin();
// Written reason: these cases need the real typescript-language-server (the LSP tests' own helper installs it into a
// cache on demand); when it cannot be had the reason is printed and the LSP cases are skipped.
if ('skip' in servers) console.warn(`red-open LSP cases skipped: ${servers.skip}`);
const lspSettings = (deny: string[] = DENY) => ({
  permissions: { deny },
  env: { PATH: `${'bin' in servers ? servers.bin : ''}${path.delimiter}${process.env.PATH ?? ''}` },
});
const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'preserve', moduleResolution: 'bundler' }, include: ['*.ts'] });

describe.skipIf('skip' in servers)('LSP: the language server reads what it likes, and the tool reads filePath by name', () => {
  // HOLE (critical: denied content read, no race needed). LSP is judged as a read of `filePath` only; the server then
  // reads every file the project imports on its own, denied or not, and `hover` answers are not filtered at all (only
  // locations are). A committed main.ts (or one the model writes) importing a constant from secrets/config.ts gets
  // the secret back as the constant's literal type: `(alias) const API_KEY: "TG-SECRET-…"`.
  it('hover over a name imported from a denied file does not show the denied file\'s content', { timeout: 180_000 }, async () => {
    writeFileSync(path.join(project, 'tsconfig.json'), TSCONFIG);
    writeFileSync(path.join(project, 'secrets', 'config.ts'), `export const API_KEY = '${SECRET}';\n`);
    writeFileSync(path.join(project, 'main.ts'), `import { API_KEY } from './secrets/config';\nexport const key = API_KEY;\n`);
    const rt = await start('default', lspSettings());
    const r = await call(rt, 'LSP', { operation: 'hover', filePath: 'main.ts', line: 2, character: 20 });
    expect(r.text).not.toContain(SECRET);
  });

  // HOLE (high: a file outside the working directories read without asking). The same, for a file outside the
  // project that no rule allows: a Read of it would ask (refused headless); an import in an allowed file and a hover
  // show its content.
  it('hover over a name imported from a file outside the project does not show that file\'s content', { timeout: 180_000 }, async () => {
    writeFileSync(path.join(project, 'tsconfig.json'), TSCONFIG);
    writeFileSync(path.join(home, 'creds.ts'), `export const TOKEN = '${SECRET}';\n`);
    writeFileSync(path.join(project, 'main.ts'), `import { TOKEN } from '${path.join(home, 'creds')}';\nexport const t = TOKEN;\n`);
    const rt = await start('default', lspSettings());
    expect((await call(rt, 'Read', { file_path: path.join(home, 'creds.ts') })).isError).toBe(true);
    const r = await call(rt, 'LSP', { operation: 'hover', filePath: 'main.ts', line: 2, character: 18 });
    expect(r.text).not.toContain(SECRET);
  });

  // HOLE (critical: denied content read, TOCTOU). The LSP tool binds nothing: manager.ts `#sync` stats and reads
  // `filePath` by name (readFileSync) after the decision — and after waiting for the server — and sends that text to
  // the server as the document. A link flipping between allowed.ts and the denied secrets/config.ts: the engine
  // judges allowed.ts, the server gets the secret, and hover answers with it (hover is not filtered).
  it('a filePath link flipping to a denied file never shows the denied file through hover', { timeout: 600_000 }, async () => {
    writeFileSync(path.join(project, 'tsconfig.json'), TSCONFIG);
    writeFileSync(path.join(project, 'secrets', 'config.ts'), `export const API_KEY = '${SECRET}';\n`);
    writeFileSync(path.join(project, 'allowed.ts'), `export const API_KEY = 'hello-allowed-value';\n`);
    const rt = await start('default', lspSettings());
    const link = path.join(project, 'link.ts');
    flipLink(link, 'allowed.ts', 'secrets/config.ts');
    await waitFor(link);
    const { ok, leaks } = await race(rt, 1000, () => ['LSP', { operation: 'hover', filePath: link, line: 1, character: 14 }], { markers: [SECRET] });
    stopAttackers();
    expect(leaks).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });
});

describe.skipIf('skip' in servers)('LSP: which server starts is judged, then looked up again', () => {
  // HOLE (critical: code the repository supplies runs without the person's yes). checkServer asks before starting a
  // language server from inside the project (node_modules/.bin); call() then looks the server up again by name
  // (locateServer) and spawns what it finds. A process that puts project/node_modules/.bin/typescript-language-server
  // in place and takes it away, in turn, gets its program run: judged absent (the one on PATH, no question), found
  // present a moment later, started. Each try is a new session (a server once started is reused).
  it('a server executable that appears in the project after the check is never started without asking', { timeout: 600_000 }, async () => {
    writeFileSync(path.join(project, 'tsconfig.json'), TSCONFIG);
    writeFileSync(path.join(project, 'allowed.ts'), `export const API_KEY = 'hello-allowed-value';\n`);
    const marker = path.join(root, 'repository-code-ran');
    const bin = path.join(project, 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    const server = path.join(bin, 'typescript-language-server');
    attacker(
      `const [server, marker] = args; const tmp = server + '.tmp'; const nap = new Int32Array(new SharedArrayBuffer(4));
       for (let i = 0; ; i++) {
         try { fs.writeFileSync(tmp, '#!/bin/sh\\necho ran > ' + marker + '\\nexit 1\\n', { mode: 0o755 }); fs.renameSync(tmp, server); } catch {}
         Atomics.wait(nap, 0, 0, 3); // present a few ms, then absent a few: both the check and call() see either
         try { fs.unlinkSync(server); } catch {}
         Atomics.wait(nap, 0, 0, 3);
         if ((i & 255) === 0 && process.ppid !== parent) process.exit(0);
       }`,
      [server, marker],
    );
    let asked = 0;
    // 40 sessions (a real server starts in each: several seconds apiece on a loaded machine, so 300 outran the timeout
    // once fixed); the server is there a few ms and gone a few, so the check sees it in about half of them.
    for (let i = 0; i < 40 && !existsSync(marker); i++) {
      const rt = await start('default', lspSettings());
      const r = await call(rt, 'LSP', { operation: 'hover', filePath: 'allowed.ts', line: 1, character: 14 });
      if (r.text.includes('would start from inside the project')) asked++;
      await rt.dispose();
      runtime = undefined;
    }
    stopAttackers();
    expect(existsSync(marker)).toBe(false);
    // The race was real: some checks saw the repository's server and asked (refused headless).
    expect(asked).toBeGreaterThan(0);
  });
});

describe('a second name of a denied file', () => {
  // HOLE (critical: denied content read, given a second name). §2 says the opened object is judged "for a file with
  // several names by its fstat identity against the files deny rules name" — but only rules naming ONE file literally
  // get that (paths.ts literalDenyFiles skips any pattern with a wildcard). The common rule forms `Read(**/.env)` and
  // `Read(./secrets/**)` have no identity check at all: a hard link made after the session started (by any process:
  // a `cp -al` backup, a package store, a build step; Bash `ln` of the denied path itself is refused by the
  // analyser) is read, and searched, like any allowed file.
  it('a hard link to a file a wildcard deny rule covers is neither read nor searched', async () => {
    const rt = await start('default', { permissions: { deny: ['Read(**/.env)', 'Read(./secrets/**)'] } });
    expect((await call(rt, 'Read', { file_path: path.join(project, '.env') })).isError).toBe(true);
    // Made after the session started, by another process.
    linkSync(path.join(project, '.env'), path.join(project, 'docs', 'env-backup.txt'));
    linkSync(path.join(project, 'secrets', `${SECRET_NAME}.txt`), path.join(project, 'docs', 'notes.txt'));
    const results = await calls(rt, [
      ['Read', { file_path: path.join(project, 'docs', 'env-backup.txt') }],
      ['Read', { file_path: path.join(project, 'docs', 'notes.txt') }],
      ['Grep', { pattern: 'API_KEY', path: path.join(project, 'docs'), output_mode: 'content' }],
    ]);
    for (const r of results) expect(r.text).not.toContain(SECRET);
  });
});

describe('the remote worker (distributed backend)', () => {
  // HOLE (critical: a file outside written). §2's residue says a remote worker binds "to the deny rules only"; what
  // that means is worse than it reads: the worker gets no record of what was judged, so a folder under an allow rule
  // for an outside folder (`Edit(//…/shared/**)`), flipped to another outside folder (a home), gets the file written
  // into the home — the very case opened-file.test.ts shows refused on the local backend. (Inside the project the
  // write's confinement to the working directories still stops it; outside, nothing does.)
  it('Write on a worker under an allow rule for an outside folder, flipped to a home, writes nothing into the home', { timeout: 600_000 }, async () => {
    const shared = path.join(root, 'shared');
    mkdirSync(path.join(shared, 'real'), { recursive: true });
    // An engine in memory, as remote-tool-call.test.ts has one: each call crosses the wire as JSON to a worker.
    const engine: DurableToolEngine = {
      name: 'memory',
      submit: (c, { signal }) => executeRemoteToolCall(JSON.parse(JSON.stringify(c)) as RemoteToolCall, { tools: [WriteTool, ReadTool], workspaces: [project], signal }),
    };
    const rt = await start('default', { permissions: { deny: DENY, allow: [`Edit(/${shared}/**)`] } }, { backend: createDurableToolCallBackend({ engine }) });
    const dir = path.join(shared, 'dir');
    flipLink(dir, 'real', home);
    await waitFor(dir);
    const { ok } = await race(rt, 1000, (i) => ['Write', { file_path: path.join(dir, `f${i}.txt`), content: 'x\n' }], { broken: () => readdirSync(home).length > 0 });
    stopAttackers();
    expect(readdirSync(home)).toEqual([]);
    expect(ok).toBeGreaterThan(0);
  });
});

describe('Edit and Write: what is judged before the open', () => {
  // HOLE (medium: a denied file's size). loadTextFileForWrite refuses a file over 128 MB from the stat made BY NAME
  // (Edit's and Write's statOrNull) before it opens and binds anything, naming the size. A link flipped to a large
  // denied file between the check and that stat: "File is too large to edit (191MB)". §2's residue admits a refusal
  // by type from that stat (a directory, a FIFO), not a size. (High on the brief's scale — denied metadata — but
  // narrow: only files over 128 MB, to the megabyte.)
  it('an Edit or Write through a link flipping to a large denied file never tells its size', { timeout: 600_000 }, async () => {
    const fd = openSync(path.join(project, 'secrets', 'dump.sql'), 'w');
    ftruncateSync(fd, 200_012_345); // sparse: no disk used
    closeSync(fd);
    const rt = await start('acceptEdits');
    const link = path.join(project, 'link.txt');
    symlinkSync('allowed.txt', link);
    await call(rt, 'Read', { file_path: link });
    rmSync(link);
    flipLink(link, 'allowed.txt', 'secrets/dump.sql');
    await waitFor(link);
    const { leaks } = await race(
      rt,
      1000,
      (i) => (i % 2 === 0 ? ['Edit', { file_path: link, old_string: 'hello from allowed', new_string: 'hello from allowed.' }] : ['Write', { file_path: link, content: 'x\n' }]),
      { batch: 1, markers: ['191MB'] },
    );
    stopAttackers();
    expect(leaks).toEqual([]);
  });
});

describe('Edit: the read and the write land on two objects', () => {
  // HOLE (high: a wrong file edited, and one never read). Edit binds its read to what was judged, and its write to
  // "what was judged or anything the engine allows on its own" — separately. Through a link flipping between two
  // allowed files, the read is of allowed.txt and the write (atomic-write resolves the link again by name) replaces
  // other.txt: other.txt, never read, loses its content for allowed.txt's, edited. §2 calls a link retargeted to
  // another allowed file "still fine"; for a call that reads one object and writes back, it is not.
  it('an Edit through a link flipping between two allowed files never writes one file\'s content into the other', { timeout: 600_000 }, async () => {
    writeFileSync(path.join(project, 'other.txt'), 'precious other\n');
    const rt = await start('acceptEdits');
    const link = path.join(project, 'link.txt');
    symlinkSync('allowed.txt', link);
    expect((await call(rt, 'Read', { file_path: link })).text).toContain('hello from allowed');
    rmSync(link);
    flipLink(link, 'allowed.txt', 'other.txt');
    await waitFor(link);
    const other = () => readFileSync(path.join(project, 'other.txt'), 'utf8');
    const { ok } = await race(rt, 1000, () => ['Edit', { file_path: link, old_string: 'hello from allowed', new_string: 'hello from allowed.' }], {
      batch: 1,
      markers: [],
      broken: () => other() !== 'precious other\n',
    });
    stopAttackers();
    expect(other()).toBe('precious other\n');
    expect(ok).toBeGreaterThan(0);
  });
});
