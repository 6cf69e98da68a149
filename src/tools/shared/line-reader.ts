/**
 * Reading a window of lines from a file of any size in constant memory: chunks are read (double-buffered, so the
 * next read runs while this chunk is scanned) into the newline counter's memory; lines before the window are only
 * counted, lines in it are decoded and kept (each cut to MAX_LINE_CHARS, so even a 100 MB line costs 8 KiB), and
 * nothing else is held. Line numbers stay exact: every newline before the window is counted, starting from the
 * nearest checkpoint of the line index when an earlier read left one.
 */
import type fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { FileToolError } from './errors.js';
import { cutLongLine, MAX_LINE_CHARS } from './format.js';
import { getLineIndex, nearestCheckpoint, updateLineIndex, type LineCheckpoint } from './line-index.js';
import { CHUNK_BYTES, createNewlineCounter } from './newline-counter.js';

export interface LineWindowRequest {
  /** 1-based first line. */
  readonly startLine: number;
  readonly maxLines: number;
  /** Budget for the numbered output (`N<sep>line\n` per line); the window stops before exceeding it. */
  readonly maxChars: number;
  /** Keep counting after the window so that `totalLines` is known. */
  readonly countToEof: boolean;
  /** Where the text starts (3 after a UTF-8 BOM). */
  readonly firstByte: number;
  readonly signal?: AbortSignal;
}

export interface LineWindow {
  readonly lines: string[];
  readonly startLine: number;
  /** Null when the scan stopped before the end of the file and no earlier scan counted it. */
  readonly totalLines: number | null;
  readonly truncatedByTokenCap: boolean;
  /** Some shown line was cut at MAX_LINE_CHARS (the model did not see all of it). */
  readonly cutAny: boolean;
  /** Lines exist after the window. */
  readonly moreAfter: boolean;
  readonly crlfLines: number;
  readonly lfLines: number;
  /** Estimated size of the whole requested window's numbered output (what the cap was compared against). */
  readonly windowChars: number;
}

/** Bytes kept of one line: enough for MAX_LINE_CHARS characters of up to four bytes each. */
const KEEP_BYTES = MAX_LINE_CHARS * 4 + 4;

class WindowScanner {
  line: number;
  phase: 'skip' | 'collect' | 'measure' | 'count' | 'done' = 'skip';
  readonly lines: string[] = [];
  readonly checkpoints: LineCheckpoint[] = [];
  formattedChars = 0;
  windowChars = 0;
  windowLinesSeen = 0;
  truncated = false;
  cutAny = false;
  crlf = 0;
  lf = 0;
  /** Byte offset just after the last line the window kept (or measured). */
  endOfWindowByte = -1;
  // The line being assembled across chunks.
  private readonly keep: Buffer = Buffer.allocUnsafe(KEEP_BYTES);
  private keptBytes = 0;
  private extraChars = 0;
  private lastByte = -1;
  private lineBytes = 0;

  constructor(
    private readonly req: LineWindowRequest,
    startLine: number,
    private readonly count: (buf: Buffer, start: number, end: number) => number,
  ) {
    this.line = startLine;
    if (req.startLine <= startLine) this.phase = 'collect';
  }

  process(buf: Buffer, n: number, chunkPos: number): void {
    const view = buf.subarray(0, n);
    let i = 0;
    if (this.phase === 'skip') {
      const need = this.req.startLine - this.line;
      const c = this.count(buf, 0, n);
      if (c < need) {
        this.line += c;
        this.checkpointAtLastNewline(view, chunkPos);
        return;
      }
      let nl = -1;
      for (let k = 0; k < need; k++) nl = view.indexOf(10, nl + 1);
      i = nl + 1;
      this.line = this.req.startLine;
      this.checkpoints.push({ byte: chunkPos + i, line: this.line });
      this.phase = 'collect';
    }
    while ((this.phase === 'collect' || this.phase === 'measure') && i < n) {
      const nl = view.indexOf(10, i);
      if (nl === -1) {
        this.append(view, i, n);
        return;
      }
      this.append(view, i, nl);
      this.finishLine(chunkPos + nl + 1);
      i = nl + 1;
    }
    if (this.phase === 'count' && i < n) {
      this.line += this.count(buf, i, n);
      this.checkpointAtLastNewline(view, chunkPos);
    }
  }

  /** At end of file: a last line without a trailing newline still counts. */
  finish(fileEndByte: number): void {
    if ((this.phase === 'collect' || this.phase === 'measure') && this.lineBytes > 0) this.finishLine(fileEndByte);
  }

  private checkpointAtLastNewline(view: Buffer, chunkPos: number): void {
    const last = view.lastIndexOf(10);
    if (last !== -1) this.checkpoints.push({ byte: chunkPos + last + 1, line: this.line });
  }

