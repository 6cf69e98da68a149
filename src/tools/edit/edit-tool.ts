/**
 * Edit: exact string replacement, read-before-edit, staleness by content hash, a guarded fallback matcher, and an
 * atomic write that keeps encoding, BOM, line endings and mode. Input-only checks run in `validateInput`; everything
 * that looks at the file runs in `call()`, after the permission decision.
 */
import path from 'node:path';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { applyLineEndings } from '../shared/encoding.js';
import { FileToolError } from '../shared/errors.js';
import { statOrNullSync } from '../shared/file-kind.js';
import { makeParentFolders } from '../shared/opened-file.js';
import { countPatchLines, lineNumberAt, patchBetween, patchForSpan, snippetForHunks, snippetOf } from '../shared/patch.js';
import {
  backfillPathField,
  fileNotFoundMessage,
  getToolCwd,
  pathForPermission,
  resolveToolPath,
  suggestSimilarPath,
  validatePathInput,
} from '../shared/paths.js';
import { hasChangedSinceRead, readRequirementError, recordFileState, requireReadBeforeWrite, staleFileMessage } from '../shared/read-state.js';
import { loadTextFileForWrite, writeTextFile } from '../shared/text-file.js';
import { diagnosticsAfterEdit } from '../shared/edit-diagnostics.js';
import { mapEditResult, type EditOutput } from './edit-output.js';
import { findMatch, type MatchResult } from './find-match.js';
import { editPrompt, EDIT_TOOL_NAME } from './prompt.js';

const inputSchema = z.strictObject({
  file_path: z.string().describe('The absolute path to the file to modify'),
  old_string: z.string().describe('The text to replace'),
  new_string: z.string().describe('The text to replace it with (must be different from old_string)'),
  replace_all: z.boolean().default(false).optional().describe('Replace all occurrences of old_string (default false)'),
});

export type EditInput = z.infer<typeof inputSchema>;

export const NO_CHANGE_MESSAGE = 'No changes to make: old_string and new_string are exactly the same.';
const ORIGINAL_FILE_MAX_CHARS = 256 * 1024;

export function notFoundMessage(oldString: string, hint?: string): string {
  return `String to replace not found in file.\nString: ${oldString}${hint ? `\n${hint}` : ''}`;
}

export function ambiguousMessage(count: number, oldString: string, normalizations: readonly string[] = []): string {
  const after = normalizations.length > 0 ? ` (no exact match; these matches were found after the tool ${normalizations.join(', then ')})` : '';
  return `Found ${count} matches of the string to replace, but replace_all is false${after}. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${oldString}`;
}

async function createFile(absPath: string, content: string, context: ToolUseContext, input: EditInput): Promise<EditOutput> {
  makeParentFolders(absPath, { context, access: 'write' });
  const written = await writeTextFile(absPath, content, 'utf8', context);
  recordFileState(context, absPath, { bytes: written.bytes, stats: written.stats, text: content, partial: false });
  const structuredPatch = patchBetween('', content);
  return {
    filePath: absPath,
    oldString: input.old_string,
    newString: input.new_string,
    replaceAll: input.replace_all ?? false,
    originalFile: null,
    structuredPatch,
    userModified: context.inputModifiedByUser === true,
    replacements: 0,
    normalizations: [],
    changedSinceRead: false,
    created: true,
    snippet: snippetOf(content, 1, 1),
  };
}

function applyRanges(content: string, ranges: ReadonlyArray<readonly [number, number]>, replacement: string): string {
  let out = '';
  let last = 0;
  for (const [start, end] of ranges) {
    out += content.slice(last, start) + replacement;
    last = end;
  }
  return out + content.slice(last);
}

