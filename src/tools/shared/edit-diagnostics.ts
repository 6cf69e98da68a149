/**
 * Diagnostics after an edit: when Edit, Write or NotebookEdit change a file whose language server is already running
 * in this session (the LSP tool started it), the server is sent the text just written and the errors it then reports
 * for that file follow the tool_result as the next turn's context (a `<new-diagnostics>` reminder, as Claude Code
 * attaches them). Bounded: at most `DIAGNOSTICS_DEADLINE_MS` of waiting per edit (an edit never hangs on a server),
 * `MAX_SHOWN` errors, each message cut short. No server running for the file, or none answering in time: nothing.
 *
 * The LSP tool's manager provides the source (per session `services`), so the edit tools need not know it; the text
 * is the one the tool wrote (never read again by name: a link flipped since would hand the server another file).
 */
import path from 'node:path';
import { systemReminder } from '../../execution/messages.js';
import type { MessageParam } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';

/** One diagnostic as LSP publishes it (the fields used here). */
export interface EditDiagnostic {
  readonly range?: { readonly start?: { readonly line?: number; readonly character?: number } };
  readonly severity?: number;
  readonly code?: string | number;
  readonly source?: string;
  readonly message?: string;
}

/** Sends `text` as the file's new content to its running server; its diagnostics then, or undefined (none running, late). */
export type EditDiagnosticsSource = (file: string, text: string, deadlineMs: number, signal: AbortSignal) => Promise<readonly EditDiagnostic[] | undefined>;

export const DIAGNOSTICS_DEADLINE_MS = 3_000;
const MAX_SHOWN = 20;
const MAX_MESSAGE = 300;

const sources = new WeakMap<object, EditDiagnosticsSource>();
const written = new WeakMap<ToolUseContext, { file: string; text: string }>();

/** The session's language servers offer diagnostics for edited files (called by the LSP tool's manager). */
export function provideEditDiagnostics(services: object, source: EditDiagnosticsSource): void {
  sources.set(services, source);
}

/** What a file tool's call wrote (text-file.ts notes it): the last write of the call is the one diagnosed. */
export function noteWrittenText(context: ToolUseContext, file: string, text: string): void {
  if (sources.has(context.services)) written.set(context, { file, text });
}

/** The errors in LSP's shape as the reminder the model reads; undefined when there is none. */
export function formatDiagnostics(file: string, diagnostics: readonly EditDiagnostic[], cwd: string): string | undefined {
  const errors = diagnostics.filter((d) => (d.severity ?? 1) === 1);
  if (errors.length === 0) return undefined;
  const shown = path.relative(cwd, file).startsWith('..') ? file : path.relative(cwd, file) || file;
  const lines = errors.slice(0, MAX_SHOWN).map((d) => {
    const at = `[Line ${(d.range?.start?.line ?? 0) + 1}:${(d.range?.start?.character ?? 0) + 1}]`;
    const raw = String(d.message ?? '').replace(/\s+/g, ' ').trim();
    const message = raw.length > MAX_MESSAGE ? `${raw.slice(0, MAX_MESSAGE - 1)}…` : raw;
    const code = d.code !== undefined ? ` [${String(d.code)}]` : '';
    const source = d.source !== undefined ? ` (${String(d.source).slice(0, 40)})` : '';
    return `  ✘ ${at} ${message}${code}${source}`;
  });
  if (errors.length > MAX_SHOWN) lines.push(`  … and ${errors.length - MAX_SHOWN} more`);
  return `<new-diagnostics>The following diagnostic issues were detected after the edit:\n\n${shown}:\n${lines.join('\n')}\n</new-diagnostics>`;
}

/**
 * The messages that follow a file tool's result: the diagnostics of the file the call wrote, when its server is
 * running and answers within the deadline; [] otherwise. Never throws.
 */
export async function diagnosticsAfterEdit(context: ToolUseContext): Promise<MessageParam[]> {
  const source = sources.get(context.services);
  const edit = written.get(context);
  written.delete(context);
  if (source === undefined || edit === undefined) return [];
  try {
    const diagnostics = await source(edit.file, edit.text, DIAGNOSTICS_DEADLINE_MS, context.abortController.signal);
    const text = diagnostics === undefined ? undefined : formatDiagnostics(edit.file, diagnostics, context.getAppState().cwd);
    return text === undefined ? [] : [systemReminder(text)];
  } catch {
    return [];
  }
}
