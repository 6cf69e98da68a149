/**
 * What Read returns (discriminated on `type`, like Claude Code's output: text, image, notebook, pdf) and how each
 * kind becomes a tool_result: numbered lines with their notes, an image block, notebook cells, PDF page text.
 */
import type { ToolResultBlockParam } from '../../tool/tool.js';
import {
  blocksToolResult,
  imageBlock,
  textBlock,
  textToolResult,
  type ImageMediaType,
  type ToolResultContentBlock,
} from '../../tool/tool-result.js';
import { describeEncoding, type LineEndings, type TextEncoding } from '../shared/encoding.js';
import { formatBytes, formatNumberedLines } from '../shared/format.js';

export interface TextFileOutput {
  readonly filePath: string;
  /** The lines shown, without numbers, joined with `\n` (long lines already cut, `\r` removed). */
  readonly content: string;
  readonly numLines: number;
  readonly startLine: number;
  /** Null when a streamed read of a huge file stopped before the end. */
  readonly totalLines: number | null;
  readonly truncatedByTokenCap: boolean;
  /** Lines exist after the ones shown. */
  readonly moreAfter: boolean;
  /** Estimated tokens of the window that was asked for, and the cap it was held to. */
  readonly tokenCount: number;
  readonly tokenCap: number;
  readonly encoding: TextEncoding;
  readonly lineEndings: LineEndings;
  readonly crlfLines: number;
}

export interface ImageDimensions {
  readonly originalWidth: number;
  readonly originalHeight: number;
  readonly displayWidth: number;
  readonly displayHeight: number;
}

export interface ImageFileOutput {
  readonly filePath: string;
  readonly base64: string;
  readonly type: ImageMediaType;
  readonly originalSize: number;
  readonly dimensions: ImageDimensions;
  /** What was done to fit the API's limits, in words ('' when the image went as it was). */
  readonly adjustment: string;
}

export interface NotebookCellOutput {
  readonly outputType: string;
  readonly text?: string;
  readonly image?: { readonly data: string; readonly mediaType: ImageMediaType };
}

export interface NotebookCellView {
  readonly cellId: string;
  readonly cellType: string;
  readonly source: string;
  readonly language?: string;
  readonly executionCount?: number;
  readonly outputs?: readonly NotebookCellOutput[];
}

export interface NotebookFileOutput {
  readonly filePath: string;
  readonly cells: readonly NotebookCellView[];
}

export interface PdfFileOutput {
  readonly filePath: string;
  readonly originalSize: number;
  readonly totalPages: number;
  readonly pages: readonly { readonly page: number; readonly text: string }[];
  readonly truncatedByTokenCap: boolean;
}

export type ReadOutput =
  | { readonly type: 'text'; readonly file: TextFileOutput }
  | { readonly type: 'image'; readonly file: ImageFileOutput }
  | { readonly type: 'notebook'; readonly file: NotebookFileOutput }
  | { readonly type: 'pdf'; readonly file: PdfFileOutput };

const EMPTY_FILE_REMINDER = '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>';

function reminder(text: string): string {
  return `<system-reminder>${text}</system-reminder>`;
}

function pageNote(file: TextFileOutput): string | undefined {
  const first = file.startLine;
  const last = file.startLine + file.numLines - 1;
  const total = file.totalLines === null ? 'an uncounted number of lines in' : `${file.totalLines}`;
  if (file.truncatedByTokenCap) {
    return (
      `[Truncated: PARTIAL view — showing lines ${first}-${last} of ${total} total (${file.tokenCount} tokens, cap ${file.tokenCap}). ` +
      `Call Read with offset=${last + 1} limit=${file.numLines} for the next page, or Grep to find a specific section. ` +
      'Do NOT answer from this page alone if the answer may be further in the file.]'
    );
  }
  // A window the model asked for (offset/limit) gets no note, as in Claude Code; only a streamed read of a huge file
  // that stopped before counting says the file goes on.
  if (file.moreAfter && file.totalLines === null) {
    return `Showing lines ${first}-${last} (the file continues; its total line count was not computed because it is very large). Call Read with offset=${last + 1} to continue.`;
  }
  return undefined;
}

