/** What Edit returns and how it reads for the model: Claude Code's texts (test/parity/cli/tool-results.json). */
import type { ToolResultBlockParam } from '../../tool/tool.js';
import { textToolResult } from '../../tool/tool-result.js';
import type { PatchHunk, Snippet } from '../shared/patch.js';
import { CHANGED_SINCE_READ_NOTE, FILE_STATE_CURRENT_NOTE } from '../shared/read-state.js';

export interface EditOutput {
  readonly filePath: string;
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll: boolean;
  /** The file before the edit; null for a new file or when it is larger than 256 KiB (hooks get the patch instead). */
  readonly originalFile: string | null;
  readonly structuredPatch: PatchHunk[];
  readonly userModified: boolean;
  readonly replacements: number;
  /** The fallback normalisations that were needed ([] for an exact match). */
  readonly normalizations: readonly string[];
  /** The file had changed on disk since it was read; the edit applied to the current content. */
  readonly changedSinceRead: boolean;
  readonly created: boolean;
  readonly snippet: Snippet;
}

export function editResultText(output: EditOutput): string {
  // A file an empty old_string created reads as any other edit, as in Claude Code.
  const note = output.changedSinceRead ? CHANGED_SINCE_READ_NOTE : FILE_STATE_CURRENT_NOTE;
  const userNote = output.userModified ? ' The user modified your proposed changes before accepting them.' : '';
  let text = output.replaceAll
    ? `The file ${output.filePath} has been updated. All occurrences were successfully replaced.${userNote}${note}`
    : `The file ${output.filePath} has been updated successfully.${userNote}${note}`;
  if (output.normalizations.length > 0) {
    text += `\n\nNote: old_string did not match the file exactly; it matched exactly once after the tool ${output.normalizations.join(', then ')}. The replacement was made on the file's actual text — use the exact text next time.`;
  }
  return text;
}

export function mapEditResult(output: EditOutput, toolUseId: string): ToolResultBlockParam {
  return textToolResult(toolUseId, editResultText(output));
}
