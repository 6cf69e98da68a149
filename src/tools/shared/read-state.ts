/**
 * Read-before-write and staleness, shared by Edit, Write and NotebookEdit. What was read lives in
 * `context.readFileState` (path → sha256 of the bytes, mtime, size, partial, and the text for full reads). A file
 * counts as changed when its bytes hash differently — not merely when its mtime moved (formatters that rewrite a file
 * unchanged, coarse mtime clocks, and CRLF round trips made mtime-only checks refuse good edits).
 */
import { createTwoFilesPatch } from 'diff';
import type fs from 'node:fs';
import type { FileReadRecord } from '../../tool/file-state-cache.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { sha256 } from './hash.js';

/** Claude Code's texts, verbatim. */
export const NOT_READ_MESSAGE = 'File has not been read yet. Read it first before writing to it.';
export const STALE_MESSAGE =
  'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';
/** Claude Code's ending of a successful Edit or Write: the model's view of the file is the file (no snippet follows). */
export const FILE_STATE_CURRENT_NOTE = ' (file state is current in your context — no need to Read it back)';
export const CHANGED_SINCE_READ_NOTE =
  ' (note: the file had been modified on disk since you last read it — the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)';

/** Records larger than this keep no text (the LRU bounds the total too); stale errors then cannot show a diff. */
export const MAX_RECORDED_CONTENT_CHARS = 4 * 1024 * 1024;

export function requireReadBeforeWrite(context: ToolUseContext): boolean {
  return context.options.settings.requireReadBeforeWrite !== false;
}

/** Claude Code's not-read text, plus what is missing when the model has seen only part of the file. */
export function partialReadMessage(record: FileReadRecord): string {
  const seen = (record.readRanges ?? []).map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
  const of = record.totalLines !== undefined ? ` of ${record.totalLines}` : '';
  const lines = seen ? ` You have seen lines ${seen}${of} of this version of the file.` : '';
  return `${NOT_READ_MESSAGE} A partial read does not count: read the rest with offset/limit (windows add up; once every line has been read, the file counts as read).${lines}`;
}

/**
 * Why the recorded read is not enough to change the file, or undefined when it is. Edit, Write and NotebookEdit all
 * need the whole file read: a single window (offset/limit), a PARTIAL view cut by the token cap or a page with cut
 * long lines does not count, but windows of one version of the file add up (see `recordFileState`), so a file too
 * large for one read can still be read in full and edited.
 */
export function readRequirementError(record: FileReadRecord | undefined): string | undefined {
  if (!record) return NOT_READ_MESSAGE;
  if (record.partial) return partialReadMessage(record);
  return undefined;
}

/**
 * `readRequirementError`, and for tools that replace the whole file (Write, NotebookEdit): no changes on disk the
 * model has not seen (an earlier Edit went ahead over them) — the stale text, saying why, since the file did change.
 */
export function wholeFileRequirementError(record: FileReadRecord | undefined): string | undefined {
  const notRead = readRequirementError(record);
  if (notRead !== undefined) return notRead;
  if (record?.unseenChanges === true) return `${STALE_MESSAGE} ${UNSEEN_CHANGES_NOTE}`;
  return undefined;
}

export const UNSEEN_CHANGES_NOTE =
  'An earlier Edit applied over changes made on disk that you have not read; replacing the whole file needs them in view.';

/** Whether the file on disk differs from what was read: by hash when the read had one, else by size and mtime. */
export function hasChangedSinceRead(record: FileReadRecord, bytes: Uint8Array, stats: fs.Stats): boolean {
  if (record.contentHash.length > 0) return sha256(bytes) !== record.contentHash;
  return stats.size !== record.size || stats.mtimeMs !== record.mtimeMs;
}

const MAX_DIFF_LINES = 80;

