/**
 * The command launcher: one small long-lived process that starts Bash commands for toolgate, so that a command does
 * not cost a fork of the whole Node process. libuv starts a child with fork() + exec() and blocks until the exec: the
 * kernel copies the page tables of a 75–150 MB process, the child tears them down again at exec, and the parent pays a
 * copy-on-write fault for each page it writes afterwards — 1.2–3 ms a command in `toolgate mcp serve`, as much as the
 * `bash -c 'echo hi'` it starts. The launcher (a 7 MB Perl, launcher-script.ts) makes the next command's process
 * ahead, while the current one runs: after a Bash command a bash already started and waiting for its script (a warm
 * shell: the request pays neither the exec nor bash's start), otherwise a forked spare that only has to exec.
 *
 * Perl (there on every Linux that has bash and git) rather than a shell loop: it reports the exact wait status (a
 * shell's `$?` cannot tell `exit 130` from SIGINT) and sets the command's environment exactly (`env -i` would be a
 * second exec). Each command gets what libuv gives a detached spawn: a new session (setsid), the working directory,
 * stdin from /dev/null, stdout and stderr on the output file, fd 3 on the state file, every other descriptor closed on
 * exec, default signal dispositions and an empty mask, then `execvp` with exactly the given environment. Like libuv, it
 * learns whether the exec happened from a close-on-exec error pipe before it answers. It is the commands' parent: it
 * watches each through a pidfd, reaps it with waitpid and reports its raw wait status. It exits at end of file on its
 * stdin — when toolgate exits or dies, however it dies — and its waiting spare with it.
 *
 * It starts at the second unsandboxed command of the process (a one-shot `toolgate exec` never pays for it) and
 * serves from the third on. Fail closed: a request the launcher reports as not started (`F`: open, fork, setsid,
 * chdir, dup2 or exec failed, or the spare was gone — nothing of the command ran) is started again by the caller with
 * Node's own spawn, which reports its error exactly as before. A request whose start was never reported (the launcher
 * died) is an error, never run twice. While the launcher is starting, is unavailable (no perl, not Linux,
 * `TOOLGATE_BASH_LAUNCHER=0`) or has died, callers use Node's spawn.
 *
 * Protocol: request `<bytes>\n<id>\0<file>\0<cwd>\0<out>\0<state>\0<argc>\0<args…>\0<K=V…>`; replies, one line each
 * (one write each, shorter than PIPE_BUF, so never interleaved): `H <pid>` ready, `R <id> <pid>` running (exec
 * succeeded, or the warm shell took the script), `F <id> <why>` not started, `L <id> <why>` it may have started but cannot be watched (it was
 * SIGKILLed), `X <id> c <code>` exited, `X <id> s <signal number>` killed by a signal, `X <id> u` status unreadable.
 * `X` for an id always follows its `R`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import type { Socket } from 'node:net';
import { spareProcess } from '../../hooks/process-marker.js';
import { LAUNCHER_SCRIPT } from './launcher-script.js';


export interface LaunchRequest {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Both exist already (the caller created and truncated them); the command writes to them. */
  readonly outputFile: string;
  readonly stateFile: string;
}

export interface LaunchCallbacks {
  /** The command runs (exec succeeded) as `pid`, leader of its own session and group. */
  onStart(pid: number): void;
  /** Not started, nothing ran: start it another way. */
  onNotStarted(why: string): void;
  /** The launcher is gone without saying whether the command started: it must not be started again. */
  onLost(why: string): void;
  /** `lost`: the launcher died while the command ran; its exit status is unknown (code and signal null). */
  onExit(code: number | null, signal: NodeJS.Signals | null, lost?: string): void;
}

/** What the caller holds for a launched command: whether it keeps Node's event loop alive, like a ChildProcess. */
export interface LaunchedCommand {
  ref(): void;
  unref(): void;
}

interface Entry {
  readonly callbacks: LaunchCallbacks;
  started: boolean;
  refd: boolean;
}

interface Running {
  readonly child: ChildProcess;
  readonly stdin: Socket;
  readonly stdout: Socket;
  ready: boolean;
  /** The incomplete last line of the replies read so far. */
  buffer: string;
  readonly entries: Map<string, Entry>;
  refs: number;
  /** Resolves true once ready, false if it exits first. */
  readonly whenReady: Promise<boolean>;
  markReady(ready: boolean): void;
}

