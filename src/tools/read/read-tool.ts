/**
 * Read: text with line numbers, images, PDFs and notebooks. Everything that touches the filesystem happens in
 * `call()` — after the permission decision — so a denied path is never opened, statted or described to the model;
 * and what `call()` opens is bound to what the decision judged (shared/opened-file.ts): a link flipped in between to
 * a denied or unchecked file is refused before a byte of it is read.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { binaryExtensionMessage, fileExtension, hasBinaryExtension } from '../shared/binary.js';
import { FileToolError } from '../shared/errors.js';
import { directoryReadMessage, isBlockedDevicePath, notRegularFileMessage, openRegularFile, statOrNullSync } from '../shared/file-kind.js';
import {
  backfillPathField,
  fileNotFoundMessage,
  getToolCwd,
  pathForPermission,
  resolveToolPath,
  screenshotAlternative,
  suggestSimilarPath,
  validatePathInput,
} from '../shared/paths.js';
import { recordFileState } from '../shared/read-state.js';
import { maxReadTokens, PDF_MAX_PAGES_PER_READ } from './limits.js';
import { readPrompt, READ_TOOL_NAME } from './prompt.js';
import { IMAGE_EXTENSIONS, readImage } from './read-image.js';
import { readNotebookFile } from './read-notebook.js';
import { mapReadResult, type ReadOutput } from './read-output.js';
import { readPdf, validatePagesInput } from './read-pdf.js';
import { readSmallFileSync, SMALL_READ_MAX_BYTES } from '../shared/read-small.js';
import { readTextBytes, readTextFile } from './read-text.js';

const inputSchema = z.strictObject({
  file_path: z.string().describe('The absolute path to the file to read'),
  offset: z
    .number()
    .int()
    .optional()
    .describe('The line number to start reading from (1-based). Only provide if the file is too large to read at once'),
  limit: z.number().int().optional().describe('The number of lines to read. Only provide if the file is too large to read at once.'),
  pages: z
    .string()
    .optional()
    .describe(`Page range for PDF files (e.g., "1-5", "3", "10-20"). Only applicable to PDF files. Maximum ${PDF_MAX_PAGES_PER_READ} pages per request.`),
  allow_large: z
    .boolean()
    .optional()
    .describe('Read a text file past the size and token limits, as much as one result holds. Only when you need all of it or the user asked for the whole file.'),
});

export type ReadInput = z.infer<typeof inputSchema>;

async function readFile(input: ReadInput, context: ToolUseContext): Promise<ReadOutput> {
  const requested = resolveToolPath(input.file_path, context);
  if (isBlockedDevicePath(requested)) {
    throw new FileToolError(`Cannot read ${requested}: device files like this one block or never end.`, 'BLOCKED_DEVICE');
  }
  let absPath = requested;
  // Before anything is opened (file-kind.ts); synchronous, as the permission check that resolved this path was.
  let stats = statOrNullSync(absPath);
  const alternative = stats ? undefined : screenshotAlternative(absPath);
  if (alternative) {
    stats = statOrNullSync(alternative);
    if (stats) absPath = alternative;
  }
  const checked = { context, access: 'read' } as const;
  // Claude Code sends these two without <tool_use_error>, a directory in Node's own words, to which toolgate adds the
  // tools that list one (README.md).
  if (!stats) throw new FileToolError(fileNotFoundMessage(getToolCwd(context), await suggestSimilarPath(requested, checked)), 'NOT_FOUND', { unwrapped: true });
  if (stats.isDirectory()) throw new FileToolError(directoryReadMessage(absPath), 'EISDIR', { unwrapped: true });
  if (!stats.isFile()) throw new FileToolError(notRegularFileMessage(absPath, stats, 'read'), 'NOT_REGULAR_FILE');

  const ext = fileExtension(absPath);
  const isSpecial = IMAGE_EXTENSIONS.has(ext) || ext === 'pdf' || ext === 'ipynb';
  if (!isSpecial && hasBinaryExtension(absPath)) throw new FileToolError(binaryExtensionMessage(absPath), 'BINARY_FILE');
  const maxTokens = maxReadTokens();
  const textRequest = { offset: input.offset, limit: input.limit, maxTokens, allowLarge: input.allow_large === true, signal: context.abortController.signal };
  // A small text file: read now, without the thread pool (read-small.ts). A stat size of 0 (a /proc file) is not
  // believed small: it is read through a handle, as before.
  const small = !isSpecial && stats.size > 0 && stats.size <= SMALL_READ_MAX_BYTES ? readSmallFileSync(absPath, stats, checked) : undefined;
  if (small !== undefined) {
    const { output, record } = readTextBytes(small, absPath, stats, textRequest);
    recordFileState(context, absPath, record);
    return { type: 'text', file: output };
  }
  const handle = await openRegularFile(absPath, stats, checked);
  try {
    if (IMAGE_EXTENSIONS.has(ext)) return { type: 'image', file: await readImage(handle, absPath, stats) };
    if (ext === 'pdf') return { type: 'pdf', file: await readPdf(handle, absPath, stats, input.pages, maxTokens * 4) };
    if (ext === 'ipynb') {
      const { output, record } = await readNotebookFile(handle, absPath, stats, maxTokens * 4);
      recordFileState(context, absPath, record);
      return { type: 'notebook', file: output };
    }
    const { output, record } = await readTextFile(handle, absPath, stats, textRequest);
    recordFileState(context, absPath, record);
    return { type: 'text', file: output };
  } finally {
    // Not awaited: the result does not wait a thread-pool round trip for a read-only descriptor to close (a failure
    // to close one is nothing the model could act on, and was ignored before too).
    void handle.close().catch(() => {});
  }
}

function rangeLabel(input: Partial<ReadInput>): string {
  if (input.pages) return ` · pages ${input.pages}`;
  if (input.offset === undefined && input.limit === undefined) return '';
  const from = input.offset ?? 1;
  return input.limit === undefined ? ` · from line ${from}` : ` · lines ${from}-${from + input.limit - 1}`;
}

export const ReadTool = buildTool({
  name: READ_TOOL_NAME,
  asyncSafe: true,
  permissionTraits: { kind: 'read', pathField: 'file_path' },
  searchHint: 'read files, images, PDFs, notebooks',
  inputSchema,
  maxResultSizeChars: Infinity,
  strict: true,
  async prompt() {
    return readPrompt(maxReadTokens());
  },
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  getPath: (input) => pathForPermission(input.file_path),
  backfillObservableInput(input, context) {
    backfillPathField(input, 'file_path', context);
  },
  toAutoClassifierInput: (input) => input.file_path,
  userFacingName: () => READ_TOOL_NAME,
  renderToolUseMessage: (input) => `${input.file_path ?? ''}${rangeLabel(input)}`,
  loadViews: () => import('./render.js').then((m) => m.readViews),
  renderToolResultMessage(output) {
    switch (output.type) {
      case 'text':
        return `Read ${output.file.numLines} line${output.file.numLines === 1 ? '' : 's'}${output.file.truncatedByTokenCap ? ' (partial)' : ''}`;
      case 'image':
        return `Read image (${output.file.dimensions.displayWidth}x${output.file.dimensions.displayHeight})`;
      case 'notebook':
        return `Read ${output.file.cells.length} cells`;
      case 'pdf':
        return `Read ${output.file.pages.length} PDF page${output.file.pages.length === 1 ? '' : 's'}`;
    }
  },
  async validateInput(input) {
    const pathError = validatePathInput(input.file_path, 'file_path');
    if (pathError) return { result: false, message: pathError, errorCode: 1 };
    const pagesError = validatePagesInput(input.pages);
    if (pagesError) return { result: false, message: pagesError, errorCode: 7 };
    return { result: true };
  },
  async call(input, context) {
    return { data: await readFile(input, context) };
  },
  mapToolResultToToolResultBlockParam: mapReadResult,
});
