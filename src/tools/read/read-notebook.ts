/** Notebooks as their cells with outputs: text outputs as text, image outputs as image blocks. */
import type fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { decodeText } from '../shared/encoding.js';
import { FileToolError } from '../shared/errors.js';
import { readWholeFile } from '../shared/file-kind.js';
import { formatBytes } from '../shared/format.js';
import { cellIdOf, notebookLanguage, parseNotebook, sourceText, type NotebookOutput } from '../shared/notebook.js';
import type { RecordStateInput } from '../shared/read-state.js';
import { NOTEBOOK_MAX_BYTES } from './limits.js';
import type { NotebookCellOutput, NotebookCellView, NotebookFileOutput } from './read-output.js';

/** A cell whose outputs render longer than this shows a pointer to jq instead of the outputs. */
const MAX_CELL_OUTPUT_CHARS = 10_000;

function outputView(output: NotebookOutput): NotebookCellOutput {
  const data = output.data ?? {};
  switch (output.output_type) {
    case 'stream':
      return { outputType: 'stream', text: sourceText(output.text) };
    case 'execute_result':
    case 'display_data': {
      const plain = data['text/plain'];
      const text = typeof plain === 'string' || Array.isArray(plain) ? sourceText(plain as string | string[]) : undefined;
      const png = data['image/png'];
      const jpeg = data['image/jpeg'];
      const image =
        typeof png === 'string'
          ? { data: png.replace(/\s/g, ''), mediaType: 'image/png' as const }
          : typeof jpeg === 'string'
            ? { data: jpeg.replace(/\s/g, ''), mediaType: 'image/jpeg' as const }
            : undefined;
      return { outputType: output.output_type, text, image };
    }
    case 'error':
      return { outputType: 'error', text: `${output.ename ?? 'Error'}: ${output.evalue ?? ''}\n${(output.traceback ?? []).join('\n')}` };
    default:
      return { outputType: output.output_type };
  }
}

function outputsSize(outputs: readonly NotebookCellOutput[]): number {
  return outputs.reduce((n, o) => n + (o.text?.length ?? 0) + (o.image?.data.length ?? 0), 0);
}

export interface NotebookReadResult {
  readonly output: NotebookFileOutput;
  readonly record: RecordStateInput;
}

export async function readNotebookFile(handle: FileHandle, absPath: string, stats: fs.Stats, maxChars: number): Promise<NotebookReadResult> {
  if (stats.size > NOTEBOOK_MAX_BYTES) {
    throw new FileToolError(`Notebook file (${formatBytes(stats.size)}) exceeds the maximum of ${formatBytes(NOTEBOOK_MAX_BYTES)}.`, 'NOTEBOOK_TOO_LARGE');
  }
  const bytes = await readWholeFile(handle, NOTEBOOK_MAX_BYTES, stats.size);
  const { text } = decodeText(bytes);
  const notebook = parseNotebook(text);
  if (!notebook) throw new FileToolError(`${absPath} is not a valid Jupyter notebook (it is not JSON with a "cells" array).`, 'NOTEBOOK_INVALID');
  const language = notebookLanguage(notebook);
  const cells: NotebookCellView[] = notebook.cells.map((cell, index) => {
    const cellId = cellIdOf(cell, index);
    const base = { cellId, cellType: cell.cell_type, source: sourceText(cell.source) };
    if (cell.cell_type !== 'code') return base;
    let outputs = (cell.outputs ?? []).map(outputView);
    if (outputsSize(outputs) > MAX_CELL_OUTPUT_CHARS) {
      outputs = [{ outputType: 'stream', text: `Outputs are too large to include. Use Bash with: cat "${absPath}" | jq '.cells[${index}].outputs'` }];
    }
    return { ...base, language, executionCount: cell.execution_count ?? undefined, outputs };
  });
  const size = cells.reduce((n, c) => n + c.source.length + outputsSize(c.outputs ?? []) + 40, 0);
  if (size > maxChars) {
    throw new FileToolError(
      `Notebook content (${formatBytes(size)}) exceeds maximum allowed size (${formatBytes(maxChars)}). Use Bash with jq to read specific portions:\n` +
        `  cat "${absPath}" | jq '.cells[:20]' # First 20 cells\n` +
        `  cat "${absPath}" | jq '.cells[100:120]' # Cells 100-120\n` +
        `  cat "${absPath}" | jq '.cells | length' # Count total cells\n` +
        `  cat "${absPath}" | jq '.cells[] | select(.cell_type=="code") | .source' # All code sources`,
      'NOTEBOOK_TOO_LARGE',
    );
  }
  return { output: { filePath: absPath, cells }, record: { bytes, stats, text, partial: false } };
}
