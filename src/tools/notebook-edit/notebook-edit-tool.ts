/**
 * NotebookEdit: replace, insert or delete one cell of a .ipynb file, editing the parsed JSON in place so metadata,
 * other cells, key order and formatting survive; the same read-before-write and content-hash staleness as Write.
 */
import path from 'node:path';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolResultBlockParam } from '../../tool/tool.js';
import { textToolResult } from '../../tool/tool-result.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { applyLineEndings } from '../shared/encoding.js';
import { FileToolError } from '../shared/errors.js';
import { statOrNull } from '../shared/file-kind.js';
import { cellIdOf, findCellIndex, notebookLanguage, parseNotebook, sourceText, type NotebookCell } from '../shared/notebook.js';
import { countPatchLines, patchBetween } from '../shared/patch.js';
import { backfillPathField, pathForPermission, resolveToolPath, validatePathInput } from '../shared/paths.js';
import { hasChangedSinceRead, recordFileState, requireReadBeforeWrite, staleFileMessage, wholeFileRequirementError, NOT_READ_MESSAGE } from '../shared/read-state.js';
import { loadTextFileForWrite, writeTextFile } from '../shared/text-file.js';
import { diagnosticsAfterEdit } from '../shared/edit-diagnostics.js';
import { detectLayout, formatSource, keysSorted, serializeNotebook, sortKeys } from './notebook-json.js';
import { notebookEditPrompt, NOTEBOOK_EDIT_TOOL_NAME } from './prompt.js';
import { randomBytes } from '../../tool/crypto.js';

const inputSchema = z.strictObject({
  notebook_path: z.string().describe('The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)'),
  cell_id: z
    .string()
    .optional()
    .describe(
      'The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified.',
    ),
  new_source: z.string().describe('The new source for the cell'),
  cell_type: z
    .enum(['code', 'markdown'])
    .optional()
    .describe('The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required.'),
  edit_mode: z.enum(['replace', 'insert', 'delete']).optional().describe('The type of edit to make (replace, insert, delete). Defaults to replace.'),
});

export type NotebookEditInput = z.infer<typeof inputSchema>;

export interface NotebookEditOutput {
  readonly new_source: string;
  readonly cell_id?: string;
  readonly cell_type: 'code' | 'markdown';
  readonly language: string;
  readonly edit_mode: 'replace' | 'insert' | 'delete';
  readonly notebook_path: string;
  readonly original_file: string;
  readonly updated_file: string;
}

function cellNotFound(cellId: string): string {
  const m = /^cell-(\d+)$/.exec(cellId);
  return m ? `Cell with index ${Number(m[1])} does not exist in notebook.` : `Cell with ID "${cellId}" not found in notebook.`;
}

function newCell(type: 'code' | 'markdown', id: string | undefined, source: NotebookCell['source']): NotebookCell {
  const cell: NotebookCell =
    type === 'code'
      ? { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source }
      : { cell_type: 'markdown', metadata: {}, source };
  if (id !== undefined) cell.id = id;
  return sortKeys(cell);
}

function setCellType(cell: NotebookCell, type: 'code' | 'markdown'): NotebookCell {
  if (cell.cell_type === type) return cell;
  const wasSorted = keysSorted(cell);
  const next: NotebookCell = { ...cell, cell_type: type };
  if (type === 'markdown') {
    delete next.outputs;
    delete next.execution_count;
  } else {
    next.outputs = [];
    next.execution_count = null;
  }
  return wasSorted ? sortKeys(next) : next;
}

async function editNotebook(input: NotebookEditInput, context: ToolUseContext): Promise<NotebookEditOutput> {
  const absPath = resolveToolPath(input.notebook_path, context);
  const mode = input.edit_mode ?? 'replace';
  const stats = await statOrNull(absPath);
  if (!stats) throw new FileToolError('Notebook file does not exist.', 'NOT_FOUND');
  const file = await loadTextFileForWrite(absPath, stats, 'edit', context);
  const record = context.readFileState.get(absPath);
  if (requireReadBeforeWrite(context)) {
    const notRead = wholeFileRequirementError(record);
    if (notRead) throw new FileToolError(notRead, notRead.startsWith(NOT_READ_MESSAGE) ? 'NOT_READ' : 'STALE');
  }
  if (record && hasChangedSinceRead(record, file.bytes, file.stats)) {
    throw new FileToolError(staleFileMessage(record, file.text, absPath), 'STALE');
  }
  const notebook = parseNotebook(file.text);
  if (!notebook) throw new FileToolError('Notebook is not valid JSON.', 'NOTEBOOK_INVALID');
  const layout = detectLayout(file.text, notebook.cells);
  const language = notebookLanguage(notebook);
  const hasIds = (notebook.nbformat ?? 4) > 4 || ((notebook.nbformat ?? 4) === 4 && (notebook.nbformat_minor ?? 0) >= 5);

  let index = -1;
  if (input.cell_id !== undefined) {
    index = findCellIndex(notebook, input.cell_id);
    if (index === -1) throw new FileToolError(cellNotFound(input.cell_id), 'CELL_NOT_FOUND');
  }

  let cellId: string | undefined;
  let cellType: 'code' | 'markdown';
  if (mode === 'delete') {
    const [removed] = notebook.cells.splice(index, 1);
    cellId = input.cell_id;
    cellType = removed?.cell_type === 'markdown' ? 'markdown' : 'code';
  } else if (mode === 'insert') {
    cellType = input.cell_type!;
    const at = index + 1;
    const id = hasIds ? randomBytes(4).toString('hex') : undefined;
    const asList = notebook.cells[index]?.source !== undefined ? Array.isArray(notebook.cells[index]!.source) : layout.sourceAsList;
    notebook.cells.splice(at, 0, newCell(cellType, id, formatSource(input.new_source, asList)));
    cellId = id ?? `cell-${at}`;
  } else {
    let cell = notebook.cells[index]!;
    if (input.cell_type) cell = setCellType(cell, input.cell_type);
    cell.source = formatSource(input.new_source, Array.isArray(cell.source));
    if (cell.cell_type === 'code') {
      cell.execution_count = null;
      cell.outputs = [];
    }
    notebook.cells[index] = cell;
    cellId = cellIdOf(cell, index);
    cellType = cell.cell_type === 'markdown' ? 'markdown' : 'code';
  }

  let updated = serializeNotebook(notebook, layout);
  if (file.lineEndings === 'CRLF') updated = applyLineEndings(updated, 'CRLF');
  const written = await writeTextFile(absPath, updated, file.encoding, context, file.real);
  recordFileState(context, absPath, { bytes: written.bytes, stats: written.stats, text: updated, partial: false });
  return {
    new_source: input.new_source,
    cell_id: cellId,
    cell_type: cellType,
    language,
    edit_mode: mode,
    notebook_path: absPath,
    original_file: file.text,
    updated_file: updated,
  };
}

