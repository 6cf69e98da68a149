/**
 * Write: create or replace a whole file. An existing file must have been read in full (and not changed since);
 * the new content keeps the old file's encoding, BOM, CRLF convention and mode, and lands atomically.
 */
import path from 'node:path';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolResultBlockParam } from '../../tool/tool.js';
import { textToolResult } from '../../tool/tool-result.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { applyLineEndings, type TextEncoding } from '../shared/encoding.js';
import { FileToolError } from '../shared/errors.js';
import { notRegularFileMessage, statOrNullSync } from '../shared/file-kind.js';
import { makeParentFolders } from '../shared/opened-file.js';
import { countPatchLines, patchBetween, snippetForHunks, type PatchHunk } from '../shared/patch.js';
import { backfillPathField, pathForPermission, resolveToolPath, validatePathInput } from '../shared/paths.js';
import { hasChangedSinceRead, recordFileState, requireReadBeforeWrite, staleFileMessage, wholeFileRequirementError, NOT_READ_MESSAGE, FILE_STATE_CURRENT_NOTE } from '../shared/read-state.js';
import { loadTextFileForWrite, writeTextFile } from '../shared/text-file.js';
import { diagnosticsAfterEdit } from '../shared/edit-diagnostics.js';
import { writePrompt, WRITE_TOOL_NAME } from './prompt.js';

const inputSchema = z.strictObject({
  file_path: z.string().describe('The absolute path to the file to write (must be absolute, not relative)'),
  content: z.string().describe('The content to write to the file'),
});

export type WriteInput = z.infer<typeof inputSchema>;

export interface WriteOutput {
  readonly type: 'create' | 'update';
  readonly filePath: string;
  readonly content: string;
  readonly structuredPatch: PatchHunk[];
  /** The content before (null for a new file, or when larger than 256 KiB). */
  readonly originalFile: string | null;
  readonly userModified: boolean;
  /** Numbered lines around what changed (updates only). */
  readonly snippet: string;
}

const ORIGINAL_FILE_MAX_CHARS = 256 * 1024;

async function writeFile(input: WriteInput, context: ToolUseContext): Promise<WriteOutput> {
  const absPath = resolveToolPath(input.file_path, context);
  // Synchronous, as the permission check's realpath of this path was (file-kind.ts).
  const stats = statOrNullSync(absPath);
  if (stats && !stats.isFile()) throw new FileToolError(notRegularFileMessage(absPath, stats, 'write'), 'NOT_REGULAR_FILE');

  let before: string | null = null;
  let encoding: TextEncoding = 'utf8';
  let text = input.content;
  let readFrom: string | undefined;
  if (stats) {
    const record = context.readFileState.get(absPath);
    if (requireReadBeforeWrite(context)) {
      const notRead = wholeFileRequirementError(record);
      if (notRead) throw new FileToolError(notRead, notRead.startsWith(NOT_READ_MESSAGE) ? 'NOT_READ' : 'STALE');
    }
    const file = await loadTextFileForWrite(absPath, stats, 'write', context);
    if (record && hasChangedSinceRead(record, file.bytes, file.stats)) {
      throw new FileToolError(staleFileMessage(record, file.text, absPath), 'STALE');
    }
    before = file.text;
    encoding = file.encoding;
    readFrom = file.real;
    // Content written with \n into a CRLF file follows the file's convention; content that brings its own \r stays.
    if (file.lineEndings === 'CRLF' && !text.includes('\r')) text = applyLineEndings(text, 'CRLF');
  } else {
    makeParentFolders(absPath, { context, access: 'write' });
  }
  const written = await writeTextFile(absPath, text, encoding, context, readFrom);
  // What is on disk now is exactly what the model wrote: the record is a full read.
  recordFileState(context, absPath, { bytes: written.bytes, stats: written.stats, text, partial: false });
  const oldLf = (before ?? '').replace(/\r\n/g, '\n');
  const newLf = text.replace(/\r\n/g, '\n');
  const structuredPatch = patchBetween(oldLf, newLf);
  return {
    type: stats ? 'update' : 'create',
    filePath: absPath,
    content: input.content,
    structuredPatch,
    originalFile: before !== null && before.length <= ORIGINAL_FILE_MAX_CHARS ? before : null,
    userModified: context.inputModifiedByUser === true,
    snippet: stats ? snippetForHunks(newLf, structuredPatch).text : '',
  };
}

export function mapWriteResult(output: WriteOutput, toolUseId: string): ToolResultBlockParam {
  // The person changed the content before approving it: the model must not assume its own text was written.
  const userNote = output.userModified ? ' The user modified your proposed content before accepting it; what was written is what they approved.' : '';
  // Claude Code's texts (test/parity/cli/tool-results.json): no snippet, the file state note instead.
  if (output.type === 'create') return textToolResult(toolUseId, `File created successfully at: ${output.filePath}${userNote ? `.${userNote}` : FILE_STATE_CURRENT_NOTE}`);
  return textToolResult(toolUseId, `The file ${output.filePath} has been updated successfully.${userNote}${FILE_STATE_CURRENT_NOTE}`);
}

export const WriteTool = buildTool({
  name: WRITE_TOOL_NAME,
  asyncSafe: true,
  permissionTraits: { kind: 'write', pathField: 'file_path' },
  searchHint: 'create or overwrite files',
  inputSchema,
  maxResultSizeChars: 100_000,
  strict: true,
  async prompt() {
    return writePrompt();
  },
  isConcurrencySafe: () => false,
  isReadOnly: () => false,
  // A second run after a first one that finished finds the file changed since it was read (content hash) and refuses.
  isRetrySafe: () => true,
  // Replacing a whole file that exists can lose content (a permission dialog says so, and "always allow" takes a
  // second step); making a new one cannot. A path that cannot be looked at counts as existing (fail closed).
  isDestructive: (input) => {
    const target = pathForPermission(input.file_path);
    if (!path.isAbsolute(target)) return true;
    try {
      return statOrNullSync(target) !== null;
    } catch {
      return true;
    }
  },
  getPath: (input) => pathForPermission(input.file_path),
  linesChanged: (output) => countPatchLines(output.structuredPatch),
  backfillObservableInput(input, context) {
    backfillPathField(input, 'file_path', context);
  },
  toAutoClassifierInput: (input) => `${input.file_path}: ${input.content}`,
  userFacingName: () => WRITE_TOOL_NAME,
  renderToolUseMessage: (input) => input.file_path ?? '',
  loadViews: () => import('./render.js').then((m) => m.writeViews),
  renderToolResultMessage: (output) => `${output.type === 'create' ? 'Created' : 'Updated'} ${output.filePath}`,
  async validateInput(input) {
    const pathError = validatePathInput(input.file_path, 'file_path');
    return pathError ? { result: false, message: pathError, errorCode: 1 } : { result: true };
  },
  async call(input, context) {
    const data = await writeFile(input, context);
    // The file's language server, when one runs, says what the edit broke (the next turn's context).
    const newMessages = await diagnosticsAfterEdit(context);
    return newMessages.length > 0 ? { data, newMessages } : { data };
  },
  mapToolResultToToolResultBlockParam: mapWriteResult,
});
