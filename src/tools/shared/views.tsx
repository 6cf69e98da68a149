/**
 * Ink pieces the built-in tools' views share: a coloured diff of `structuredPatch` hunks, the first lines of an output
 * with a count of the rest, and a path shown relative to the session's directory. Loaded only by the tools'
 * `render.tsx` files, which only an interactive UI loads.
 */
import path from 'node:path';
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { countPatchLines, type PatchHunk } from './patch.js';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `path` relative to `cwd` when it lies inside it (shorter to read), else as it is. */
export function displayPath(file: string | undefined, cwd: string): string {
  if (file === undefined || file === '') return '';
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** The first `max` lines of `text`, then "… +N lines" (all of them when verbose). */
export function OutputLines({ text, max, verbose, color }: { text: string; max: number; verbose: boolean; color?: string }): ReactNode {
  const lines = text.replace(/\s+$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return null;
  const shown = verbose ? lines : lines.slice(0, max);
  return (
    <Box flexDirection="column">
      <Text color={color}>{shown.join('\n')}</Text>
      {shown.length < lines.length ? <Text dimColor>… +{plural(lines.length - shown.length, 'line')}</Text> : null}
    </Box>
  );
}


/** "Added 3 lines, removed 1 line". */
export function changeSummary(hunks: readonly PatchHunk[]): string {
  const { added, removed } = countPatchLines(hunks);
  const parts = [];
  if (added > 0) parts.push(`added ${plural(added, 'line')}`);
  if (removed > 0) parts.push(`removed ${plural(removed, 'line')}`);
  const text = parts.join(', ') || 'no changes';
  return text[0]!.toUpperCase() + text.slice(1);
}

const MAX_DIFF_LINES = 40;

/**
 * Hunks as numbered lines: removals red on the old line numbers, additions green on the new ones, context dim.
 * Long diffs stop after `MAX_DIFF_LINES` unless verbose.
 */
export function DiffView({
  hunks,
  verbose,
  columns,
  numbered = true,
}: {
  hunks: readonly PatchHunk[];
  verbose: boolean;
  columns: number;
  /** Line numbers are the file's; a preview diffed from two strings has none worth showing. */
  numbered?: boolean;
}): ReactNode {
  const rows: ReactNode[] = [];
  let total = 0;
  let width = 1;
  for (const hunk of hunks) width = Math.max(width, String(hunk.oldStart + hunk.oldLines - 1).length, String(hunk.newStart + hunk.newLines - 1).length);
  const num = (n: number) => (numbered ? `${String(n).padStart(width)} ` : '');
  if (!numbered) width = 0;
  hunks.forEach((hunk, h) => {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    if (h > 0) rows.push(<Text key={`gap${h}`} dimColor>{' '.repeat(width)} ⋮</Text>);
    hunk.lines.forEach((line, i) => {
      total++;
      if (!verbose && total > MAX_DIFF_LINES) return;
      const sign = line[0];
      const body = cut(line.slice(1), columns - width - 3);
      const key = `${h}:${i}`;
      if (sign === '+') {
        rows.push(<Text key={key} color="green">{`${num(newLine++)}+${body}`}</Text>);
      } else if (sign === '-') {
        rows.push(<Text key={key} color="red">{`${num(oldLine++)}-${body}`}</Text>);
      } else if (sign === '\\') {
        total--; // "\ No newline at end of file": diff bookkeeping, not a line of the file
      } else {
        rows.push(<Text key={key} dimColor>{`${num(newLine)} ${body}`}</Text>);
        oldLine++;
        newLine++;
      }
    });
  });
  if (!verbose && total > MAX_DIFF_LINES) rows.push(<Text key="more" dimColor>… +{plural(total - MAX_DIFF_LINES, 'line')}</Text>);
  return <Box flexDirection="column">{rows}</Box>;
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\t/g, '  ');
  return max > 1 && flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
