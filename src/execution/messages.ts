/**
 * The texts the executor writes itself: system reminders that follow a tool_result, and the synthetic results of
 * calls that never ran or were cut short. Each says plainly what happened, so the model does not guess (a sibling
 * cancellation that reads like a user interrupt sends a model into a spiral).
 */
import { systemReminderText } from '../tool/message-origin.js';
import type { MessageParam, ToolResultBlockParam } from '../tool/tool.js';
import { safeJson } from '../tool/tool-result.js';

export function systemReminder(text: string): MessageParam {
  return { role: 'user', content: [{ type: 'text', text: systemReminderText(text) }] };
}

/** `No such tool available: X` with the name made printable and short (the model may send anything). */
export function unknownToolMessage(name: unknown): string {
  return `No such tool available: ${printableName(name)}`;
}

export function printableName(name: unknown): string {
  if (typeof name !== 'string') return `(${name === null ? 'null' : typeof name} name)`;
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '?');
  if (clean.length === 0) return '(empty name)';
  return clean.length > 100 ? `${clean.slice(0, 97)}...` : clean;
}

/** `Bash(mkdir build)`: the tool and its main argument, for messages that refer to another call. */
export function describeToolCall(name: string, input: unknown): string {
  let summary = '';
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const record = input as Record<string, unknown>;
    const main = record.command ?? record.file_path ?? record.notebook_path ?? record.pattern ?? record.url ?? record.path;
    if (typeof main === 'string') summary = main;
    else summary = safeJson(input).replace(/\s+/g, ' ');
  }
  if (summary.length > 60) summary = `${summary.slice(0, 57)}...`;
  return summary ? `${name}(${summary})` : name;
}

export function abortedBeforeStartMessage(reason: unknown): string {
  const why = typeof reason === 'string' && /^[\w .:-]{1,60}$/.test(reason) ? ` (${reason})` : '';
  return `Not run: the turn was cancelled${why} before this tool call started. Nothing was executed.`;
}

/** `erroredCall` says what happened to it: `Bash(mkdir x) failed`, `Bash(npm publish) was denied`. */
export function siblingCancelledMessage(erroredCall: string): string {
  return (
    `Cancelled automatically because the parallel tool call ${erroredCall}: a command that changes things and did ` +
    `not succeed stops the calls issued with it, since they may depend on it. This was NOT a user interrupt. ` +
    `This call was not run, or was stopped before it finished; run it again if it is still needed.`
  );
}

export const USER_INTERRUPT_MESSAGE =
  'Interrupted by the user: this tool call was stopped (or never started) because the user interrupted. ' +
  'Wait for the user to say how to proceed.';

export const STREAMING_FALLBACK_MESSAGE =
  'Discarded: the response that issued this tool call was abandoned (streaming fallback); the call will be re-issued.';

/**
 * A tool's `newMessages` as the messages that follow its tool_result (the seeds' attachment messages): a user message
 * keeps every block (text, images, documents); an assistant message (a sub-agent's words) becomes a user message
 * whose text says whose words they are — the model must not take them for its own. The API boundary folds the
 * consecutive user messages into one (`normalizeMessagesForAPI`).
 */
export function attachmentMessages(newMessages: readonly MessageParam[]): MessageParam[] {
  return newMessages.map((m) => {
    if (m.role === 'user') return m;
    const parts = typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'tool_use' ? [`[tool call ${b.name} ${safeJson(b.input)}]`] : []));
    return { role: 'user', content: [{ type: 'text', text: systemReminderText(`A message from another agent's conversation (role: assistant):\n${parts.join('\n')}`) }] };
  });
}

/** The user message the API expects after an assistant turn with tool_use blocks: every tool_result, in call order,
 * then what the tools' `newMessages` carry (every kind of block). */
export function toolResultsMessage(results: readonly ToolResultBlockParam[], after: readonly MessageParam[] = []): MessageParam {
  const extra = attachmentMessages(after).flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content));
  return { role: 'user', content: [...results, ...extra] };
}

/**
 * The conversation as the Messages API takes it: consecutive user messages (a tool_result message and the
 * attachments after it, a resumed transcript's last message and a new prompt) folded into one, tool_results first.
 */
export function normalizeMessagesForAPI(messages: readonly MessageParam[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (last?.role !== 'user' || m.role !== 'user') {
      out.push(m);
      continue;
    }
    const blocks = (x: MessageParam) => (typeof x.content === 'string' ? [{ type: 'text' as const, text: x.content }] : x.content);
    const merged = [...blocks(last), ...blocks(m)];
    // tool_result blocks must open the user message that answers a tool_use.
    merged.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
    out[out.length - 1] = { role: 'user', content: merged };
  }
  return out;
}
