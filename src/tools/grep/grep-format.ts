/**
 * Grep's output and the texts the model reads, worded as Claude Code 2.1.328 words them (`Found 3 files`,
 * `No entries at this offset`, `[Showing results with pagination = limit: 250]`, the count-mode total line).
 */
import type { GrepOutputMode } from './grep-args.js';
import { formatDuration } from '../shared/units.js';

export interface GrepOutput {
  mode: GrepOutputMode;
  /** files_with_matches: files on this page; count: files with matches in all (not just this page); content: 0. */
  numFiles: number;
  /** files_with_matches: the page of absolute paths, newest first. */
  filenames: string[];
  /** content and count modes: the page of lines. */
  content?: string;
  /** content mode: lines on this page. */
  numLines?: number;
  /** count mode: matches in all files (not just this page). */
  numMatches?: number;
  /** files_with_matches: matching files in all, before pagination. */
  totalFiles?: number;
  /** content mode: lines in all, when the search ran to the end (it stops once a page is full). */
  totalLines?: number;
  /** Present only when entries beyond this page exist: page on with `offset`. */
  appliedLimit?: number;
  /** Present when entries were skipped with `offset`. */
  appliedOffset?: number;
  /** The time limit stopped rg: what is shown is incomplete. */
  timedOut?: boolean;
  /** The time limit that stopped it. */
  timeoutMs?: number;
  durationMs?: number;
}

export interface Page<T> {
  readonly items: T[];
  readonly appliedLimit?: number;
  readonly appliedOffset?: number;
}

/** `offset` then `head_limit` (0 = no limit); `appliedLimit` only when the limit actually cut something off. */
export function paginate<T>(items: readonly T[], headLimit: number, offset: number): Page<T> {
  const end = headLimit === 0 ? items.length : offset + headLimit;
  const truncated = headLimit !== 0 && items.length > end;
  return {
    items: items.slice(offset, end),
    ...(truncated ? { appliedLimit: headLimit } : {}),
    ...(offset > 0 ? { appliedOffset: offset } : {}),
  };
}

export function formatLimitInfo(appliedLimit: number | undefined, appliedOffset: number | undefined): string {
  const parts: string[] = [];
  if (appliedLimit !== undefined) parts.push(`limit: ${appliedLimit}`);
  if (appliedOffset !== undefined && appliedOffset > 0) parts.push(`offset: ${appliedOffset}`);
  return parts.join(', ');
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

export const NO_ENTRIES_AT_OFFSET = 'No entries at this offset';


export function timedOutNote(timeoutMs: number): string {
  return `(The search timed out after ${formatDuration(timeoutMs)}: the results above are incomplete. Narrow it with path, glob or type.)`;
}

/** The text of a Grep result. */
export function formatGrepOutput(output: GrepOutput): string {
  const text = formatBody(output);
  return output.timedOut === true ? `${text}\n\n${timedOutNote(output.timeoutMs ?? 0)}` : text;
}

function formatBody(output: GrepOutput): string {
  const limitInfo = formatLimitInfo(output.appliedLimit, output.appliedOffset);
  const pastEnd = (output.appliedOffset ?? 0) > 0;
  if (output.mode === 'content') {
    let body = output.content ?? '';
    if (body === '') body = pastEnd && (output.totalLines ?? 0) > 0 ? NO_ENTRIES_AT_OFFSET : 'No matches found';
    return limitInfo ? `${body}\n\n[Showing results with pagination = ${limitInfo}]` : body;
  }
  if (output.mode === 'count') {
    const matches = output.numMatches ?? 0;
    const files = output.numFiles;
    let body = output.content ?? '';
    if (body === '') body = pastEnd && matches > 0 ? NO_ENTRIES_AT_OFFSET : 'No matches found';
    const summary =
      `Found ${matches} total ${plural(matches, 'occurrence', 'occurrences')} across ${files} ${plural(files, 'file', 'files')}.` +
      (limitInfo ? ` with pagination = ${limitInfo}` : '');
    return `${body}\n\n${summary}`;
  }
  if (output.numFiles === 0) {
    if (pastEnd && (output.totalFiles ?? 0) > 0) {
      return `${NO_ENTRIES_AT_OFFSET}. [Showing results with pagination = ${limitInfo}]`;
    }
    return 'No files found';
  }
  const head = `Found ${output.numFiles} ${plural(output.numFiles, 'file', 'files')}${limitInfo ? ` ${limitInfo}` : ''}`;
  return `${head}\n${output.filenames.join('\n')}`;
}
