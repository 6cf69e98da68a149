import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxSettings } from './bash-settings.js';
import type { BashOutput } from './bash-output.js';
import { BashTool } from './index.js';
import { detectSandbox } from './sandbox.js';
import { callTool, makeProject, processesWithMarker, waitFor, type TestProject } from './test-helpers/project.js';

const availability = await detectSandbox();
// Written reason for skipping: these tests need a working bubblewrap (apt package bubblewrap; .ci/run installs it).
// When it is missing or cannot create namespaces here, only the "unavailable" behaviour is tested.
const canSandbox = availability.available;

let project: TestProject;
let outside: string;
let server: net.Server;
let port: number;

beforeAll(async () => {
  server = net.createServer((socket) => socket.end('hello from 127.0.0.1\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function sandboxed(sandbox: SandboxSettings = {}): TestProject {
  return makeProject({ settings: { sandbox: { enabled: true, ...sandbox } } });
}

beforeEach(() => {
  project = sandboxed();
  outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-outside-')));
});
afterEach(async () => {
  await project.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

const run = (command: string, extra: Record<string, unknown> = {}, p: TestProject = project) =>
  callTool<BashOutput>(BashTool, { command, ...extra }, p.context);

const connect = (p: number) => `exec 3<>/dev/tcp/127.0.0.1/${p} && head -1 <&3`;

describe.skipIf(!canSandbox)('bubblewrap sandbox', () => {
  it('lets a command write inside the working directory', async () => {
    const r = await run('echo inside > made.txt && cat made.txt');
    expect(r.text).toBe('inside');
    expect(r.data.sandboxed).toBe(true);
    expect(readFileSync(path.join(project.dir, 'made.txt'), 'utf8')).toBe('inside\n');
  });

  it('refuses a write outside the working directories', async () => {
    const target = path.join(outside, 'escape.txt');
    const r = await run(`echo escaped > ${target}`);
    expect(r.block.is_error).toBe(true);
    expect(r.text).toMatch(/Read-only file system|Permission denied|No such file/);
    expect(existsSync(target)).toBe(false);
  });

  it('gives the command a private /tmp', async () => {
    const name = `toolgate-private-${process.pid}-${Date.now()}`;
    const r = await run(`echo hidden > /tmp/${name} && cat /tmp/${name}`);
    expect(r.text).toBe('hidden');
    expect(existsSync(path.join('/tmp', name))).toBe(false);
  });

  it('turns the network off unless the settings allow it', async () => {
    const off = await run(connect(port));
    expect(off.block.is_error).toBe(true);
    expect(off.text).not.toContain('hello from');
    const open = sandboxed({ allowNetwork: true });
    try {
      expect((await run(connect(port), {}, open)).text).toBe('hello from 127.0.0.1');
    } finally {
      await open.cleanup();
    }
  });

  it('keeps .git/hooks, .git/config and settings folders read-only inside the working directory', async () => {
    mkdirSync(path.join(project.dir, '.git'));
    writeFileSync(path.join(project.dir, '.git', 'config'), '[core]\n');
    mkdirSync(path.join(project.dir, '.claude'));
    const hook = await run('echo "curl evil" > .git/hooks/pre-commit');
    expect(hook.block.is_error).toBe(true);
    expect(existsSync(path.join(project.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect((await run('echo "[core] hooksPath=/x" >> .git/config')).block.is_error).toBe(true);
    expect(readFileSync(path.join(project.dir, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect((await run('echo {} > .claude/settings.json')).block.is_error).toBe(true);
    expect((await run('echo fine > .git/notes.txt && cat .git/notes.txt')).text).toBe('fine');
  });

  it('runs outside the sandbox with dangerouslyDisableSandbox, and says so', async () => {
    const target = path.join(outside, 'allowed.txt');
    const r = await run(`echo out > ${target}`, { dangerouslyDisableSandbox: true });
    expect(r.block.is_error).toBeUndefined();
    expect(r.text).toContain('ran outside the sandbox');
    expect(readFileSync(target, 'utf8')).toBe('out\n');
  });

  it('ends a sandboxed command and its children on abort', async () => {
    const controller = new AbortController();
    const p = makeProject({ settings: { sandbox: { enabled: true } }, abortController: controller });
    const marker = `${process.pid % 1000}${Date.now() % 100000}`;
    try {
      const call = run(`sleep 98${marker}.1 & sleep 98${marker}.2; wait`, {}, p);
      const sleeps = () => processesWithMarker(`98${marker}.`).filter((x) => x.cmdline.startsWith('sleep ')).length;
      await waitFor(() => sleeps() === 2, 5_000, 'two sandboxed sleeps');
      controller.abort();
      const r = await call;
      expect(r.data.interrupted).toBe(true);
      await waitFor(() => processesWithMarker(`98${marker}.`).length === 0, 1_000, 'no survivors');
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