/** The refusal for a stale file: Claude Code's text, then what changed since the read as a unified diff. */
export function staleFileMessage(record: FileReadRecord, currentText: string, filePath: string, extra?: string): string {
  const head = extra ? `${STALE_MESSAGE} ${extra}` : STALE_MESSAGE;
  if (record.content === undefined) {
    return `${head}\n(The earlier read did not keep the file's text — it was partial or large — so the changes cannot be shown.)`;
  }
  const before = record.content.replace(/\r\n/g, '\n');
  const after = currentText.replace(/\r\n/g, '\n');
  const patch = createTwoFilesPatch(filePath, filePath, before, after, 'as you last read it', 'now on disk', {
    context: 2,
    maxEditLength: 5000,
  });
  if (patch === undefined) return `${head}\nThe file changed too much since your read to show a diff (over 5000 changed lines).`;
  const lines = patch.split('\n').slice(2); // drop the "Index:"/"====" preamble createTwoFilesPatch adds
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const shown = lines.slice(0, MAX_DIFF_LINES);
  const more = lines.length - shown.length;
  const tail = more > 0 ? `\n… (${more} more diff lines not shown)` : '';
  return `${head}\nWhat changed since your last read:\n${shown.join('\n')}${tail}`;
}

export interface RecordStateInput {
  readonly bytes?: Uint8Array;
  readonly contentHash?: string;
  readonly stats: fs.Stats;
  /** The file's whole decoded text, when the tool had it (not for streamed reads). */
  readonly text?: string;
  readonly partial: boolean;
  readonly truncatedByTokenCap?: boolean;
  /** The lines this read showed (1-based, inclusive), the file's line count if known, and whether none was cut. */
  readonly lines?: { readonly start: number; readonly end: number; readonly total: number | null; readonly complete: boolean };
  /** The file now holds changes the model has not read (an Edit over an external change). */
  readonly unseenChanges?: boolean;
}

type Range = readonly [number, number];

function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** Same bytes as the earlier read: by hash when both have one, else (streamed reads) by size and mtime. */
function sameVersion(prev: FileReadRecord, contentHash: string, stats: fs.Stats): boolean {
  if (prev.contentHash !== '' || contentHash !== '') return prev.contentHash === contentHash;
  return prev.size === stats.size && prev.mtimeMs === stats.mtimeMs;
}

export function recordFileState(context: ToolUseContext, absPath: string, input: RecordStateInput): void {
  const contentHash = input.contentHash ?? (input.bytes ? sha256(input.bytes) : '');
  // The whole text is kept even after a window read (when the tool had it): a stale error can then show the diff.
  const keepText = input.text !== undefined && input.text.length <= MAX_RECORDED_CONTENT_CHARS;
  // Windows of one version of the file add up: when together they cover every line, the file has been read in full.
  let partial = input.partial;
  let readRanges: Range[] | undefined;
  let totalLines: number | undefined;
  const prev = context.readFileState.get(absPath);
  const earlier = prev && sameVersion(prev, contentHash, input.stats) ? prev : undefined;
  if (input.lines) {
    totalLines = input.lines.total ?? earlier?.totalLines;
    const shown: Range[] = input.lines.complete && input.lines.end >= input.lines.start ? [[input.lines.start, input.lines.end]] : [];
    readRanges = mergeRanges([...(earlier?.readRanges ?? []), ...shown]);
    const first = readRanges[0];
    if (partial && totalLines !== undefined && first && first[0] <= 1 && first[1] >= totalLines) partial = false;
  }
  // Every line of this version is seen once the reads so far cover it: unseen changes stop being unseen then.
  const seenAll = !partial;
  // A window of a version the model already knows whole (read in full, or written by it) takes nothing away.
  if (earlier !== undefined && !earlier.partial) partial = false;
  const unseenChanges = input.unseenChanges === true || (!seenAll && earlier?.unseenChanges === true);
  context.readFileState.set(absPath, {
    contentHash,
    mtimeMs: input.stats.mtimeMs,
    size: input.stats.size,
    partial,
    truncatedByTokenCap: partial && (input.truncatedByTokenCap ?? false),
    readRanges,
    totalLines,
    timestamp: Date.now(),
    content: keepText ? input.text : undefined,
    ...(unseenChanges ? { unseenChanges } : {}),
  });
}