async function editFile(input: EditInput, context: ToolUseContext): Promise<EditOutput> {
  const absPath = resolveToolPath(input.file_path, context);
  const replaceAll = input.replace_all ?? false;
  // Synchronous, as the permission check's realpath of this path was (file-kind.ts).
  const stats = statOrNullSync(absPath);
  if (!stats) {
    if (input.old_string === '') return createFile(absPath, input.new_string, context, input);
    throw new FileToolError(fileNotFoundMessage(getToolCwd(context), await suggestSimilarPath(absPath, { context, access: 'read' })), 'NOT_FOUND');
  }
  const file = await loadTextFileForWrite(absPath, stats, 'edit', context);
  const crlf = file.lineEndings === 'CRLF';
  // CRLF files are matched with `\n` (what Read shows) and written back with `\r\n`.
  const content = crlf ? file.text.replace(/\r\n/g, '\n') : file.text;
  const oldString = crlf ? input.old_string.replace(/\r\n/g, '\n') : input.old_string;
  const newString = crlf ? input.new_string.replace(/\r\n/g, '\n') : input.new_string;

  const record = context.readFileState.get(absPath);
  if (oldString === '' && content.trim() !== '') throw new FileToolError('Cannot create new file - file already exists.', 'FILE_EXISTS');
  if (oldString !== '' && requireReadBeforeWrite(context)) {
    const notRead = readRequirementError(record);
    if (notRead) throw new FileToolError(notRead, 'NOT_READ');
  }
  const changedSinceRead = record !== undefined && hasChangedSinceRead(record, file.bytes, file.stats);

  let match: MatchResult;
  if (oldString === '') match = { kind: 'found', ranges: [[0, content.length]], newString, normalizations: [] };
  else match = findMatch(content, oldString, newString, replaceAll);
  if (changedSinceRead && record) {
    const once = match.kind === 'found' && match.ranges.length === 1 && match.normalizations.length === 0;
    if (!once) {
      const why =
        match.kind === 'none' ? 'old_string is not in the current file.' : match.kind === 'ambiguous' ? `old_string now occurs ${match.count} times.` : 'old_string does not match the current file exactly once.';
      throw new FileToolError(staleFileMessage(record, file.text, absPath, why), 'STALE');
    }
  }
  if (match.kind === 'none') throw new FileToolError(notFoundMessage(input.old_string, match.hint), 'NOT_FOUND_IN_FILE');
  if (match.kind === 'ambiguous') throw new FileToolError(ambiguousMessage(match.count, input.old_string, match.normalizations), 'AMBIGUOUS');

  const updated = applyRanges(content, match.ranges, match.newString);
  if (updated === content) throw new FileToolError(NO_CHANGE_MESSAGE, 'NO_CHANGE');
  const finalText = crlf ? applyLineEndings(updated, 'CRLF') : updated;
  const written = await writeTextFile(absPath, finalText, file.encoding, context, file.real);
  recordFileState(context, absPath, {
    bytes: written.bytes,
    stats: written.stats,
    text: finalText,
    partial: record?.partial ?? true,
    // The model knows what it changed, not what else changed on disk: further Edits may go ahead (each still matched
    // against the file as it is), a whole-file write needs a new read.
    unseenChanges: changedSinceRead || record?.unseenChanges === true,
  });

  const first = match.ranges[0]!;
  const last = match.ranges[match.ranges.length - 1]!;
  const delta = match.ranges.length * match.newString.length - match.ranges.reduce((n, [s, e]) => n + (e - s), 0);
  // The text before the first change is the same in both versions: one scan gives its line for patch and snippet.
  const firstLine = lineNumberAt(content, first[0]);
  const structuredPatch = patchForSpan(content, updated, { start: first[0], oldEnd: last[1], newEnd: last[1] + delta }, firstLine);
  let snippet;
  if (match.ranges.length === 1) {
    const inserted = match.newString.slice(0, Math.max(0, match.newString.length - 1));
    snippet = snippetOf(updated, firstLine, firstLine + (inserted.split('\n').length - 1), first[0]);
  } else {
    snippet = snippetForHunks(updated, structuredPatch);
  }
  return {
    filePath: absPath,
    oldString: input.old_string,
    newString: input.new_string,
    replaceAll,
    originalFile: file.text.length <= ORIGINAL_FILE_MAX_CHARS ? file.text : null,
    structuredPatch,
    userModified: context.inputModifiedByUser === true,
    replacements: match.ranges.length,
    normalizations: match.normalizations,
    changedSinceRead: changedSinceRead || record?.unseenChanges === true,
    created: false,
    snippet,
  };
}

export const EditTool = buildTool({
  name: EDIT_TOOL_NAME,
  asyncSafe: true,
  permissionTraits: { kind: 'write', pathField: 'file_path' },
  searchHint: 'modify file contents in place',
  inputSchema,
  maxResultSizeChars: 100_000,
  strict: true,
  async prompt() {
    return editPrompt();
  },
  isConcurrencySafe: () => false,
  isReadOnly: () => false,
  // A second run after a first one that finished finds the file changed since it was read (content hash) and refuses.
  isRetrySafe: () => true,
  getPath: (input) => pathForPermission(input.file_path),
  linesChanged: (output) => countPatchLines(output.structuredPatch),
  backfillObservableInput(input, context) {
    backfillPathField(input, 'file_path', context);
  },
  toAutoClassifierInput: (input) => `${input.file_path}: ${input.new_string}`,
  userFacingName: () => 'Update',
  renderToolUseMessage: (input) => input.file_path ?? '',
  loadViews: () => import('./render.js').then((m) => m.editViews),
  renderToolResultMessage: (output) =>
    output.created ? `Created ${output.filePath}` : `Updated ${output.filePath} (${output.replacements} replacement${output.replacements === 1 ? '' : 's'})`,
  async validateInput(input) {
    const pathError = validatePathInput(input.file_path, 'file_path');
    if (pathError) return { result: false, message: pathError, errorCode: 4 };
    if (input.old_string === input.new_string) return { result: false, message: NO_CHANGE_MESSAGE, errorCode: 1 };
    if (path.extname(input.file_path).toLowerCase() === '.ipynb') {
      return { result: false, message: 'File is a Jupyter Notebook. Use the NotebookEdit to edit this file.', errorCode: 5 };
    }
    return { result: true };
  },
  async call(input, context) {
    const data = await editFile(input, context);
    // The file's language server, when one runs, says what the edit broke (the next turn's context).
    const newMessages = await diagnosticsAfterEdit(context);
    return newMessages.length > 0 ? { data, newMessages } : { data };
  },
  mapToolResultToToolResultBlockParam: mapEditResult,
});
