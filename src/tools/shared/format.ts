/**
 * How file text is shown to the model: `N<TAB>line`, numbered from 1, no padding, a tab even before a line that
 * itself starts with one — Claude Code's format, which the model was trained on (test/parity/cli/). Where lines are
 * cut (streamed huge files, edit snippets), lines longer than MAX_LINE_CHARS get a marker saying how much was left out.
 */

export const MAX_LINE_CHARS = 2000;

export function formatNumberedLine(lineNumber: number, line: string): string {
  return `${lineNumber}\t${line}`;
}

/** Lines already split (no `\n` inside), numbered from `startLine`. */
export function formatNumberedLines(lines: readonly string[], startLine: number): string {
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out += '\n';
    out += formatNumberedLine(startLine + i, lines[i]!);
  }
  return out;
}

/** Text with `\n` (or `\r\n`) line breaks, numbered; a trailing line break does not add an empty numbered line. */
export function formatWithLineNumbers(text: string, startLine: number): string {
  if (text.length === 0) return '';
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return formatNumberedLines(lines.map(stripTrailingCr), startLine);
}

export function stripTrailingCr(line: string): string {
  return line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
}

export function lineCutMarker(omittedChars: number): string {
  return `… [line truncated: ${omittedChars} more characters]`;
}

/**
 * `line` cut to MAX_LINE_CHARS with the marker; `fullLength` is the line's real length when `line` is already a
 * prefix of it (streamed huge lines). Never splits a surrogate pair.
 */
export function cutLongLine(line: string, fullLength = line.length): { text: string; cut: boolean } {
  if (fullLength <= MAX_LINE_CHARS) return { text: line, cut: false };
  let end = MAX_LINE_CHARS;
  const last = line.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { text: line.slice(0, end) + lineCutMarker(fullLength - end), cut: true };
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  if (bytes < 1024) return `${bytes} bytes`;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const rounded = value >= 100 ? Math.round(value).toString() : value.toFixed(1).replace(/\.0$/, '');
  return `${rounded}${units[unit]}`;
}

/** The rough token estimate the caps use: one token per four characters. */
export function estimateTokens(text: string | number): number {
  const chars = typeof text === 'number' ? text : text.length;
  return Math.ceil(chars / 4);
}
