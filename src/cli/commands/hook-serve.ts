/**
 * `toolgate hook serve`: the command hook as a long-lived HTTP server (Claude Code's `type: "http"` hooks POST the same
 * JSON a command hook reads on stdin, and read the same JSON back), so a decision costs no process start. It listens on
 * 127.0.0.1 (or a Unix socket, 0600) and wants `Authorization: Bearer <token>` on every request. Routes: `POST /hook`
 * (Claude Code's protocol; Gemini's when the event says BeforeTool), `/hook/claude`, `/hook/gemini`, `/hook/codex`.
 *
 * Fail closed where the host fails open: Claude Code treats a non-2xx answer, a body that is not JSON or no connection
 * as a non-blocking error and lets the call go on. So every answer is 200 with JSON, and one that cannot be judged —
 * a request without the token included — is the host's fail-closed answer (ask), judged no further.
 *
 * Settings are watched: before each request is judged (once for the requests that arrived in one turn of the event
 * loop) the settings files behind the contexts built so far (the ones read and the ones looked for) are compared with
 * what they were (inode, size, mtime); any change, a file appearing or going, drops every context, so the next
 * decision reads them again. A file changed within SETTLE_MS of its load is not
 * trusted to be the version that was read (the signature is taken after the read): it counts as changed next time.
 *
 * Each request's project is found from its own `cwd` (hook-judge.ts projectRootOf) unless `--project-dir` names it;
 * its log entry is redacted with that project's settings (the verdict carries them).
 */
import fs from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { stateDirectory } from '../../agent/session-dir.js';
import { nodeCrypto, randomBytes } from '../../tool/crypto.js';
import type { FactMemo } from '../../permissions/observed-fs.js';
import { answerHook, MAX_HOOK_REQUEST_BYTES } from './hook-answer.js';
import { failClosedOutput, HOOK_HOSTS, type HookHost } from './hook-hosts.js';
import { HookJudge, type HookJudgeOptions } from './hook-judge.js';
import { appendHookLines, hookLogFile, type HookLogEntry } from './hook-log.js';
import { judgeOptions, parseHost, type HookCommonOptions } from './hook.js';
import { SettingsWatch } from './settings-watch.js';

export interface HookServerOptions extends HookJudgeOptions {
  readonly host?: HookHost;
  /** 0 or absent: any free port on 127.0.0.1. */
  readonly port?: number;
  /** A Unix socket path instead of a port. */
  readonly socket?: string;
  readonly token: string;
  /** Where decisions are logged; null: nowhere. */
  readonly logFile?: string | null;
}

export interface HookServerHandle {
  /** `http://127.0.0.1:PORT/hook`, or the socket path. */
  readonly url: string;
  readonly port?: number;
  close(): Promise<void>;
}

/**
 * Decisions are logged in one append at most every LOG_FLUSH_MS (or every LOG_FLUSH_ENTRIES), and at close or exit:
 * the log's open, stat and write cost a turn of the event loop each otherwise. `hook log` sees an entry that late.
 */
const LOG_FLUSH_MS = 200;
const LOG_FLUSH_ENTRIES = 2000;

