/**
 * The Bash tool's output record and its tool_result text, in Claude Code's shapes: `Exit code N` first when a
 * command failed, the merged output, toolgate's notes, `<error>Command was aborted before completion</error>` for an
 * interrupted call, the background line, or `(Bash completed with no output)`.
 *
 * Long output is cut here, not by the executor: a successful command's becomes a `<persisted-output>` block (the
 * output file's path and a preview), a failing command's a head-and-tail excerpt (errors are usually at the end).
 */
import { blocksToolResult, imageBlock, textBlock, type ImageMediaType } from '../../tool/tool-result.js';
import type { ToolResultBlockParam } from '../../tool/tool.js';
import { formatCount } from '../../tool/format-count.js';
import { FAILURE_EXCERPT_CHARS, SUCCESS_PREVIEW_CHARS } from './bash-settings.js';
import {
  collapseCarriageReturns,
  decodeUtf8,
  decodeUtf8Head,
  decodeUtf8Tail,
  type OutputWindow,
} from '../shared/output-file.js';

export type TimeoutOutcome = 'moved_to_background' | 'killed';

export interface BashOutput {
  /** The merged stdout and stderr as the model sees it (whole, a preview or an excerpt). */
  readonly stdout: string;
  /** toolgate's own notes: timeout outcome, cwd reset, sandbox. Kept apart from the command's output. */
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly signal?: string | null;
  readonly interrupted: boolean;
  /** Failed (non-zero exit that is not a benign one), interrupted, killed, or refused. */
  readonly isError: boolean;
  readonly isImage?: boolean;
  readonly image?: { readonly base64: string; readonly mediaType: ImageMediaType };
  readonly backgroundTaskId?: string;
  /** A person moved the running command to the background (Ctrl+B, `runtime.backgroundToolUse`). */
  readonly backgroundedByUser?: boolean;
  readonly timedOutAfterMs?: number;
  readonly timeoutOutcome?: TimeoutOutcome;
  readonly returnCodeInterpretation?: string;
  /** The file holding the complete output, when the result shows less than all of it (or the task runs on). */
  readonly outputFile?: string;
  readonly outputBytes?: number;
  readonly truncated?: boolean;
  readonly cwdResetTo?: string;
  readonly sandboxed?: boolean;
}

export interface FormattedBody {
  readonly text: string;
  readonly truncated: boolean;
}

/**
 * The output text for the result. `limit` is the inline size in characters; `failed` picks the excerpt form.
 */
export function formatOutputBody(window: OutputWindow, options: { limit: number; failed: boolean; outputFile: string }): FormattedBody {
  const { limit, failed, outputFile } = options;
  const whole = window.complete ? collapseCarriageReturns(decodeUtf8(window.head)) : undefined;
  if (whole !== undefined && whole.length <= limit) return { text: whole, truncated: false };

  const head = whole ?? collapseCarriageReturns(decodeUtf8Head(window.head));
  const tail = whole ?? collapseCarriageReturns(decodeUtf8Tail(window.tail));
  const size = describeSize(window.sizeBytes, whole);
  if (failed) {
    const budget = Math.min(limit, FAILURE_EXCERPT_CHARS);
    const half = Math.floor(budget / 2);
    const first = cutAtLine(head.slice(0, half), 'end');
    const last = cutAtLine(tail.slice(-half), 'start');
    const marker = `\n\n... [output truncated: ${size} in total; the middle is omitted. Full output: ${outputFile}] ...\n\n`;
    return { text: `${first}${marker}${last}`, truncated: true };
  }
  // Claude Code's block, word for word (test/parity/cli/tool-results.json): the size in KB/MB, a 2 KB preview, `...`.
  const preview = cutAtLine(head.slice(0, Math.min(SUCCESS_PREVIEW_CHARS, limit)), 'end');
  const text = [
    '<persisted-output>',
    `Output too large (${humanSize(window.sizeBytes)}). Full output saved to: ${outputFile}`,
    '',
    `Preview (first ${humanSize(SUCCESS_PREVIEW_CHARS)}):`,
    preview,
    '...',
    '</persisted-output>',
  ].join('\n');
  return { text, truncated: true };
}

/** `223.5KB`, `2KB`, `1.2MB`: Claude Code's way (one decimal, none when it is zero, no space). */
function humanSize(bytes: number): string {
  const [value, unit] = bytes >= 1024 * 1024 ? [bytes / 1024 / 1024, 'MB'] : [bytes / 1024, 'KB'];
  return `${value.toFixed(1).replace(/\.0$/, '')}${unit}`;
}

function describeSize(bytes: number, whole: string | undefined): string {
  const human = bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} KB`;
  if (whole === undefined) return human;
  const newlines = whole.split('\n').length - 1;
  const lines = whole.length === 0 ? 0 : whole.endsWith('\n') ? newlines : newlines + 1;
  return `${human}, ${formatCount(whole.length)} characters, ${formatCount(lines)} lines`;
}

/** Prefers cutting at a line boundary when one is near (within the last/first fifth). */
function cutAtLine(text: string, side: 'start' | 'end'): string {
  if (side === 'end') {
    const nl = text.lastIndexOf('\n');
    return nl > text.length * 0.8 ? text.slice(0, nl) : text;
  }
  const nl = text.indexOf('\n');
  return nl !== -1 && nl < text.length * 0.2 ? text.slice(nl + 1) : text;
}

/** The seeds' line; `byUser`: the running command was moved there by a person. */
export function backgroundLine(taskId: string, outputFile: string, byUser = false): string {
  return `Command ${byUser ? 'was manually backgrounded by user' : 'running in background'} with ID: ${taskId}. Output is being written to: ${outputFile}`;
}

/** The tool_result of a Bash call. */
export function mapBashOutput(output: BashOutput, toolUseId: string): ToolResultBlockParam {
  if (output.isImage === true && output.image !== undefined) {
    const block = blocksToolResult(toolUseId, [imageBlock(output.image.base64, output.image.mediaType), textBlock(output.stderr.trim())]);
    return output.isError ? { ...block, is_error: true } : block;
  }
  const parts: string[] = [];
  if (output.exitCode !== null && output.exitCode !== 0 && output.returnCodeInterpretation === undefined && !output.interrupted) {
    parts.push(`Exit code ${output.exitCode}`);
  } else if (output.exitCode === null && output.signal && !output.interrupted && output.timeoutOutcome === undefined) {
    parts.push(`Killed by signal ${output.signal}`);
  }
  const out = output.stdout.replace(/^(\s*\n)+/, '').trimEnd();
  if (out !== '') parts.push(out);
  else if (output.returnCodeInterpretation !== undefined) parts.push(`(${output.returnCodeInterpretation})`);
  const notes = output.stderr.trim();
  if (notes !== '') parts.push(notes);
  if (output.interrupted) parts.push('<error>Command was aborted before completion</error>');
  if (output.backgroundTaskId !== undefined && output.timeoutOutcome === undefined && output.outputFile !== undefined) {
    parts.push(backgroundLine(output.backgroundTaskId, output.outputFile, output.backgroundedByUser === true));
  }
  const text = parts.length > 0 ? parts.join('\n') : '(Bash completed with no output)';
  return { type: 'tool_result', tool_use_id: toolUseId, content: text, ...(output.isError ? { is_error: true } : {}) };
}
