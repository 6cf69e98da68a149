/**
 * Durability of a durable session, end to end: a Restate server from npm, a tool pool and a session pool of two
 * processes each (`toolgate worker`), the model played by the scripted server. SIGKILL hits the process that is really
 * running the thing — the session's process mid tool step (found by the PID a PreToolUse hook writes: hooks run in the
 * session's process), then the tool process running a write and the one running a read (found through /proc: the
 * `sleep` of the command and its ancestors). Nothing waits on time: every step waits on a file or a process.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestateServer, type RestateServer } from '../src/distributed/restate-server.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { repoRoot } from './helpers/cli.js';
import { crashRestate, poolProcessesRunning, startTestRestate, startWorkerPool, tempWorkspace, waitFor, type WorkerPool } from './helpers/restate.js';

interface Block {
  readonly type: string;
  readonly tool_use_id?: string;
  readonly is_error?: boolean;
  readonly content?: string | readonly { type: string; text?: string }[];
}
interface Message {
  readonly role: string;
  readonly content: string | readonly Block[];
}

const blocks = (m: Message | undefined): readonly Block[] => (m && Array.isArray(m.content) ? m.content : []);
const resultText = (b: Block | undefined) => (typeof b?.content === 'string' ? b.content : (b?.content ?? []).map((c) => c.text ?? '').join(''));
const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

describe('a durable session whose workers are killed mid tool call', () => {
  let server: RestateServer;
  let tools: WorkerPool;
  let sessions: WorkerPool;
  let model: ScriptedServer;
  const ws = tempWorkspace();
  const hookLog = path.join(ws.dir, 'hooks.log');
  const bash = (id: string, command: string) => ({ content: [{ type: 'tool_use' as const, id, name: 'Bash', input: { command } }] });

  beforeAll(async () => {
    writeFileSync(path.join(ws.dir, 'r.txt'), 'read me\n');
    writeFileSync(hookLog, '');
    // Hooks run in the process running the session: this one writes `<tool_use_id> <that process's pid>`.
    mkdirSync(path.join(ws.dir, '.claude'));
    const hook = `echo "$(grep -o 'toolu_t[0-9]' | head -n 1) $PPID" >> '${hookLog}'`;
    writeFileSync(
      path.join(ws.dir, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] } }),
    );
    model = await startScriptedServer([
      // A write that runs while the session's process is killed: the tool step replays and gets its result.
      bash('toolu_t1', 'echo begin-1 >> w1.txt; sleep 8; echo end-1 >> w1.txt'),
      // A write whose tool process is killed: not safe to run twice, answered as interrupted.
      bash('toolu_t2', 'echo begin-2 >> w2.txt; sleep 30; echo end-2 >> w2.txt'),
      // A read whose tool process is killed: run again, answered. (It opens with a read, not the sleep: a leading
      // sleep of 2 s or more is refused, pointing at Monitor.)
      bash('toolu_t3', 'test -e r.txt; sleep 9; cat r.txt'),
      { content: [{ type: 'text' as const, text: 'done' }] },
      // The client (`toolgate run`) killed while its session runs a tool call.
      bash('toolu_c1', 'echo begin-c >> wc.txt; sleep 8; echo end-c >> wc.txt'),
      { content: [{ type: 'text' as const, text: 'done-c' }] },
      // Restate itself killed while a session's write runs.
      bash('toolu_x1', 'echo begin-x >> wx.txt; sleep 8; echo end-x >> wx.txt'),
      { content: [{ type: 'text' as const, text: 'done-x' }] },
    ]);
    server = await startTestRestate();
    tools = await startWorkerPool(server, { processes: 2, workspace: ws.dir, markers: ws.markers, extraArgs: ['--pool', 'tools'] });
    sessions = await startWorkerPool(server, {
      processes: 2,
      workspace: ws.dir,
      markers: ws.markers,
      extraArgs: ['--sessions', '--pool', 'sessions', '--tool-pool', 'tools'],
      env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key', XDG_STATE_HOME: path.join(ws.dir, 'state') },
    });
  }, 400_000);

  afterAll(async () => {
    await sessions?.stop();
    await tools?.stop();
    await server?.stop();
    await model?.close();
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
    ws.cleanup();
  }, 60_000);

  /** `toolgate run --backend restate=URL` as a user types it, started in the background; the session id it prints. */
  function startRun(prompt: string, resume?: string) {
    const args = ['run', '-p', '--backend', `restate=${server.ingressUrl}`, '--cwd', ws.dir, '--permission-mode', 'bypassPermissions', ...(resume ? ['--resume', resume] : []), prompt];
    // Bypass as root needs the explicit sandbox opt-in, as claude's does (CI machines run as root).
    const env = { ...process.env, IS_SANDBOX: '1' };
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
    return { child, exited, sessionId: () => /toolgate run: session (\S+) /.exec(stderr)?.[1] };
  }

  /** The model requests of one session (told apart by their first message, the prompt). */
  const requestsOf = (prompt: string) =>
    model.messageRequests.map((r) => (r.body as { messages: Message[] }).messages).filter((m) => JSON.stringify(m[0]).includes(prompt));

  it('finishes: no finished model turn is requested again, a write runs at most once, a write cut off is answered as interrupted', async () => {
    const sent = await fetch(`${server.ingressUrl}/ToolgateSession/sess-r/run/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'sess-r-prompt-1' },
      body: JSON.stringify({ prompt: 'go', cwd: ws.dir, mode: 'bypassPermissions' }),
    });
    const { invocationId } = (await sent.json()) as { invocationId: string };
    expect(invocationId).toMatch(/^inv_/);

    // 1. The session's own process, while the first tool call runs on the tool pool.
    await waitFor('the first write running', () => (read(path.join(ws.dir, 'w1.txt')).includes('begin-1') ? true : undefined));
    const sessionPid = Number(/^toolu_t1 (\d+)$/m.exec(read(hookLog))?.[1]);
    expect(sessions.processPids()).toContain(sessionPid);
    process.kill(sessionPid, 'SIGKILL');

    // 2. The tool process running the second write, during its sleep.
    const writer = await waitFor('the second write running', () => poolProcessesRunning(tools.processPids(), 'sleep 30')[0], 180_000);
    process.kill(writer, 'SIGKILL');

    // 3. The tool process running the read, during its sleep.
    const reader = await waitFor('the read running', () => poolProcessesRunning(tools.processPids(), 'sleep 9')[0], 180_000);
    process.kill(reader, 'SIGKILL');

    const attached = await fetch(`${server.ingressUrl}/restate/invocation/${invocationId}/attach`, { signal: AbortSignal.timeout(240_000) });
    const result = (await attached.json()) as { stopReason: string; text: string; turns: number };
    expect(result).toMatchObject({ stopReason: 'end_turn', text: 'done', turns: 4 });

    // The tool step of turn 1 ran again in another process (its PreToolUse hook fired twice, in two processes) ...
    const hookLines = read(hookLog).trim().split('\n');
    const t1 = hookLines.filter((l) => l.startsWith('toolu_t1 ')).map((l) => Number(l.split(' ')[1]));
    expect(t1).toHaveLength(2);
    expect(t1[0]).toBe(sessionPid);
    expect(t1[1]).not.toBe(sessionPid);
    // ... and its call, resubmitted under the same idempotency key, ran once: its result came from Restate.
    expect(read(path.join(ws.dir, 'w1.txt'))).toBe('begin-1\nend-1\n');
    // The write cut off by the kill was not run again.
    expect(read(path.join(ws.dir, 'w2.txt'))).toBe('begin-2\n');

    // One request per turn, each sent once: turn 1's request was not sent again after the session's process died.
    const requests = model.messageRequests.map((r) => (r.body as { messages: Message[] }).messages);
    expect(requests.map((m) => m.length)).toEqual([1, 3, 5, 7]);
    const lastResult = (m: Message[]) => blocks(m.at(-1)).find((b) => b.type === 'tool_result');
    expect(requests.slice(1).map((m) => lastResult(m)?.tool_use_id)).toEqual(['toolu_t1', 'toolu_t2', 'toolu_t3']);
    // What the model saw: turn 1 answered, turn 2 interrupted (the model is told), turn 3 read after a rerun.
    expect(lastResult(requests[1]!)?.is_error ?? false).toBe(false);
    expect(lastResult(requests[2]!)?.is_error).toBe(true);
    expect(resultText(lastResult(requests[2]!))).toMatch(/not safe to run twice.*may or may not have taken effect/s);
    expect(lastResult(requests[3]!)?.is_error ?? false).toBe(false);
    expect(resultText(lastResult(requests[3]!))).toContain('read me');
  }, 400_000);

  it('goes on when its client (toolgate run) is killed; the same command with --resume ID and the same prompt attaches to it', async () => {
    const run = startRun('prompt of the client test');
    await waitFor('the write running', () => (read(path.join(ws.dir, 'wc.txt')).includes('begin-c') ? true : undefined));
    const sessionId = run.sessionId();
    expect(sessionId).toBeTypeOf('string');
    run.child.kill('SIGKILL');
    await run.exited;

    const again = await startRun('prompt of the client test', sessionId).exited;
    expect(again.stdout).toBe('done-c\n');
    expect(again.code).toBe(0);
    expect(read(path.join(ws.dir, 'wc.txt'))).toBe('begin-c\nend-c\n');
    // Two turns, two requests: attaching sent nothing again.
    expect(requestsOf('prompt of the client test').map((m) => m.length)).toEqual([1, 3]);
  }, 300_000);

  it('finishes after Restate itself is killed mid tool call and started again on its data; the client re-attaches with --resume', async () => {
    const run = startRun('prompt of the restate test');
    await waitFor('the write running', () => (read(path.join(ws.dir, 'wx.txt')).includes('begin-x') ? true : undefined));
    const sessionId = run.sessionId()!;
    await crashRestate(server);
    // The client loses its connection and says so; the session is not lost.
    const lost = await run.exited;
    expect(lost.code).not.toBe(0);
    expect(lost.stderr).toContain(`lost the connection to Restate at ${server.ingressUrl} while waiting for session ${sessionId}`);
    expect(lost.stderr).toContain(`--resume ${sessionId} and the same prompt`);

    server = await startRestateServer({
      env: { RESTATE_WORKER__INVOKER__HTTP2_STREAMS_PER_CONNECTION_LIMIT: '8' },
      restart: { dataDir: server.dataDir, ports: server.ports },
    });
    const again = await startRun('prompt of the restate test', sessionId).exited;
    expect(again.stdout, again.stderr).toBe('done-x\n');
    expect(again.code).toBe(0);
    // The write was running when its worker lost Restate: stopped, not run again, and the model is told.
    expect(read(path.join(ws.dir, 'wx.txt'))).toBe('begin-x\n');
    const requests = requestsOf('prompt of the restate test');
    expect(requests.map((m) => m.length)).toEqual([1, 3]);
    const answer = blocks(requests[1]!.at(-1)).find((b) => b.type === 'tool_result');
    expect(answer?.is_error).toBe(true);
    expect(resultText(answer)).toMatch(/not safe to run twice.*may or may not have taken effect/s);
  }, 400_000);
});