export function textResultContent(file: TextFileOutput): string {
  if (file.numLines === 0) {
    if (file.totalLines === 0) return EMPTY_FILE_REMINDER;
    return reminder(
      `Warning: the file exists but is shorter than the provided offset (${file.startLine}). The file has ${file.totalLines ?? 'fewer'} lines.`,
    );
  }
  const notes: string[] = [];
  const page = pageNote(file);
  if (page) notes.push(page);
  if (file.encoding === 'utf16le' || file.encoding === 'latin1') {
    notes.push(`The file is encoded as ${describeEncoding(file.encoding)}; Edit and Write keep that encoding.`);
  }
  // The empty line after a final line break is its number alone, as Claude Code shows it (it trims the result's end).
  const body = formatNumberedLines(file.content.split('\n'), file.startLine).replace(/\t$/, '');
  return notes.length === 0 ? body : `${body}\n\n${notes.map(reminder).join('\n')}`;
}

function notebookBlocks(cells: readonly NotebookCellView[]): ToolResultContentBlock[] {
  const blocks: ToolResultContentBlock[] = [];
  const pushText = (text: string) => {
    const last = blocks[blocks.length - 1];
    if (last && last.type === 'text') blocks[blocks.length - 1] = textBlock(`${last.text}\n${text}`);
    else blocks.push(textBlock(text));
  };
  for (const cell of cells) {
    const tags: string[] = [];
    if (cell.cellType !== 'code') tags.push(`<cell_type>${cell.cellType}</cell_type>`);
    if (cell.cellType === 'code' && cell.language && cell.language !== 'python') tags.push(`<language>${cell.language}</language>`);
    pushText(`<cell id="${cell.cellId}">${tags.join('')}${cell.source}</cell id="${cell.cellId}">`);
    for (const output of cell.outputs ?? []) {
      if (output.text) pushText(`\n${output.text}`);
      if (output.image) blocks.push(imageBlock(output.image.data, output.image.mediaType));
    }
  }
  // Cells without outputs end with a line break, as Claude Code 2.1.332 sends them (test/parity/cli, scenario
  // notebook); after an output's text it was not recorded, so that stays as it was.
  const last = blocks[blocks.length - 1];
  if (last && last.type === 'text' && last.text.endsWith('">')) blocks[blocks.length - 1] = textBlock(`${last.text}\n`);
  return blocks;
}

function pdfText(file: PdfFileOutput): string {
  const first = file.pages[0]?.page ?? 1;
  const last = file.pages[file.pages.length - 1]?.page ?? first;
  const head = `PDF file read: ${file.filePath} (${formatBytes(file.originalSize)}), pages ${first}-${last} of ${file.totalPages}.`;
  const pages = file.pages.map((p) => {
    const text = p.text.trim().length > 0 ? p.text : '(no extractable text on this page — it may be a scanned image)';
    return `<page number="${p.page}">\n${text}\n</page>`;
  });
  const note = file.truncatedByTokenCap
    ? `\n\n${reminder('[Truncated: the extracted text exceeded the size cap and was cut. Read fewer pages at a time.]')}`
    : '';
  return `${head}\n\n${pages.join('\n\n')}${note}`;
}

export function mapReadResult(output: ReadOutput, toolUseId: string): ToolResultBlockParam {
  switch (output.type) {
    case 'text':
      return textToolResult(toolUseId, textResultContent(output.file));
    case 'image': {
      const blocks: ToolResultContentBlock[] = [imageBlock(output.file.base64, output.file.type)];
      if (output.file.adjustment) blocks.push(textBlock(output.file.adjustment));
      return blocksToolResult(toolUseId, blocks);
    }
    case 'notebook': {
      const blocks = notebookBlocks(output.file.cells);
      return blocks.length === 0
        ? textToolResult(toolUseId, reminder('Warning: the notebook exists but has no cells.'))
        : blocksToolResult(toolUseId, blocks);
    }
    case 'pdf':
      return textToolResult(toolUseId, pdfText(output.file));
  }
}
