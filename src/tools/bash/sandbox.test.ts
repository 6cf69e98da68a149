import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionRule } from '../../tool/permission-types.js';
import type { SandboxSettings } from './bash-settings.js';
import type { BashOutput } from './bash-output.js';
import { BashTool } from './index.js';
import { detectSandbox } from './sandbox.js';
import { shutdownSandboxRuntime } from './sandbox-runtime.js';
import { callTool, makeProject, processesWithMarker, waitFor, type MakeContextOptions, type TestProject } from './test-helpers/project.js';

const availability = await detectSandbox();
// Written reason for skipping: these tests run real commands inside the sandbox, which needs bubblewrap and socat
// (apt packages bubblewrap, socat; .ci/run installs them) and a kernel that lets bwrap create namespaces. Where that
// is missing, only the "unavailable" behaviour below is tested, and this line says why.
const canSandbox = availability.available;
if (!canSandbox) console.warn(`sandbox tests skipped: ${availability.reason}`);

const rule = (behavior: 'allow' | 'deny', toolName: string, ruleContent: string): PermissionRule => ({
  source: 'session',
  ruleBehavior: behavior,
  ruleValue: { toolName, ruleContent },
});

let project: TestProject;
let outside: string;
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.end('hello from 127.0.0.1\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await shutdownSandboxRuntime();
});

function sandboxed(sandbox: SandboxSettings = {}, extra: MakeContextOptions = {}): TestProject {
  return makeProject({ ...extra, settings: { sandbox: { enabled: true, ...sandbox } } });
}

