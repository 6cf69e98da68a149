/**
 * Writing a notebook back the way it was written: the same indentation (Jupyter uses one space), the trailing
 * newline if there was one, `\u` escapes if the file used them (Python's ensure_ascii), sorted keys in cells the tool
 * creates (nbformat writes sorted keys), and source as a list of lines or one string, like its neighbours.
 */
import type { NotebookCell, NotebookSource } from '../shared/notebook.js';

export interface NotebookLayout {
  readonly indent: string | number;
  readonly trailingNewline: boolean;
  readonly asciiOnly: boolean;
  readonly sourceAsList: boolean;
}

export function detectLayout(raw: string, cells: readonly NotebookCell[]): NotebookLayout {
  const m = /^\{\r?\n([ \t]+)"/.exec(raw);
  const indent = m ? m[1]! : raw.startsWith('{"') || raw.startsWith('{ "') ? 0 : 1;
  const asciiOnly = !/[\u0080-\uffff]/.test(raw) && /\\u[0-9a-fA-F]{4}/.test(raw);
  const sourceAsList = cells.length === 0 ? true : Array.isArray(cells[0]!.source);
  return { indent, trailingNewline: /\n$/.test(raw), asciiOnly, sourceAsList };
}

export function serializeNotebook(notebook: unknown, layout: NotebookLayout): string {
  let text = JSON.stringify(notebook, null, layout.indent);
  if (layout.asciiOnly) text = text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return layout.trailingNewline ? `${text}\n` : text;
}

/** Source in the cell's own form: a list of lines that keep their `\n` (as nbformat writes it), or one string. */
export function formatSource(source: string, asList: boolean): NotebookSource {
  if (!asList) return source;
  if (source.length === 0) return [];
  const lines = source.split(/(?<=\n)/);
  return lines;
}

export function keysSorted(obj: Record<string, unknown>): boolean {
  const keys = Object.keys(obj);
  return keys.every((k, i) => i === 0 || keys[i - 1]! <= k);
}

export function sortKeys<T extends Record<string, unknown>>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as T;
}
