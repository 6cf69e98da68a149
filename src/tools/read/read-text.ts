/**
 * Text files. Up to IN_MEMORY_MAX_BYTES a file is read whole: binary check, encoding (UTF-8 ± BOM, UTF-16LE, Latin-1
 * fallback), line endings, sha256 for `readFileState`. Larger files are streamed (UTF-8 only) in constant memory; a
 * read without offset/limit is refused past the hard cap. Either way the window is held to the token cap, and a window
 * cut short by the cap is reported as a PARTIAL view.
 */
import type fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { binaryContentMessage, BINARY_CHECK_BYTES, isBinaryContent, isBinaryText } from '../shared/binary.js';
import { countLineEndings, decodeText, hasUtf16BeBom, hasUtf16LeBom, hasUtf8Bom, lineEndingsOf } from '../shared/encoding.js';
import { FileToolError } from '../shared/errors.js';
import { readWholeFile } from '../shared/file-kind.js';
import { estimateTokens, formatBytes, stripTrailingCr } from '../shared/format.js';
import { readLineWindow } from '../shared/line-reader.js';
import type { RecordStateInput } from '../shared/read-state.js';
import {
  COUNT_TO_EOF_MAX_BYTES,
  IN_MEMORY_MAX_BYTES,
  UNPAGED_MAX_BYTES,
  UTF16_MAX_BYTES,
  WHOLE_READ_MAX_BYTES,
} from './limits.js';
import type { TextFileOutput } from './read-output.js';

export interface TextReadRequest {
  readonly offset?: number;
  readonly limit?: number;
  readonly maxTokens: number;
  /** The model's `allow_large`: no size or token refusal, the window is held to the cap (a PARTIAL view) instead. */
  readonly allowLarge?: boolean;
  readonly signal?: AbortSignal;
}

export interface TextReadResult {
  readonly output: TextFileOutput;
  readonly record: RecordStateInput;
}

const READ_ANYWAY =
  'Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. ' +
  'To read it anyway, up to what still fits in your context, call Read again with allow_large: true — only if you genuinely need all of it or the user asked for the whole file.';

/** Claude Code's refusals of a read too large for one result, word for word, sent without <tool_use_error>. */
function tooLargeForOneRead(what: string, max: string): FileToolError {
  return new FileToolError(`File content (${what}) exceeds maximum allowed ${max}. ${READ_ANYWAY}`, 'FILE_TOO_LARGE', { unwrapped: true });
}

export function fileTooLargeMessage(size: number, max: number): string {
  return `File content (${formatBytes(size)}) exceeds maximum allowed size (${formatBytes(max)}). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.`;
}

function windowOf(request: TextReadRequest): { startLine: number; maxLines: number; explicit: boolean } {
  const explicit = request.offset !== undefined || request.limit !== undefined;
  // Claude Code's coercions: offset 0 or negative means the start, a limit of 0 or less means none. Without a limit,
  // Claude Code 2.1.332 shows the whole file up to the token cap (no line window: test/parity/cli/).
  const startLine = request.offset === undefined || request.offset < 1 ? 1 : Math.floor(request.offset);
  const maxLines = request.limit === undefined || request.limit < 1 ? Number.POSITIVE_INFINITY : Math.floor(request.limit);
  return { startLine, maxLines, explicit };
}

async function readHead(handle: FileHandle): Promise<Buffer> {
  const head = Buffer.alloc(BINARY_CHECK_BYTES);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  return head.subarray(0, bytesRead);
}

export async function readTextFile(
  handle: FileHandle,
  absPath: string,
  stats: fs.Stats,
  request: TextReadRequest,
): Promise<TextReadResult> {
  const { startLine, maxLines, explicit } = windowOf(request);
  if (!explicit && stats.size > UNPAGED_MAX_BYTES) throw new FileToolError(fileTooLargeMessage(stats.size, UNPAGED_MAX_BYTES), 'FILE_TOO_LARGE');
  if (!explicit && request.allowLarge !== true && stats.size > WHOLE_READ_MAX_BYTES) {
    throw tooLargeForOneRead(formatBytes(stats.size), `size (${formatBytes(WHOLE_READ_MAX_BYTES)})`);
  }
  const head = await readHead(handle);
  const utf16 = checkHead(head, absPath);
  const maxChars = request.maxTokens * 4;
  if (stats.size <= IN_MEMORY_MAX_BYTES || (utf16 && stats.size <= UTF16_MAX_BYTES)) {
    const refuseOverCap = explicit && request.allowLarge !== true;
    return readWhole(handle, absPath, stats, { startLine, maxLines, maxChars, maxTokens: request.maxTokens, utf16, head, refuseOverCap });
  }
  if (utf16) throw new FileToolError(fileTooLargeMessage(stats.size, UTF16_MAX_BYTES).replace('File content', 'UTF-16 file content'), 'FILE_TOO_LARGE');
  const window = await readLineWindow(handle, absPath, stats, {
    startLine,
    maxLines,
    maxChars,
    countToEof: stats.size <= COUNT_TO_EOF_MAX_BYTES,
    firstByte: hasUtf8Bom(head) ? 3 : 0,
    signal: request.signal,
  });
  const lineEndings = lineEndingsOf({ crlf: window.crlfLines, lf: window.lfLines });
  const output: TextFileOutput = {
    filePath: absPath,
    content: window.lines.join('\n'),
    numLines: window.lines.length,
    startLine,
    totalLines: window.totalLines,
    truncatedByTokenCap: window.truncatedByTokenCap,
    moreAfter: window.moreAfter,
    tokenCount: estimateTokens(window.windowChars),
    tokenCap: request.maxTokens,
    encoding: hasUtf8Bom(head) ? 'utf8-bom' : 'utf8',
    lineEndings: lineEndings === 'none' ? 'LF' : lineEndings,
    crlfLines: window.crlfLines,
  };
  // A streamed read is never the whole file, and the file is never hashed (that would mean reading all of it).
  const lines = { start: startLine, end: startLine + window.lines.length - 1, total: window.totalLines, complete: !window.cutAny };
  return { output, record: { contentHash: '', stats, partial: true, truncatedByTokenCap: window.truncatedByTokenCap, lines } };
}

