/**
 * The diff an Edit or Write reports (`structuredPatch` hunks from `diff`) and the numbered snippet the model sees.
 * Diffing is confined to the changed region plus context, so one edit in a 50 MB file costs a diff of a few lines,
 * not of the whole file.
 */
import { structuredPatch } from 'diff';
import { cutLongLine, formatNumberedLines } from './format.js';

export interface PatchHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: string[];
}

const CONTEXT_LINES = 3;
const SNIPPET_CONTEXT = 4;
const SNIPPET_MAX_LINES = 80;

/** 1-based line number of the character at `index`. */
export function lineNumberAt(text: string, index: number): number {
  let line = 1;
  let i = text.indexOf('\n');
  while (i !== -1 && i < index) {
    line++;
    i = text.indexOf('\n', i + 1);
  }
  return line;
}

/** Index where the line holding `index` starts, after moving back `extraLines` more lines. */
function lineStartBefore(text: string, index: number, extraLines: number): number {
  let start = index <= 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1;
  for (let k = 0; k < extraLines && start > 0; k++) start = text.lastIndexOf('\n', start - 2) + 1;
  return start;
}

/** Index just after the line holding `index` ends (after its `\n`), moving on `extraLines` more lines. */
function lineEndAfter(text: string, index: number, extraLines: number): number {
  let end = text.indexOf('\n', index);
  end = end === -1 ? text.length : end + 1;
  for (let k = 0; k < extraLines && end < text.length; k++) {
    const next = text.indexOf('\n', end);
    end = next === -1 ? text.length : next + 1;
  }
  return end;
}

/** Length of the common prefix and (non-overlapping) common suffix of two texts. */
export function changedSpan(oldText: string, newText: string): { start: number; oldEnd: number; newEnd: number } {
  const max = Math.min(oldText.length, newText.length);
  let start = 0;
  while (start < max && oldText.charCodeAt(start) === newText.charCodeAt(start)) start++;
  let suffix = 0;
  while (
    suffix < max - start &&
    oldText.charCodeAt(oldText.length - 1 - suffix) === newText.charCodeAt(newText.length - 1 - suffix)
  ) {
    suffix++;
  }
  return { start, oldEnd: oldText.length - suffix, newEnd: newText.length - suffix };
}

/**
 * Hunks between `oldText` and `newText`, which are equal outside `[start, oldEnd)` / `[start, newEnd)`. Both texts use
 * `\n` line breaks.
 */
/**
 * `startLine` (optional) is the 1-based line holding `span.start`, when the caller already knows it: it saves a scan
 * of everything before the change.
 */
export function patchForSpan(
  oldText: string,
  newText: string,
  span: { start: number; oldEnd: number; newEnd: number },
  startLine?: number,
): PatchHunk[] {
  if (oldText === newText) return [];
  const from = lineStartBefore(oldText, span.start, CONTEXT_LINES);
  const oldTo = lineEndAfter(oldText, Math.max(span.start, span.oldEnd - 1), CONTEXT_LINES);
  const newTo = oldTo + (newText.length - oldText.length);
  const lineOffset =
    startLine === undefined ? lineNumberAt(oldText, from) - 1 : startLine - 1 - countNewlines(oldText, from, span.start);
  const oldSlice = oldText.slice(from, oldTo);
  const newSlice = newText.slice(from, Math.max(from, newTo));
  const patch = structuredPatch('', '', oldSlice, newSlice, '', '', { context: CONTEXT_LINES, maxEditLength: 20_000 });
  const hunks: PatchHunk[] =
    patch?.hunks ?? [
      {
        // Too different to diff cheaply: one hunk that replaces the region.
        oldStart: 1,
        oldLines: oldSlice.split('\n').length - (oldSlice.endsWith('\n') ? 1 : 0),
        newStart: 1,
        newLines: newSlice.split('\n').length - (newSlice.endsWith('\n') ? 1 : 0),
        lines: [
          ...splitLines(oldSlice).map((l) => `-${l}`),
          ...splitLines(newSlice).map((l) => `+${l}`),
        ],
      },
    ];
  return hunks.map((h) => ({ ...h, oldStart: h.oldStart + lineOffset, newStart: h.newStart + lineOffset }));
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Lines a patch adds and removes (`+` and `-` lines; `\\ No newline` markers are not lines). */
export function countPatchLines(hunks: readonly PatchHunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

export function patchBetween(oldText: string, newText: string): PatchHunk[] {
  return patchForSpan(oldText, newText, changedSpan(oldText, newText));
}

export interface Snippet {
  readonly startLine: number;
  /** Numbered (`N<TAB>line`), long lines cut. */
  readonly text: string;
}

/** Index where 1-based line `line` starts (text.length when the text has fewer lines). */
function indexOfLine(text: string, line: number): number {
  let index = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', index);
    if (nl === -1) return text.length;
    index = nl + 1;
  }
  return index;
}

/**
 * Lines `[firstLine, lastLine]` of `text` with SNIPPET_CONTEXT lines around them, numbered, at most 80 lines. Only
 * the lines shown are split out: a snippet of a 50 MB file costs a scan, not 600,000 strings.
 */
export function snippetOf(text: string, firstLine: number, lastLine: number, firstLineIndex?: number): Snippet {
  if (text.length === 0) return { startLine: 1, text: '' };
  const start = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const end = Math.max(lastLine, firstLine) + SNIPPET_CONTEXT;
  const shown: string[] = [];
  let index: number;
  if (firstLineIndex === undefined) {
    index = indexOfLine(text, start);
  } else {
    // Walk back from a known position in `firstLine` instead of scanning from the top.
    index = text.lastIndexOf('\n', firstLineIndex - 1) + 1;
    for (let l = firstLine; l > start; l--) index = text.lastIndexOf('\n', index - 2) + 1;
  }
  let line = start;
  while (line <= end && index < text.length && shown.length < SNIPPET_MAX_LINES) {
    const nl = text.indexOf('\n', index);
    const raw = text.slice(index, nl === -1 ? text.length : nl);
    shown.push(cutLongLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw).text);
    index = nl === -1 ? text.length : nl + 1;
    line++;
  }
  let more = 0;
  while (line <= end && index < text.length) {
    const nl = text.indexOf('\n', index);
    index = nl === -1 ? text.length : nl + 1;
    line++;
    more++;
  }
  const tail = more > 0 ? `\n… (${more} more changed line${more === 1 ? '' : 's'} not shown)` : '';
  return { startLine: start, text: formatNumberedLines(shown, start) + tail };
}

/** The snippet around the lines the hunks actually changed (not their context) in the new text. */
export function snippetForHunks(newText: string, hunks: readonly PatchHunk[]): Snippet {
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const hunk of hunks) {
    let line = hunk.newStart;
    for (const l of hunk.lines) {
      const c = l.charAt(0);
      if (c === ' ') line++;
      else if (c === '+' || c === '-') {
        first = Math.min(first, line);
        last = Math.max(last, line);
        if (c === '+') line++;
      }
    }
  }
  if (last === 0) return snippetOf(newText, 1, 1);
  return snippetOf(newText, first, last);
}
