/**
 * The slice of the Jupyter notebook format (nbformat 4) the file tools touch. Everything else in a notebook — metadata,
 * unknown keys, key order — is carried through untouched, because edits work on the parsed JSON in place.
 */

export type NotebookSource = string | string[];

export interface NotebookOutput {
  output_type: string;
  text?: NotebookSource;
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  [key: string]: unknown;
}

export interface NotebookCell {
  cell_type: string;
  id?: string;
  source: NotebookSource;
  metadata?: Record<string, unknown>;
  execution_count?: number | null;
  outputs?: NotebookOutput[];
  [key: string]: unknown;
}

export interface Notebook {
  cells: NotebookCell[];
  metadata?: { language_info?: { name?: string }; [key: string]: unknown };
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

export function sourceText(source: NotebookSource | undefined): string {
  if (source === undefined) return '';
  return Array.isArray(source) ? source.join('') : source;
}

/** Parses and checks the shape the tools rely on; null when it is not a notebook. */
export function parseNotebook(text: string): Notebook | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const cells = (value as { cells?: unknown }).cells;
  if (!Array.isArray(cells)) return null;
  for (const cell of cells) {
    if (cell === null || typeof cell !== 'object' || typeof (cell as { cell_type?: unknown }).cell_type !== 'string') return null;
  }
  return value as Notebook;
}

export function notebookLanguage(notebook: Notebook): string {
  const name = notebook.metadata?.language_info?.name;
  return typeof name === 'string' && name.length > 0 ? name : 'python';
}

/** The id a cell is addressed by: its own id (nbformat ≥ 4.5), else `cell-N` by position. */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return typeof cell.id === 'string' && cell.id.length > 0 ? cell.id : `cell-${index}`;
}

/** Finds a cell by id, falling back to the `cell-N` positional form; -1 when there is none. */
export function findCellIndex(notebook: Notebook, cellId: string): number {
  const byId = notebook.cells.findIndex((cell) => cell.id === cellId);
  if (byId !== -1) return byId;
  const m = /^cell-(\d+)$/.exec(cellId);
  if (!m) return -1;
  const index = Number(m[1]);
  return index < notebook.cells.length ? index : -1;
}