export async function startHookServer(options: HookServerOptions): Promise<HookServerHandle> {
  const watch = new SettingsWatch();
  const judge = new HookJudge({
    ...options,
    // The watch below makes the judge forget when a settings file changes; the filesystem facts it re-checks itself.
    reuseVerdicts: true,
    onSettingsLoaded: (s) => {
      watch.record(s);
      options.onSettingsLoaded?.(s);
    },
  });
  const expected = Buffer.from(`Bearer ${options.token}`);
  const logFile = options.logFile === undefined ? hookLogFile() : options.logFile;
  let pending: HookLogEntry[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (flushTimer !== undefined) clearTimeout(flushTimer);
    flushTimer = undefined;
    const lines = pending;
    pending = [];
    if (logFile !== null && lines.length > 0) appendHookLines(lines, logFile);
  };
  const logged = (entry: HookLogEntry) => {
    pending.push(entry);
    if (pending.length >= LOG_FLUSH_ENTRIES) flush();
    else flushTimer ??= setTimeout(flush, LOG_FLUSH_MS).unref();
  };
  // An exit that skips close() (an uncaught error, process.exit) still writes what was decided.
  process.on('exit', flush);

  const { createServer } = await import('node:http');
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => send(res, failClosedOutput(options.host ?? 'claude', undefined, `internal error: ${error instanceof Error ? error.message : String(error)}`)));
  });
  server.keepAliveTimeout = 60_000;
  // A client that sends its headers or body slowly is cut off instead of holding a connection open.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = (req.url ?? '/').split('?')[0]!;
    const route = /^\/hook(?:\/(claude|gemini|codex))?\/?$/.exec(url);
    if (req.method !== 'POST' || route === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('toolgate hook serve: POST /hook, /hook/claude, /hook/gemini or /hook/codex\n');
      return;
    }
    const host = (route[1] as HookHost | undefined) ?? options.host;
    const auth = Buffer.from(req.headers.authorization ?? '');
    if (auth.length !== expected.length || !nodeCrypto().timingSafeEqual(auth, expected)) {
      // Answered without reading what an unauthenticated client sends (it is discarded as it comes).
      req.resume();
      send(res, failClosedOutput(host ?? 'claude', undefined, 'the request did not carry the hook server token (Authorization: Bearer $TOOLGATE_HOOK_TOKEN)'));
      return;
    }
    const body = await readBody(req);
    if (arrived.length === 0) setImmediate(judgeArrived);
    arrived.push({ body, host, res });
  }

  /**
   * Requests whose bodies came in during one turn of the event loop are judged together, after all of them arrived:
   * the settings files are compared once, and each filesystem question a remembered verdict asks again is asked once
   * for the batch (a FactMemo). Every answer is still asked after the request it serves arrived, so a change made
   * before a request was sent is seen as when each was checked alone.
   */
  let arrived: { body: string; host: HookHost | undefined; res: ServerResponse }[] = [];
  function judgeArrived(): void {
    const batch = arrived;
    arrived = [];
    if (watch.changed()) judge.forget();
    const facts: FactMemo = new Map();
    for (const { body, host, res } of batch) {
      void answerHook(body, { ...(host !== undefined ? { host } : {}), cwd: process.cwd(), log: logFile !== null, facts }, judge)
        .then(({ output, entry }) => {
          send(res, output);
          if (entry !== undefined) logged(entry);
        })
        .catch((error: unknown) => send(res, failClosedOutput(host ?? 'claude', undefined, `internal error: ${error instanceof Error ? error.message : String(error)}`)));
    }
  }

  if (options.socket !== undefined) {
    removeStaleSocket(options.socket);
    await listen(server, options.socket);
    fs.chmodSync(options.socket, 0o600);
  } else {
    await listen(server, options.port ?? 0, '127.0.0.1');
  }
  const port = options.socket === undefined ? (server.address() as AddressInfo).port : undefined;
  return {
    url: port !== undefined ? `http://127.0.0.1:${port}/hook` : options.socket!,
    ...(port !== undefined ? { port } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        process.off('exit', flush);
        flush();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A socket left by an earlier server is removed; any other file at the path is refused, never deleted. */
function removeStaleSocket(socket: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(socket);
  } catch {
    return;
  }
  if (!st.isSocket()) throw new Error(`--socket ${socket}: a file that is not a socket is there; not removed (choose another path)`);
  fs.rmSync(socket);
}

function listen(server: Server, where: number | string, hostname?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (hostname !== undefined) server.listen(where as number, hostname, () => resolve());
    else server.listen(where as string, () => resolve());
  });
}

/** The body, up to one byte past the limit (answerHook refuses it then; the rest is not read). */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      chunks.push(chunk);
      if (size > MAX_HOOK_REQUEST_BYTES) {
        done = true;
        req.pause();
        resolve(Buffer.concat(chunks).toString('utf8'));
      }
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, output: Record<string, unknown>): void {
  if (res.headersSent) return;
  const body = JSON.stringify(output);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The token: from the named environment variable, else the state folder's token file (made once, 0600). */
export function hookServerToken(envName: string, env: NodeJS.ProcessEnv = process.env): { token: string; file?: string } {
  const fromEnv = env[envName];
  if (fromEnv !== undefined && fromEnv !== '') return { token: fromEnv };
  const file = path.join(stateDirectory(env), 'hook-token');
  const existing = readTokenFile(file);
  if (existing !== undefined) return { token: existing, file };
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, file };
}

/**
 * The token file's token; undefined when there is no file (or it is empty). A file that is a link, not this user's, or
 * readable or writable by others is refused: anyone who can read the token can answer for the user's agent.
 */
function readTokenFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new Error(`the hook token file ${file} is a symbolic link; remove it (a new token is made)`);
    throw error;
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile()) throw new Error(`the hook token file ${file} is not a regular file`);
    if (uid !== undefined && st.uid !== uid) throw new Error(`the hook token file ${file} is not owned by this user; remove it (a new token is made)`);
    if ((st.mode & 0o077) !== 0) throw new Error(`the hook token file ${file} is readable or writable by others (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 ${file}, or remove it for a new token`);
    const token = fs.readFileSync(fd, 'utf8').trim();
    return token === '' ? undefined : token;
  } finally {
    fs.closeSync(fd);
  }
}

export async function runHookServer(opts: HookCommonOptions & { port: string; socket?: string; tokenEnv: string }): Promise<void> {
  const host = parseHost(opts.host);
  const port = Number.parseInt(opts.port, 10);
  if (opts.socket === undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new Error('--port takes a port number');
  if (host !== undefined && !(HOOK_HOSTS as readonly string[]).includes(host)) throw new Error('bad --host');
  const { token, file } = hookServerToken(opts.tokenEnv);
  // One server serves every project: a request's project is found from its cwd (or given by --project-dir), not taken
  // from this process's $CLAUDE_PROJECT_DIR.
  const { projectDir: _ignored, ...judging } = judgeOptions(opts);
  const projectDir = opts.projectDir !== undefined ? path.resolve(opts.projectDir) : undefined;
  const handle = await startHookServer({
    ...judging,
    ...(projectDir !== undefined ? { projectDir } : {}),
    ...(host !== undefined ? { host } : {}),
    ...(opts.socket !== undefined ? { socket: path.resolve(opts.socket) } : { port }),
    token,
    logFile: opts.log ? hookLogFile() : null,
  });
  process.stderr.write(`toolgate hook serve: listening on ${handle.url}${file !== undefined ? `; token in ${file} (export ${opts.tokenEnv}=$(cat ${file}) for the host)` : ''}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => void handle.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
