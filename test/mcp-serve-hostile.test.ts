/**
 * `toolgate mcp serve` (the real CLI over stdio) under a hostile or broken client writing raw bytes: a message over
 * the size limit, a long line that is not JSON, JSON that is not JSON-RPC — each answered with an error and a stderr
 * line while the session goes on; a client that closes its end — a clean exit, with the running command's process
 * tree ended at once (closing only its input: every request is still answered, a call in flight as interrupted);
 * fifteen concurrent Bash calls read slowly — no MaxListenersExceededWarning. (test/attacks/mcp-client-gone.test.ts:
 * background tasks, detached and TERM-ignoring processes, nothing alive at the exit.)
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from './helpers/cli.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

let root: string;
let project: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-serve-hostile-'));
  project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  mkdirSync(path.join(root, 'home'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Served {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Record<string, unknown>[];
  stderr: string;
  readonly exited: Promise<number | null>;
  send(message: unknown): void;
  answer(id: number | null, nth?: number): Promise<Record<string, unknown>>;
}

const running: Served[] = [];
afterEach(() => {
  for (const s of running.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
});

async function serve(env: Record<string, string> = {}, { mode = 'bypassPermissions', capabilities = {} }: { mode?: string; capabilities?: Record<string, unknown> } = {}): Promise<Served> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'mcp', 'serve', '--cwd', project, '--permission-mode', mode, '--session-dir', path.join(root, `s-${running.length}`)],
    { cwd: repoRoot, env: { ...process.env, HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state'), NODE_NO_WARNINGS: '', ...env } },
  );
  // The test writes into a pipe the server may have closed: that is the server's business, not an error here.
  child.stdin.on('error', () => {});
  const messages: Record<string, unknown>[] = [];
  let buffer = '';
  const served: Served = {
    child,
    messages,
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    async answer(id, nth = 0) {
      for (;;) {
        const found = messages.filter((m) => m.id === id && ('result' in m || 'error' in m));
        if (found.length > nth) return found[nth]!;
        if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before answering ${id}; stderr: ${served.stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() !== '') messages.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (served.stderr += chunk));
  running.push(served);
  served.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'hostile', version: '1' } } });
  await served.answer(0);
  served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return served;
}

const errorOf = (m: Record<string, unknown>) => m.error as { code: number; message: string };

async function stillServes(s: Served, id: number): Promise<void> {
  s.send({ jsonrpc: '2.0', id, method: 'tools/list' });
  const list = await s.answer(id);
  expect((list.result as { tools: unknown[] }).tools.length).toBeGreaterThan(3);
}

/** Live processes whose command line is exactly `sleep <arg>`. */
function sleeping(arg: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') !== `sleep\0${arg}\0`) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('toolgate mcp serve: messages it cannot take', () => {
  it('a 50 MB message is answered with an error carrying its id (at its start or its end), said on stderr, and the session goes on', async () => {
    const s = await serve();
    const filler = 'x'.repeat(50 * 1024 * 1024);
    s.child.stdin.write(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Bash","arguments":{"command":"echo ${filler}"}}}\n`);
    const first = await s.answer(7);
    expect(errorOf(first).code).toBe(-32600);
    expect(errorOf(first).message).toMatch(/over the limit of \d+ bytes/);
    s.child.stdin.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"Bash","arguments":{"command":"echo ${filler}"}},"id":"late-id"}\n`);
    expect(errorOf(await s.answer('late-id' as unknown as number)).code).toBe(-32600);
    await stillServes(s, 8);
    expect(s.stderr).toMatch(/a message of \d+ bytes is over the limit of \d+ bytes; answered with an error, the session goes on/);
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
  });

  it('a 10 MB line that is not JSON, and JSON that is not JSON-RPC: errors, stderr lines, and the session goes on', async () => {
    const s = await serve();
    s.child.stdin.write(`${'y'.repeat(10 * 1024 * 1024)}\n`);
    expect(errorOf(await s.answer(null)).code).toBe(-32700);
    s.child.stdin.write('{"hello":"world","id":12}\n');
    expect(errorOf(await s.answer(12)).code).toBe(-32600);
    s.child.stdin.write('\n\r\n');
    await stillServes(s, 13);
    expect(s.stderr).toContain('is not JSON; answered with a parse error');
    expect(s.stderr).toContain('not a JSON-RPC message');
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
  });
});

describe('toolgate mcp serve: a client that goes away', () => {
  const tag = `9${process.pid % 1000}${Math.floor(Math.random() * 1e5)}`;

  it('closing its end of stdout, then stdin, during a long Bash call: a clean exit, no process left', async () => {
    const s = await serve();
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'Bash', arguments: { command: `echo start; sleep ${tag}1; echo done` } } });
    await until(() => sleeping(`${tag}1`).length === 1, 'the sleep to start');
    s.child.stdout.destroy();
    // Something to answer into the closed pipe (EPIPE), then the end of input.
    s.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    s.send({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    await new Promise((r) => setTimeout(r, 200));
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    expect(s.stderr).not.toMatch(/Unhandled|throw er|Error: write EPIPE/);
    await until(() => sleeping(`${tag}1`).length === 0, 'the sleep to end');
  });

  it('closing stdin during a long Bash call: the call is interrupted at once and answered, a clean exit, no process left', async () => {
    const s = await serve();
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'Bash', arguments: { command: `sleep ${tag}2 & sleep ${tag}3; wait` } } });
    await until(() => sleeping(`${tag}2`).length === 1 && sleeping(`${tag}3`).length === 1, 'the sleeps to start');
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    const answer = s.messages.find((m) => m.id === 3 && 'result' in m);
    expect(answer, JSON.stringify(s.messages)).toBeDefined();
    const result = answer!.result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/interrupt|abort/i);
    await until(() => sleeping(`${tag}2`).length + sleeping(`${tag}3`).length === 0, 'the sleeps to end');
  });

  it('requests sent just before the end of input are each answered before the server exits (a call still running, as interrupted)', async () => {
    const s = await serve();
    s.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'Bash', arguments: { command: `echo start; sleep ${tag}4; echo too-late` } } });
    s.send({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    const call = s.messages.find((m) => m.id === 5 && 'result' in m)?.result as { isError?: boolean } | undefined;
    expect(call?.isError).toBe(true);
    expect(JSON.stringify(call)).toMatch(/interrupt|cancelled|aborted before completion/i);
    expect(JSON.stringify(call)).not.toContain('too-late');
    expect((s.messages.find((m) => m.id === 6)?.result as { tools: unknown[] }).tools.length).toBeGreaterThan(3);
    await until(() => sleeping(`${tag}4`).length === 0, 'the sleep to end');
  });

  it('closing stdin while a call waits for the client to answer a permission question: the question is withdrawn, the call refused and answered', async () => {
    const s = await serve({}, { mode: 'default', capabilities: { elicitation: {} } });
    s.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'Bash', arguments: { command: `touch ${path.join(project, 'asked.txt')}` } } });
    await until(() => s.messages.some((m) => m.method === 'elicitation/create'), 'the permission question');
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    const result = s.messages.find((m) => m.id === 7 && 'result' in m)?.result as { isError?: boolean; content: { text: string }[] } | undefined;
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result?.content)).toMatch(/refused/);
    expect(readdirSync(project)).not.toContain('asked.txt');
  });
});

describe('toolgate mcp serve: many calls at once', () => {
  it('fifteen concurrent Bash calls with large outputs, read slowly: every one answered, no MaxListenersExceededWarning', async () => {
    const s = await serve({ BASH_MAX_OUTPUT_LENGTH: '100000' });
    // Not read until every call is done: the server's writes back up behind the pipe.
    s.child.stdout.pause();
    const marks = path.join(root, 'marks');
    mkdirSync(marks);
    for (let i = 0; i < 15; i++) {
      const command = `head -c 90000 /dev/zero | tr '\\0' ${String.fromCharCode(97 + i)}; touch ${marks}/${i}`;
      s.send({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'Bash', arguments: { command } } });
    }
    // Every command has run; its answer follows at once, into a pipe nobody reads yet.
    await until(() => readdirSync(marks).length === 15, 'all fifteen commands to run');
    await new Promise((r) => setTimeout(r, 500));
    s.child.stdout.resume();
    for (let i = 0; i < 15; i++) {
      const answer = await s.answer(100 + i);
      const text = (answer.result as { content: { text: string }[] }).content[0]!.text;
      expect(text.length).toBeGreaterThan(80_000);
    }
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    expect(s.stderr).not.toContain('MaxListenersExceededWarning');
  });
});