let running: Running | undefined;
let failures = 0;
let counter = 0;
const signalNames = new Map<number, NodeJS.Signals>(Object.entries(os.constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

export function launcherEnabled(): boolean {
  return process.platform === 'linux' && process.env.TOOLGATE_BASH_LAUNCHER !== '0' && failures < 2;
}

/** The launcher's pid once it is ready (tests, diagnostics). */
export function launcherPid(): number | undefined {
  return running?.ready === true ? running.child.pid : undefined;
}

/** How many times a command asked for the launcher: the first never starts it. */
let asked = 0;

/**
 * True once the launcher answers. The second command of the process starts it (and, like the first, is spawned the
 * direct way): a process that runs one command never starts a Perl for nothing.
 */
export function launcherReady(): boolean {
  if (running === undefined && ++asked < 2) return false;
  return ensureStarted()?.ready === true;
}

/**
 * Starts the launcher if need be; resolves true once it is ready, false when it is unavailable. Calls do not wait for it
 * (they spawn directly meanwhile): this is for a server that starts it ahead of its first call, and for tests.
 */
export function whenLauncherReady(): Promise<boolean> {
  return ensureStarted()?.whenReady ?? Promise.resolve(false);
}

/**
 * Starts `request` through the launcher; undefined when the caller must spawn it itself (no launcher ready yet, or a
 * request the protocol cannot carry).
 */
export function launch(request: LaunchRequest, callbacks: LaunchCallbacks): LaunchedCommand | undefined {
  const launcher = ensureStarted();
  if (launcher === undefined || !launcher.ready) return undefined;
  const fields = [request.file, request.cwd, request.outputFile, request.stateFile, String(request.args.length), ...request.args];
  for (const [key, value] of Object.entries(request.env)) {
    if (value === undefined) continue;
    // Node's spawn rejects a NUL (and such a request cannot be framed here): let it, with its own error.
    if (key === '' || key.includes('=')) return undefined;
    fields.push(`${key}=${String(value)}`);
  }
  if (fields.some((f) => f.includes('\0'))) return undefined;
  const id = (++counter).toString(36);
  const payload = `${id}\0${fields.join('\0')}`;
  const entry: Entry = { callbacks, started: false, refd: true };
  launcher.entries.set(id, entry);
  addRef(launcher, 1);
  launcher.stdin.write(`${Buffer.byteLength(payload)}\n${payload}`);
  return {
    ref: () => {
      if (entry.refd || launcher.entries.get(id) !== entry) return;
      entry.refd = true;
      addRef(launcher, 1);
    },
    unref: () => {
      if (!entry.refd || launcher.entries.get(id) !== entry) return;
      entry.refd = false;
      addRef(launcher, -1);
    },
  };
}

function addRef(launcher: Running, delta: number): void {
  launcher.refs += delta;
  if (launcher.refs > 0) launcher.stdout.ref();
  else launcher.stdout.unref();
}

function ensureStarted(): Running | undefined {
  if (!launcherEnabled()) return undefined;
  if (running !== undefined) return running;
  // Only PATH: no PERL5OPT/PERL5LIB of the user's reaches the launcher's own Perl (each command gets exactly its own
  // environment), and no marker (a sweep for it must not end the launcher). In its own session (a Ctrl+C at the
  // terminal is not for it) and unref'd: it never keeps Node alive by itself.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };
  let child: ChildProcess;
  try {
    child = spawn('perl', ['-e', LAUNCHER_SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'], detached: true, cwd: '/', env });
  } catch {
    failures = 2;
    return undefined;
  }
  const stdin = child.stdin as Socket | null;
  const stdout = child.stdout as Socket | null;
  child.once('error', () => {});
  if (child.pid === undefined || stdin === null || stdout === null) {
    failures = 2;
    return undefined;
  }
  spareProcess(child.pid);
  let markReady!: (ready: boolean) => void;
  const whenReady = new Promise<boolean>((resolve) => (markReady = resolve));
  const launcher: Running = { child, stdin, stdout, ready: false, buffer: '', entries: new Map(), refs: 0, whenReady, markReady };
  running = launcher;
  stdin.on('error', () => {});
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => onData(launcher, chunk));
  // End of file: the launcher is gone (its commands hold no copy of the pipe: it is close-on-exec for them).
  stdout.once('close', () => onGone(launcher));
  child.once('exit', () => {
    if (running === launcher) running = undefined;
    if (!launcher.ready) failures = 2;
    launcher.markReady(false);
  });
  child.unref();
  stdin.unref();
  stdout.unref();
  return launcher;
}

function onData(launcher: Running, chunk: string): void {
  launcher.buffer += chunk;
  let nl: number;
  while ((nl = launcher.buffer.indexOf('\n')) !== -1) {
    const line = launcher.buffer.slice(0, nl);
    launcher.buffer = launcher.buffer.slice(nl + 1);
    onLine(launcher, line);
  }
}

function onLine(launcher: Running, line: string): void {
  const [kind, id, a, b] = line.split(' ', 4);
  if (kind === 'H') {
    launcher.ready = true;
    launcher.markReady(true);
    return;
  }
  const entry = id === undefined ? undefined : launcher.entries.get(id);
  if (entry === undefined) return;
  if (kind === 'R') {
    const pid = Number(a);
    if (!Number.isInteger(pid) || pid <= 0) return;
    entry.started = true;
    entry.callbacks.onStart(pid);
  } else if (kind === 'F') {
    settle(launcher, id!, entry);
    entry.callbacks.onNotStarted(line.slice(`F ${id} `.length));
  } else if (kind === 'L') {
    settle(launcher, id!, entry);
    entry.callbacks.onLost(`the command launcher could not watch the command (${line.slice(`L ${id} `.length)}): it was ended`);
  } else if (kind === 'X') {
    settle(launcher, id!, entry);
    const n = Number(b);
    if (a === 's') entry.callbacks.onExit(null, signalNames.get(n) ?? null);
    else if (a === 'c' && Number.isInteger(n)) entry.callbacks.onExit(n, null);
    else entry.callbacks.onExit(null, null, 'the command launcher could not read the exit status');
  }
}

function settle(launcher: Running, id: string, entry: Entry): void {
  launcher.entries.delete(id);
  if (entry.refd) addRef(launcher, -1);
}

function onGone(launcher: Running): void {
  if (running === launcher) running = undefined;
  failures++;
  for (const [id, entry] of [...launcher.entries]) {
    settle(launcher, id, entry);
    // Started and never reported: nobody can learn its exit status any more.
    if (entry.started) entry.callbacks.onExit(null, null, 'the command launcher ended while the command ran: its exit status is unknown');
    else entry.callbacks.onLost('the command launcher ended before reporting whether the command started');
  }
}