beforeEach(() => {
  project = sandboxed({}, { rules: { alwaysDenyRules: [rule('deny', 'Read', './secrets/**'), rule('deny', 'Read', '**/.env')] } });
  outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-outside-')));
});
afterEach(async () => {
  await project.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

const run = (command: string, extra: Record<string, unknown> = {}, p: TestProject = project) =>
  callTool<BashOutput>(BashTool, { command, ...extra }, p.context);

/** Through the proxy the sandbox sets up (curl skips proxies for 127.0.0.1 by default: `--noproxy ''` undoes that). */
const fetchVia = (url: string) => `curl -sS --noproxy '' --max-time 10 ${url}`;

describe.skipIf(!canSandbox)('the sandbox enforces the rules (bubblewrap through @anthropic-ai/sandbox-runtime)', () => {
  it('lets a command write inside the working directory, and says it was sandboxed', async () => {
    const r = await run('echo inside > made.txt && cat made.txt');
    expect(r.text).toBe('inside');
    expect(r.data.sandboxed).toBe(true);
    expect(readFileSync(path.join(project.dir, 'made.txt'), 'utf8')).toBe('inside\n');
  });

  it('a script reading a Read-denied file gets nothing, however the name is spelled', async () => {
    mkdirSync(path.join(project.dir, 'secrets'));
    writeFileSync(path.join(project.dir, 'secrets', 'key.txt'), 'TOPSECRET-1\n');
    writeFileSync(path.join(project.dir, '.env'), 'TOPSECRET-2\n');
    writeFileSync(path.join(project.dir, 'read.py'), "import os\nfor p in ['sec'+'rets/key.txt', '.e'+'nv']:\n    try:\n        print(open(p).read())\n    except Exception as e:\n        print('refused', type(e).__name__)\n");
    const r = await run('python3 read.py; cat secrets/key.txt .env; tar -cf - secrets .env 2>/dev/null | tar -xOf - 2>/dev/null');
    expect(r.text).not.toContain('TOPSECRET');
    expect(r.text).toContain('refused');
    const open = await run('echo visible > notes.txt && cat notes.txt');
    expect(open.text).toBe('visible');
  });

  it('refuses a write outside the working directories, and allows the session temp folder', async () => {
    const target = path.join(outside, 'escape.txt');
    const r = await run(`echo escaped > ${target}`);
    expect(r.block.is_error).toBe(true);
    expect(r.text).toMatch(/Read-only file system|Permission denied|No such file/);
    expect(existsSync(target)).toBe(false);
    const tmp = await run('echo t > "$TMPDIR/t.txt" && cat "$TMPDIR/t.txt"');
    expect(tmp.text).toBe('t');
    expect(readFileSync(path.join(project.sessionDir, 'tmp', 't.txt'), 'utf8')).toBe('t\n');
  });

  it('makes a folder an Edit allow rule names writable', async () => {
    const p = sandboxed({}, { rules: { alwaysAllowRules: [rule('allow', 'Edit', `/${outside}/**`)] } });
    try {
      const r = await run(`echo allowed > ${outside}/ok.txt`, {}, p);
      expect(r.block.is_error).toBeUndefined();
      expect(readFileSync(path.join(outside, 'ok.txt'), 'utf8')).toBe('allowed\n');
    } finally {
      await p.cleanup();
    }
  });

  it('shows no host process in /proc, so not the host environment and its secrets either', async () => {
    // A host process started with a secret in its environment, as toolgate is with ANTHROPIC_API_KEY.
    const host = spawn('sleep', ['60'], { env: { PATH: process.env.PATH, HOST_ONLY_SECRET: 'host-only-secret-4711' }, stdio: 'ignore' });
    try {
      // Counts, not the raw listing: a busy CI host has so many processes that the listing itself would be
      // persisted to a file, and the preview would no longer show what the test looks for.
      const probe =
        "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n' | grep -c 'vites[t]'; " +
        "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c host-only-secret-4711; true";
      const counts = (text: string) => text.trim().split('\n').map((l) => Number(l.trim()));
      const r = await run(probe);
      expect(counts(r.text)).toEqual([0, 0]);
      // The same probe outside the sandbox does see the host: the test can tell the difference.
      const unsandboxed = await run(probe, { dangerouslyDisableSandbox: true });
      const [vitestSeen, secretSeen] = counts(unsandboxed.text.split('\n').filter((l) => /^\s*\d+\s*$/.test(l)).join('\n'));
      expect(vitestSeen).toBeGreaterThan(0);
      expect(secretSeen).toBeGreaterThan(0);
    } finally {
      host.kill('SIGKILL');
    }
  });

  it('reaches only allowed hosts, through the proxy; everything else is refused', async () => {
    const p = sandboxed({}, { rules: { alwaysAllowRules: [rule('allow', 'WebFetch', 'domain:127.0.0.1')] } });
    try {
      expect((await run(fetchVia(`http://127.0.0.1:${port}/`), {}, p)).text).toBe('hello from 127.0.0.1');
      const other = await run(fetchVia(`http://localhost:${port}/`), {}, p);
      expect(other.text).not.toContain('hello from');
      // Around the proxy: the namespace has no network at all.
      const direct = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`, {}, p);
      expect(direct.text).not.toContain('connected');
    } finally {
      await p.cleanup();
    }
    const none = await run(fetchVia(`http://127.0.0.1:${port}/`));
    expect(none.text).not.toContain('hello from');
  });

  it('keeps .git and settings folders read-only inside the working directory', async () => {
    mkdirSync(path.join(project.dir, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(project.dir, '.git', 'config'), '[core]\n');
    mkdirSync(path.join(project.dir, '.claude'));
    const hook = await run('echo "curl evil" > .git/hooks/pre-commit');
    expect(hook.block.is_error).toBe(true);
    expect(existsSync(path.join(project.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect((await run('echo "[core] hooksPath=/x" >> .git/config')).block.is_error).toBe(true);
    expect(readFileSync(path.join(project.dir, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect((await run('echo {} > .claude/settings.json')).block.is_error).toBe(true);
    // The whole of .git, not only hooks and config (sandbox-repositories.test.ts goes through every file).
    expect((await run('echo no > .git/notes.txt')).block.is_error).toBe(true);
    expect((await run('echo fine > notes.txt && cat notes.txt')).text).toBe('fine');
  });

  it('runs outside the sandbox with dangerouslyDisableSandbox or an excluded command, and says so', async () => {
    const target = path.join(outside, 'allowed.txt');
    const r = await run(`echo out > ${target}`, { dangerouslyDisableSandbox: true });
    expect(r.block.is_error).toBeUndefined();
    expect(r.text).toContain('ran outside the sandbox');
    expect(readFileSync(target, 'utf8')).toBe('out\n');
    const p = sandboxed({ excludedCommands: ['touch'] });
    try {
      const x = await run(`touch ${outside}/excluded.txt`, {}, p);
      expect(x.text).toContain('sandbox.excludedCommands');
      expect(existsSync(path.join(outside, 'excluded.txt'))).toBe(true);
    } finally {
      await p.cleanup();
    }
  });

  it('ends a sandboxed command and its children on abort', async () => {
    const controller = new AbortController();
    const p = makeProject({ settings: { sandbox: { enabled: true } }, abortController: controller });
    const marker = `${process.pid % 1000}${Date.now() % 100000}`;
    try {
      const call = run(`sleep 98${marker}.1 & sleep 98${marker}.2; wait`, {}, p);
      const sleeps = () => processesWithMarker(`98${marker}.`).filter((x) => x.cmdline.startsWith('sleep ')).length;
      await waitFor(() => sleeps() === 2, 10_000, 'two sandboxed sleeps');
      controller.abort();
      const r = await call;
      expect(r.data.interrupted).toBe(true);
      await waitFor(() => processesWithMarker(`98${marker}.`).length === 0, 5_000, 'no survivors');
    } finally {
      await p.cleanup();
    }
  });

  it('carries a cd inside the working directory over, as unsandboxed calls do', async () => {
    mkdirSync(path.join(project.dir, 'sub'));
    await run('cd sub');
    expect((await run('pwd')).text).toBe(path.join(project.dir, 'sub'));
  });
});

describe('sandbox unavailable', () => {
  afterEach(async () => {
    await detectSandbox({ refresh: true });
  });

  it('refuses to run when the sandbox was asked for but cannot run, and never runs silently unsandboxed', async () => {
    const gone = await detectSandbox({ refresh: true, env: { PATH: '/nonexistent' } });
    expect(gone.available).toBe(false);
    const r = await run('echo ran > ran.txt');
    expect(r.block.is_error).toBe(true);
    expect(r.text).toContain('Sandboxing is enabled in settings but unavailable');
    expect(r.text).toContain('bubblewrap');
    expect(existsSync(path.join(project.dir, 'ran.txt'))).toBe(false);
  });

  it('runs unsandboxed with a note when failIfUnavailable is false', async () => {
    await detectSandbox({ refresh: true, env: { PATH: '/nonexistent' } });
    const lenient = sandboxed({ failIfUnavailable: false });
    try {
      const r = await run('echo ran', {}, lenient);
      expect(r.text).toContain('ran');
      expect(r.text).toContain('sandbox unavailable');
      expect(r.data.sandboxed).toBe(false);
    } finally {
      await lenient.cleanup();
    }
  });
});