/** Lines of the cell's source the edit added and removed (from the notebook before the edit). */
export function notebookLinesChanged(output: NotebookEditOutput): { added: number; removed: number } | undefined {
  const lines = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
  if (output.edit_mode === 'insert') return { added: lines(output.new_source), removed: 0 };
  const before = parseNotebook(output.original_file);
  const index = before && output.cell_id !== undefined ? findCellIndex(before, output.cell_id) : -1;
  const old = index >= 0 ? sourceText(before!.cells[index]!.source) : undefined;
  if (old === undefined) return undefined;
  if (output.edit_mode === 'delete') return { added: 0, removed: lines(old) };
  return countPatchLines(patchBetween(old, output.new_source));
}

export function mapNotebookEditResult(output: NotebookEditOutput, toolUseId: string): ToolResultBlockParam {
  switch (output.edit_mode) {
    case 'replace':
      return textToolResult(toolUseId, `Updated cell ${output.cell_id} with ${output.new_source}`);
    case 'insert':
      return textToolResult(toolUseId, `Inserted cell ${output.cell_id} with ${output.new_source}`);
    case 'delete':
      return textToolResult(toolUseId, `Deleted cell ${output.cell_id}`);
  }
}

export const NotebookEditTool = buildTool({
  name: NOTEBOOK_EDIT_TOOL_NAME,
  asyncSafe: true,
  permissionTraits: { kind: 'write', pathField: 'notebook_path' },
  searchHint: 'edit Jupyter notebook cells (.ipynb)',
  inputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  async prompt() {
    return notebookEditPrompt();
  },
  isConcurrencySafe: () => false,
  isReadOnly: () => false,
  // A second run after a first one that finished finds the file changed since it was read (content hash) and refuses.
  isRetrySafe: () => true,
  isDestructive: (input) => input.edit_mode === 'delete',
  getPath: (input) => pathForPermission(input.notebook_path),
  linesChanged: notebookLinesChanged,
  backfillObservableInput(input, context) {
    backfillPathField(input, 'notebook_path', context);
  },
  toAutoClassifierInput: (input) => `${input.notebook_path} ${input.edit_mode ?? 'replace'}: ${input.new_source}`,
  userFacingName: () => 'Edit Notebook',
  renderToolUseMessage: (input) => `${input.notebook_path ?? ''}${input.cell_id ? ` · ${input.cell_id}` : ''}`,
  loadViews: () => import('./render.js').then((m) => m.notebookEditViews),
  renderToolResultMessage: (output) => `${output.edit_mode} cell ${output.cell_id ?? ''}`.trim(),
  async validateInput(input) {
    const pathError = validatePathInput(input.notebook_path, 'notebook_path');
    if (pathError) return { result: false, message: pathError, errorCode: 1 };
    if (path.extname(input.notebook_path).toLowerCase() !== '.ipynb') {
      return {
        result: false,
        message: 'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.',
        errorCode: 2,
      };
    }
    const mode = input.edit_mode ?? 'replace';
    if (mode === 'insert' && !input.cell_type) {
      return { result: false, message: 'Cell type is required when using edit_mode=insert.', errorCode: 5 };
    }
    if (input.cell_id === undefined && mode !== 'insert') {
      return { result: false, message: 'Cell ID must be specified when not inserting a new cell.', errorCode: 7 };
    }
    return { result: true };
  },
  async call(input, context) {
    const data = await editNotebook(input, context);
    // The file's language server, when one runs, says what the edit broke (the next turn's context).
    const newMessages = await diagnosticsAfterEdit(context);
    return newMessages.length > 0 ? { data, newMessages } : { data };
  },
  mapToolResultToToolResultBlockParam: mapNotebookEditResult,
});
