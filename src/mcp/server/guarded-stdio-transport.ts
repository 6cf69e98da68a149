/**
 * The stdio transport of `toolgate mcp serve`, written for a client that may be hostile or broken (the SDK's own
 * buffers every line by concatenating chunks — quadratic on a long line — and ends the session silently past 10 MB):
 * - A line is read in one pass however it arrives; one over `maxMessageBytes` is discarded as it streams in (never
 *   held), answered with a JSON-RPC error carrying its id when the id can be read from its start or end, and said on
 *   stderr; the session goes on. A line that is not JSON, or not JSON-RPC, is answered the same way.
 * - Writes are queued behind one `drain` wait, whatever the number of messages waiting (a client that reads slowly
 *   while many calls finish must not pile up listeners).
 * - The end of stdin is the client's shutdown (the MCP stdio lifecycle), but what it already asked is still answered:
 *   the transport closes once every request it delivered has its response written (`oninputend` tells the server,
 *   which interrupts what still runs and bounds that wait: serve.ts). The client's end of stdout gone (EPIPE or any
 *   error on stdout) closes it at once. Either way it closes once: a clean shutdown, never an unhandled error.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Far above any sane request (a Write of a large file); the HTTP transport's body limit is 50 MB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How much of an oversized line's start and end is kept, to find its id. */
const EDGE_BYTES = 4096;

