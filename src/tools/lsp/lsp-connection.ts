/**
 * One language server process spoken to over stdio with JSON-RPC 2.0 and the LSP's `Content-Length` framing: requests
 * with ids and time limits, notifications both ways, and the few requests servers make of a client answered
 * (`workspace/configuration`, progress and capability registration). No library: the protocol's framing is a header
 * and a body, and the operations the LSP tool needs are a handful of requests.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface LspServerProcess {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** The server is gone (exited, could not start, or stopped answering); the caller may start it again. */
export class LspServerGoneError extends Error {
  override readonly name = 'LspServerGoneError';
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export class LspConnection {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<string, Set<(params: unknown) => void>>();
  #buffer: Buffer = Buffer.alloc(0);
  #nextId = 1;
  #gone: string | undefined;
  #stderr = '';
  /** Resolves when the process has exited (or failed to start). */
  readonly exited: Promise<void>;

  constructor(server: LspServerProcess) {
    this.#child = spawn(server.command, [...server.args], { cwd: server.cwd, env: server.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      this.#child.once('error', (error) => {
        this.#fail(`${server.command} could not be started: ${error.message}`);
        resolve();
      });
      this.#child.once('exit', (code, signal) => {
        const tail = this.#stderr.trim().split('\n').slice(-3).join(' | ');
        this.#fail(`${server.command} exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ''}`);
        resolve();
      });
    });
    this.#child.stdout.on('data', (chunk: Buffer) => this.#read(chunk));
    this.#child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-4000);
    });
    // A server that dies mid-write must not take this process with it.
    this.#child.stdin.on('error', () => undefined);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Why the server is gone, or undefined while it runs. */
  get gone(): string | undefined {
    return this.#gone;
  }

  request<T>(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    if (this.#gone !== undefined) return Promise.reject(new LspServerGoneError(this.#gone));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#settle(id)?.reject(new Error('The request was interrupted.'));
        this.notify('$/cancelRequest', { id });
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        this.#settle(id)?.reject(new Error(`The language server did not answer ${method} within ${Math.round(timeoutMs / 1000)}s.`));
        this.notify('$/cancelRequest', { id });
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (value) => (signal?.removeEventListener('abort', onAbort), resolve(value as T)),
        reject: (error) => (signal?.removeEventListener('abort', onAbort), reject(error)),
        timer,
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (this.#gone === undefined) this.#send({ jsonrpc: '2.0', method, params });
  }

  onNotification(method: string, listener: (params: unknown) => void): void {
    let set = this.#listeners.get(method);
    if (!set) this.#listeners.set(method, (set = new Set()));
    set.add(listener);
  }

  /** `shutdown`, `exit`, then SIGKILL if it is still there after `graceMs`. */
  async dispose(graceMs = 2_000): Promise<void> {
    if (this.#gone === undefined) {
      await this.request('shutdown', null, graceMs).catch(() => undefined);
      this.notify('exit', null);
    }
    const killer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(killer);
  }

  #send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.#child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    return pending;
  }

  #fail(reason: string): void {
    if (this.#gone !== undefined) return;
    this.#gone = reason;
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(new LspServerGoneError(reason));
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const end = this.#buffer.indexOf(HEADER_END);
      if (end < 0) return;
      const header = this.#buffer.subarray(0, end).toString('ascii');
      const length = /Content-Length:\s*(\d+)/i.exec(header)?.[1];
      if (length === undefined) {
        this.#fail('the language server wrote a message without Content-Length');
        this.#child.kill('SIGKILL');
        return;
      }
      const start = end + HEADER_END.length;
      if (this.#buffer.length < start + Number(length)) return;
      const body = this.#buffer.subarray(start, start + Number(length)).toString('utf8');
      this.#buffer = this.#buffer.subarray(start + Number(length));
      let message: { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: { message?: string } };
      try {
        message = JSON.parse(body);
      } catch {
        continue;
      }
      this.#dispatch(message);
    }
  }

  #dispatch(message: { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: { message?: string } }): void {
    if (message.method !== undefined && message.id !== undefined) {
      // A request of the server's: answered with what a client that keeps no settings and shows no UI would say.
      const result = message.method === 'workspace/configuration' ? ((message.params as { items?: unknown[] })?.items ?? []).map(() => null) : null;
      this.#send({ jsonrpc: '2.0', id: message.id, result });
      return;
    }
    if (message.method !== undefined) {
      for (const listener of this.#listeners.get(message.method) ?? []) listener(message.params);
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.#settle(message.id);
    if (!pending) return;
    if (message.error) pending.reject(new Error(`the language server answered with an error: ${message.error.message ?? 'unknown'}`));
    else pending.resolve(message.result ?? null);
  }
}