  private append(view: Buffer, start: number, end: number): void {
    if (end <= start) return;
    this.lineBytes += end - start;
    this.lastByte = view[end - 1]!;
    if (this.phase === 'measure') return;
    const room = KEEP_BYTES - this.keptBytes;
    const take = Math.min(room, end - start);
    if (take > 0) {
      view.copy(this.keep, this.keptBytes, start, start + take);
      this.keptBytes += take;
    }
    for (let j = start + take; j < end; j++) if ((view[j]! & 0xc0) !== 0x80) this.extraChars++;
  }

  private finishLine(nextLineByte: number): void {
    const isCr = this.lastByte === 13;
    const lineNumber = this.line;
    this.line++;
    this.windowLinesSeen++;
    if (this.phase === 'measure') {
      this.windowChars += String(lineNumber).length + 2 + Math.min(this.lineBytes, MAX_LINE_CHARS + 40);
    } else {
      let text = this.keep.toString('utf8', 0, this.keptBytes);
      let extra = this.extraChars;
      if (isCr) {
        if (extra > 0) extra--;
        else text = text.slice(0, -1);
      }
      if (isCr) this.crlf++;
      else this.lf++;
      const { text: cut, cut: wasCut } = cutLongLine(text, text.length + extra);
      const cost = String(lineNumber).length + 2 + cut.length;
      this.windowChars += cost;
      if (this.lines.length > 0 && this.formattedChars + cost > this.req.maxChars) {
        this.truncated = true;
        this.phase = 'measure';
      } else {
        this.lines.push(cut);
        this.cutAny ||= wasCut;
        this.formattedChars += cost;
        this.endOfWindowByte = nextLineByte;
      }
    }
    this.keptBytes = 0;
    this.extraChars = 0;
    this.lineBytes = 0;
    this.lastByte = -1;
    if (this.windowLinesSeen >= this.req.maxLines) this.phase = this.req.countToEof ? 'count' : 'done';
  }
}

export async function readLineWindow(
  handle: FileHandle,
  absPath: string,
  stats: fs.Stats,
  req: LineWindowRequest,
): Promise<LineWindow> {
  const index = getLineIndex(absPath, stats);
  const from = nearestCheckpoint(index, req.startLine) ?? { byte: req.firstByte, line: 1 };
  const counter = createNewlineCounter();
  const scanner = new WindowScanner(req, from.line, counter.count);
  const knownTotal = index?.totalLines;
  const wantsMore = () => scanner.phase !== 'done' && !(scanner.phase === 'count' && knownTotal !== undefined);

  let pos = from.byte;
  let cur = 0;
  let lastByteOfFile = -1;
  let reachedEof = false;
  let pending: Promise<{ bytesRead: number }> | null = handle.read(counter.buffers[0], 0, CHUNK_BYTES, pos);
  try {
    while (pending) {
      const { bytesRead } = await pending;
      pending = null;
      if (bytesRead === 0) {
        reachedEof = true;
        break;
      }
      if (req.signal?.aborted) throw new FileToolError('The read was interrupted.', 'ABORTED');
      const buf = counter.buffers[cur]!;
      const chunkPos = pos;
      pos += bytesRead;
      cur ^= 1;
      // Start the next read before scanning this chunk: the kernel copy and the scan overlap.
      pending = handle.read(counter.buffers[cur]!, 0, CHUNK_BYTES, pos);
      scanner.process(buf, bytesRead, chunkPos);
      lastByteOfFile = buf[bytesRead - 1]!;
      if (!wantsMore()) break;
    }
  } finally {
    // Never let the caller close the handle under a read still in flight.
    if (pending) await pending.catch(() => {});
  }
  // `line` is now 1 + the newlines seen: the number of the line that holds the end of the file. When the file ends
  // with a newline (or nothing was read from a line start), that line is empty and does not count.
  const lineAtEnd = scanner.line;
  if (reachedEof) scanner.finish(pos);

  let totalLines: number | null = null;
  if (reachedEof) {
    const endsAtLineStart = lastByteOfFile === 10 || lastByteOfFile === -1;
    totalLines = endsAtLineStart ? lineAtEnd - 1 : lineAtEnd;
  } else if (scanner.phase === 'done' && scanner.endOfWindowByte === stats.size) {
    // The window ended with the file's last newline: the end is known without another read.
    totalLines = scanner.line - 1;
  } else if (knownTotal !== undefined) {
    totalLines = knownTotal;
  }
  updateLineIndex(absPath, stats, scanner.checkpoints, reachedEof ? (totalLines ?? undefined) : undefined);

  const startLine = req.startLine;
  const lastShown = startLine + scanner.lines.length - 1;
  const moreAfter =
    totalLines !== null ? lastShown < totalLines : scanner.endOfWindowByte >= 0 && scanner.endOfWindowByte < stats.size;
  return {
    lines: scanner.lines,
    startLine,
    totalLines,
    truncatedByTokenCap: scanner.truncated,
    cutAny: scanner.cutAny,
    moreAfter,
    crlfLines: scanner.crlf,
    lfLines: scanner.lf,
    windowChars: scanner.windowChars,
  };
}
