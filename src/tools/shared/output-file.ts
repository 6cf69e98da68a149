/**
 * Reading a command's output file back without ever holding more than a bounded window in memory: the whole file
 * when it is small, otherwise its head and its tail. Text is decoded as UTF-8 (cut characters at a window's edge
 * dropped) and `\r`-overwritten progress lines are collapsed to what a terminal would finally show.
 */
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';

export interface OutputWindow {
  readonly sizeBytes: number;
  /** The whole file when `complete`, else its first bytes. */
  readonly head: Buffer;
  /** The last bytes when not `complete`. */
  readonly tail: Buffer;
  readonly complete: boolean;
}

/** Files up to this size are read whole (then measured exactly after `\r` collapsing). */
export const WHOLE_READ_BYTES = 1024 * 1024;

export function readOutputWindow(file: string, windowBytes: number, wholeBytes = WHOLE_READ_BYTES): OutputWindow {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { sizeBytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0), complete: true };
  }
  try {
    const sizeBytes = fstatSync(fd).size;
    if (sizeBytes <= Math.max(wholeBytes, 2 * windowBytes)) {
      return { sizeBytes, head: readAt(fd, 0, sizeBytes), tail: Buffer.alloc(0), complete: true };
    }
    return {
      sizeBytes,
      head: readAt(fd, 0, windowBytes),
      tail: readAt(fd, sizeBytes - windowBytes, windowBytes),
      complete: false,
    };
  } finally {
    closeSync(fd);
  }
}

/** The last `bytes` of a file (or all of it), decoded. */
export function readOutputTail(file: string, bytes: number): { text: string; sizeBytes: number; complete: boolean } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { text: '', sizeBytes: 0, complete: true };
  }
  try {
    const sizeBytes = fstatSync(fd).size;
    const start = Math.max(0, sizeBytes - bytes);
    const buf = readAt(fd, start, sizeBytes - start);
    return { text: start === 0 ? decodeUtf8(buf) : decodeUtf8Tail(buf), sizeBytes, complete: start === 0 };
  } finally {
    closeSync(fd);
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? buf : buf.subarray(0, done);
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Decodes, turning NUL bytes (binary garbage) into U+FFFD so the text is safe to send anywhere. */
export function decodeUtf8(buf: Buffer): string {
  return decoder.decode(buf).replace(/\0/g, '\uFFFD');
}

/** Decodes a window that may end inside a multi-byte character: the partial character is dropped. */
export function decodeUtf8Head(buf: Buffer): string {
  let end = buf.length;
  // Walk back over at most 3 continuation bytes to the lead byte; drop it if its sequence is incomplete.
  for (let i = buf.length - 1; i >= 0 && i >= buf.length - 4; i--) {
    const b = buf[i]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (buf.length - i < need) end = i;
    break;
  }
  return decodeUtf8(buf.subarray(0, end));
}

/** Decodes a window that may start inside a multi-byte character: leading continuation bytes are dropped. */
export function decodeUtf8Tail(buf: Buffer): string {
  let start = 0;
  while (start < buf.length && start < 4 && (buf[start]! & 0xc0) === 0x80) start++;
  return decodeUtf8(buf.subarray(start));
}

/**
 * What a terminal would finally show: within each line, only the text after the last `\r` survives (a CRLF line
 * ending is a line ending, not an overwrite).
 */
export function collapseCarriageReturns(text: string): string {
  if (!text.includes('\r')) return text;
  return text
    .split('\n')
    .map((line) => {
      const body = line.endsWith('\r') ? line.slice(0, -1) : line;
      const last = body.lastIndexOf('\r');
      return last === -1 ? body : body.slice(last + 1);
    })
    .join('\n');
}

/** The last `n` non-empty lines of a text (for progress). */
export function lastLines(text: string, n: number): string {
  const lines = text.split('\n');
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines.slice(-n).join('\n');
}
