/**
 * PDFs as text per page, extracted with unpdf (pdf.js, no native tools needed). `pages` is "3" or "1-5", at most
 * PDF_MAX_PAGES_PER_READ per call; a PDF of more than PDF_PAGES_REQUIRED_ABOVE pages must be read with `pages`.
 */
import type fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { FileToolError } from '../shared/errors.js';
import { readWholeFile } from '../shared/file-kind.js';
import { PDF_MAX_BYTES, PDF_MAX_PAGES_PER_READ, PDF_PAGES_REQUIRED_ABOVE } from './limits.js';
import type { PdfFileOutput } from './read-output.js';

export interface PageRange {
  readonly first: number;
  readonly last: number;
}

/** "3" → 3..3, "1-5" → 1..5 (spaces allowed around the dash); anything else → null. */
export function parsePageRange(spec: string): PageRange | null {
  const m = /^\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?$/.exec(spec);
  if (!m) return null;
  const first = Number(m[1]);
  const last = m[2] === undefined ? first : Number(m[2]);
  if (first < 1 || last < first) return null;
  return { first, last };
}

export function invalidPagesMessage(spec: string): string {
  return `Invalid pages parameter: "${spec}". Use formats like "1-5", "3", or "10-20". Pages are 1-indexed.`;
}

export function tooManyPagesMessage(spec: string): string {
  return `Page range "${spec}" exceeds maximum of ${PDF_MAX_PAGES_PER_READ} pages per request. Please use a smaller range.`;
}

/** The input-only check of `pages`, run in validateInput. An empty string is treated as absent. */
export function validatePagesInput(spec: string | undefined): string | undefined {
  if (spec === undefined || spec.trim() === '') return undefined;
  const range = parsePageRange(spec);
  if (!range) return invalidPagesMessage(spec);
  if (range.last - range.first + 1 > PDF_MAX_PAGES_PER_READ) return tooManyPagesMessage(spec);
  return undefined;
}

interface TextItemLike {
  readonly str?: string;
  readonly hasEOL?: boolean;
}

export async function readPdf(
  handle: FileHandle,
  absPath: string,
  stats: fs.Stats,
  pages: string | undefined,
  maxChars: number,
): Promise<PdfFileOutput> {
  if (stats.size > PDF_MAX_BYTES) {
    throw new FileToolError(`PDF file is too large (${stats.size} bytes; the limit is ${PDF_MAX_BYTES}).`, 'PDF_TOO_LARGE');
  }
  const bytes = await readWholeFile(handle, PDF_MAX_BYTES, stats.size);
  const { getDocumentProxy } = await import('unpdf');
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), { verbosity: 0 });
  } catch (error) {
    throw new FileToolError(`Could not read PDF ${absPath}: ${(error as Error).message}`, 'PDF_PARSE');
  }
  try {
    const total = pdf.numPages;
    const spec = pages?.trim() ? pages : undefined;
    let range: PageRange;
    if (spec === undefined) {
      if (total > PDF_PAGES_REQUIRED_ABOVE) {
        throw new FileToolError(
          `This PDF has ${total} pages, which is too many to read at once. Use the pages parameter to read specific page ranges (e.g., pages: "1-5"). Maximum ${PDF_MAX_PAGES_PER_READ} pages per request.`,
          'PDF_PAGES_REQUIRED',
        );
      }
      range = { first: 1, last: Math.max(1, total) };
    } else {
      const parsed = parsePageRange(spec);
      if (!parsed) throw new FileToolError(invalidPagesMessage(spec), 'INVALID_PAGES');
      range = parsed;
    }
    if (range.first > total) {
      throw new FileToolError(`Page range "${spec ?? range.first}" is outside this PDF, which has ${total} page${total === 1 ? '' : 's'}.`, 'PDF_PAGE_RANGE');
    }
    const last = Math.min(range.last, total);
    const out: { page: number; text: string }[] = [];
    let chars = 0;
    let truncated = false;
    for (let n = range.first; n <= last; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const text = (content.items as TextItemLike[]).map((item) => `${item.str ?? ''}${item.hasEOL ? '\n' : ''}`).join('');
      if (chars + text.length > maxChars) {
        out.push({ page: n, text: text.slice(0, Math.max(0, maxChars - chars)) });
        truncated = true;
        break;
      }
      out.push({ page: n, text });
      chars += text.length;
    }
    return { filePath: absPath, originalSize: stats.size, totalPages: total, pages: out, truncatedByTokenCap: truncated };
  } finally {
    await pdf.destroy().catch(() => {});
  }
}