export interface GuardedStdioOptions {
  readonly maxMessageBytes?: number;
  /** One line for the operator (stderr). */
  readonly log?: (line: string) => void;
}

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** stdin ended while requests were still unanswered; the transport closes once they are (or when `close()` is called). */
  oninputend?: () => void;

  private readonly max: number;
  private readonly log: (line: string) => void;
  private chunks: Buffer[] = [];
  private length = 0;
  /** Set while an oversized line streams past: its size so far, its first and its latest bytes. */
  private oversize: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  private closed = false;
  private inputEnded = false;
  /** Requests delivered and not yet answered, by id (a count: a client may reuse an id while the first still runs). */
  private readonly unanswered = new Map<string | number, number>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    options: GuardedStdioOptions = {},
  ) {
    this.max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('error', this.onStreamError);
    this.stdout.on('error', this.onStreamError);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('error', this.onStreamError);
    // stdout keeps a listener: a write still in flight may fail after this, and must not become an uncaught error.
    this.stdin.pause();
    this.chunks = [];
    this.oversize = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const text = `${JSON.stringify(message)}\n`;
    this.writing = this.writing.then(() => this.write(text));
    const answered = responseId(message);
    if (answered === undefined) return this.writing;
    return this.writing.then(() => {
      this.forget(answered);
    });
  }

  private forget(id: string | number): void {
    const n = this.unanswered.get(id);
    if (n === undefined) return;
    if (n > 1) this.unanswered.set(id, n - 1);
    else this.unanswered.delete(id);
    if (this.inputEnded && this.unanswered.size === 0) void this.close();
  }

  private write(text: string): Promise<void> {
    if (this.closed || this.stdout.destroyed || this.stdout.writableEnded) return Promise.resolve();
    return new Promise((resolve) => {
      let ok: boolean;
      try {
        ok = this.stdout.write(text);
      } catch {
        resolve();
        return;
      }
      if (ok) resolve();
      else {
        // One waiter at a time: `send` chains writes, so at most this listener is on the stream.
        const done = () => {
          this.stdout.off('drain', done);
          this.stdout.off('close', done);
          resolve();
        };
        this.stdout.on('drain', done);
        this.stdout.on('close', done);
      }
    });
  }

  private readonly onEnd = () => {
    if (this.closed) return;
    this.inputEnded = true;
    if (this.unanswered.size === 0) void this.close();
    else this.oninputend?.();
  };

  private readonly onStreamError = (error: Error) => {
    if (this.closed) return;
    const code = (error as NodeJS.ErrnoException).code;
    this.log(`toolgate mcp serve: the client's end of the connection is gone (${code ?? error.message}); shutting down`);
    void this.close();
  };

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    while (from < data.length && !this.closed) {
      const nl = data.indexOf(0x0a, from);
      const end = nl === -1 ? data.length : nl;
      this.take(data.subarray(from, end));
      if (nl === -1) break;
      this.endOfLine();
      from = nl + 1;
    }
  };

  /** A piece of the current line. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversize) {
      this.oversize.bytes += piece.length;
      this.oversize.tail = keepTail(this.oversize.tail, piece);
      return;
    }
    if (this.length + piece.length <= this.max) {
      this.chunks.push(piece);
      this.length += piece.length;
      return;
    }
    // Over the limit: keep the edges only, drop the rest as it comes.
    const sofar = Buffer.concat([...this.chunks, piece]);
    this.oversize = { bytes: sofar.length, head: Buffer.from(sofar.subarray(0, EDGE_BYTES)), tail: Buffer.from(sofar.subarray(-EDGE_BYTES)) };
    this.chunks = [];
    this.length = 0;
  }

  private endOfLine(): void {
    const over = this.oversize;
    if (over) {
      this.oversize = undefined;
      const id = idFrom(over.head.toString('utf8'), over.tail.toString('utf8'));
      this.log(`toolgate mcp serve: a message of ${over.bytes} bytes is over the limit of ${this.max} bytes; answered with an error, the session goes on`);
      void this.reply(id, -32600, `Invalid Request: the message is ${over.bytes} bytes, over the limit of ${this.max} bytes`);
      return;
    }
    const line = Buffer.concat(this.chunks, this.length).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.length = 0;
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.log(`toolgate mcp serve: a line of ${Buffer.byteLength(line)} bytes is not JSON; answered with a parse error, the session goes on`);
      void this.reply(idFrom(line.slice(0, EDGE_BYTES), line.slice(-EDGE_BYTES)), -32700, 'Parse error: the line is not JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = typeof json === 'object' && json !== null && 'id' in json ? jsonRpcId((json as { id: unknown }).id) : null;
      this.log('toolgate mcp serve: a line is JSON but not a JSON-RPC message; answered with an error, the session goes on');
      void this.reply(id, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    const message = parsed.data;
    if ('method' in message && 'id' in message) this.unanswered.set(message.id, (this.unanswered.get(message.id) ?? 0) + 1);
    // A cancelled request is not answered (the MCP spec): it is no longer waited for.
    else if ('method' in message && message.method === 'notifications/cancelled') {
      const id = jsonRpcId((message.params as { requestId?: unknown } | undefined)?.requestId);
      if (id !== null) this.forget(id);
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private reply(id: string | number | null, code: number, message: string): Promise<void> {
    // A JSON-RPC error answer; `id: null` when the message's id could not be read (JSON-RPC 2.0, section 5).
    return this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

function keepTail(tail: Buffer, piece: Buffer): Buffer {
  if (piece.length >= EDGE_BYTES) return Buffer.from(piece.subarray(-EDGE_BYTES));
  const joined = Buffer.concat([tail, piece]);
  return joined.length > EDGE_BYTES ? Buffer.from(joined.subarray(-EDGE_BYTES)) : joined;
}

const ID_AT_START = /^\s*\{(?:[^{}[\]"]|"(?:[^"\\]|\\.)*")*?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/** The id of a request whose whole text cannot be read: a top-level `"id"` before any nested value, or as its last member. */
function idFrom(head: string, tail: string): string | number | null {
  const m = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail.replace(/\r$/, ''));
  if (!m) return null;
  try {
    return jsonRpcId(JSON.parse(m[1]!));
  } catch {
    return null;
  }
}

/** The id a response (result or error) answers; undefined for requests and notifications. */
function responseId(message: JSONRPCMessage): string | number | undefined {
  if ('method' in message || !('id' in message)) return undefined;
  const id = jsonRpcId(message.id);
  return id === null ? undefined : id;
}

function jsonRpcId(value: unknown): string | number | null {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : null;
}