/**
 * A small file already read whole (read-small.ts): the checks and the window of a whole read, from those bytes. The
 * caller took it only under IN_MEMORY_MAX_BYTES, so the size cap does not apply.
 */
export function readTextBytes(bytes: Buffer, absPath: string, stats: fs.Stats, request: TextReadRequest): TextReadResult {
  const { startLine, maxLines, explicit } = windowOf(request);
  const utf16 = checkHead(bytes.subarray(0, BINARY_CHECK_BYTES), absPath);
  const refuseOverCap = explicit && request.allowLarge !== true;
  return wholeText(bytes, absPath, stats, { startLine, maxLines, maxChars: request.maxTokens * 4, maxTokens: request.maxTokens, utf16, head: bytes, refuseOverCap });
}

/** Refuses what the first bytes show cannot be read as text; says whether they begin UTF-16LE. */
function checkHead(head: Buffer, absPath: string): boolean {
  const utf16 = hasUtf16LeBom(head);
  if (hasUtf16BeBom(head)) {
    throw new FileToolError(`${absPath} is encoded as UTF-16BE, which this tool does not read. Convert it with iconv via Bash.`, 'UNSUPPORTED_ENCODING');
  }
  if (!utf16 && isBinaryContent(head)) throw new FileToolError(binaryContentMessage(absPath), 'BINARY_FILE');
  return utf16;
}

interface WholeReadOptions {
  readonly startLine: number;
  readonly maxLines: number;
  readonly maxChars: number;
  readonly maxTokens: number;
  readonly utf16: boolean;
  /** The first BINARY_CHECK_BYTES, already read. */
  readonly head: Buffer;
  /** An offset/limit window over the token cap is refused (Claude Code's error) rather than cut to a PARTIAL view. */
  readonly refuseOverCap?: boolean;
}

async function readWhole(handle: FileHandle, absPath: string, stats: fs.Stats, opts: WholeReadOptions): Promise<TextReadResult> {
  const limit = opts.utf16 ? UTF16_MAX_BYTES : IN_MEMORY_MAX_BYTES;
  // A file shorter than the head is all in it: the read stopped short at its end, and its size agrees with the stat's
  // (a /proc file says 0 and a sysfs one 4096, so they are read again, in full). A file under 8 KB: one read, not three.
  const whole = opts.head.length < BINARY_CHECK_BYTES && opts.head.length === stats.size;
  const bytes = whole ? opts.head : await readWholeFile(handle, limit, stats.size);
  return wholeText(bytes, absPath, stats, opts);
}

function wholeText(bytes: Buffer, absPath: string, stats: fs.Stats, opts: WholeReadOptions): TextReadResult {
  if (!opts.utf16 && isBinaryContent(bytes)) throw new FileToolError(binaryContentMessage(absPath), 'BINARY_FILE');
  const { text, encoding } = decodeText(bytes);
  if (opts.utf16 && isBinaryText(text)) throw new FileToolError(binaryContentMessage(absPath), 'BINARY_FILE');
  const counts = countLineEndings(text);
  // A final line break ends one more (empty) line, which is shown and counted, as Claude Code does.
  const all = text.length === 0 ? [] : text.split('\n');
  const totalLines = all.length;

  const shown: string[] = [];
  let chars = 0;
  let windowChars = 0;
  let truncated = false;
  const end = Math.min(totalLines, opts.startLine - 1 + opts.maxLines);
  if (opts.refuseOverCap) {
    // Claude Code estimates the window's own text (line breaks included, no numbers) at four characters a token.
    let raw = 0;
    for (let i = opts.startLine - 1; i < end; i++) raw += all[i]!.length + 1;
    const tokens = Math.ceil(raw / 4);
    if (tokens > opts.maxTokens) throw tooLargeForOneRead(`${tokens} tokens`, `tokens (${opts.maxTokens})`);
  }
  for (let i = opts.startLine - 1; i < end; i++) {
    // Long lines are shown whole, as Claude Code shows them: the token cap bounds the result.
    const line = stripTrailingCr(all[i]!);
    const cost = String(i + 1).length + 2 + line.length;
    windowChars += cost;
    if (truncated) continue;
    if (shown.length > 0 && chars + cost > opts.maxChars) {
      truncated = true;
      continue;
    }
    shown.push(line);
    chars += cost;
  }
  const lastShown = opts.startLine - 1 + shown.length;
  const output: TextFileOutput = {
    filePath: absPath,
    content: shown.join('\n'),
    numLines: shown.length,
    startLine: opts.startLine,
    totalLines,
    truncatedByTokenCap: truncated,
    moreAfter: lastShown < totalLines && shown.length > 0,
    tokenCount: estimateTokens(windowChars),
    tokenCap: opts.maxTokens,
    encoding,
    lineEndings: lineEndingsOf(counts),
    crlfLines: counts.crlf,
  };
  // Whole means every line: a window leaves the read partial.
  const partial = opts.startLine > 1 || lastShown < totalLines;
  const lines = { start: opts.startLine, end: lastShown, total: totalLines, complete: true };
  return { output, record: { bytes, stats, text, partial, truncatedByTokenCap: truncated, lines } };
}
