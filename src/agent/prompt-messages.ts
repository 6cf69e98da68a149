/**
 * The user's side of a turn: the prompt as user messages after UserPromptSubmit hooks, the announcement of deferred
 * tools in a new conversation, and two user messages in a row folded into one (a resumed transcript may end with one).
 */
import type { LoopHookEvent, LoopHooks } from '../hooks/loop-hooks.js';
import { deferredToolNames } from '../tool/api-format.js';
import { stopHookFeedbackText, systemReminderText } from '../tool/message-origin.js';
import type { MessageParam, Tools } from '../tool/tool.js';
import { deferredToolsAnnouncement } from '../tools/tool-search/prompt.js';
import type { LoopSteps } from './loop-steps.js';
import type { ToolRuntime } from './types.js';
import type { QueryOptions } from './query-options.js';
import { contextOf } from './runtime-context.js';

/** The prompt as user messages, after UserPromptSubmit hooks (which may refuse it or add context). */
export async function promptMessages(
  prompt: QueryOptions['prompt'],
  hooks: LoopHooks | undefined,
  hookEvent: () => LoopHookEvent,
  signal: AbortSignal,
  startContext: readonly string[],
  steps: LoopSteps,
): Promise<{ messages: MessageParam[] } | { blocked: string }> {
  const messages: MessageParam[] = typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : [...prompt];
  const last = messages.at(-1);
  const text = last?.role === 'user' ? (typeof last.content === 'string' ? last.content : last.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n')) : '';
  const submit = hooks && last?.role === 'user' ? await steps.step('hook UserPromptSubmit', () => hooks.userPromptSubmit({ ...hookEvent(), prompt: text }, signal)) : undefined;
  if (submit?.block) return { blocked: `Prompt blocked by ${submit.block.source}: ${submit.block.reason}` };
  if (submit?.preventContinuation) return { blocked: submit.preventContinuation.stopReason ?? 'A UserPromptSubmit hook stopped the loop.' };
  // Each its own block, wrapped as the tool events' context is (execution/hook-steps.ts): a hook's text — often a
  // file's or a command's — is the machine's, not the person's, and auto mode's classifier must not read it as theirs.
  const context = [
    ...startContext.map((c) => hookContextText('SessionStart', c)),
    ...(submit?.additionalContext ?? []).map((c) => hookContextText('UserPromptSubmit', c)),
  ];
  if (context.length > 0 && last?.role === 'user') {
    const blocks = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : [...last.content];
    messages[messages.length - 1] = { role: 'user', content: [...blocks, ...context.map((text) => ({ type: 'text' as const, text }))] };
  }
  return { messages };
}

function hookContextText(event: 'SessionStart' | 'UserPromptSubmit', text: string): string {
  return systemReminderText(`${event} hook additional context: ${text}`);
}

/** The user message a Stop (or SubagentStop) hook's refusal becomes: its reason, marked as the machine's. */
export function stopHookFeedback(reason: string): MessageParam & { role: 'user' } {
  return { role: 'user', content: [{ type: 'text', text: stopHookFeedbackText(reason) }] };
}

/** Two user messages in a row become one (a resumed transcript may end with one). */
export function mergeIntoLastUser(messages: MessageParam[], next: MessageParam): MessageParam {
  const last = messages.at(-1);
  if (last?.role !== 'user' || next.role !== 'user') return next;
  messages.pop();
  const blocks = (m: MessageParam) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content);
  return { role: 'user', content: [...blocks(last), ...blocks(next)] };
}

/**
 * Deferred tools are announced by name only, in the first user message of a new conversation (a system reminder):
 * their schemas reach the model when it loads them through ToolSearch. Names only, so the prompt stays small and its
 * cache stable. A conversation handed in whole (it has an assistant message) was announced when it began.
 */
export function announceDeferredTools(prompt: MessageParam[], runtime: ToolRuntime): void {
  if (prompt.some((m) => m.role === 'assistant')) return;
  const first = prompt[0];
  if (first?.role !== 'user') return;
  const text = announcementFor(runtime.tools, contextOf(runtime).options.loadedDeferredTools);
  if (text === undefined) return;
  const content = typeof first.content === 'string' ? [{ type: 'text' as const, text: first.content }] : [...first.content];
  prompt[0] = { ...first, content: [{ type: 'text', text }, ...content] };
}

/**
 * The announcement per pool and loaded set (each session on a runtime announces the same one). Both are replaced,
 * never changed in place: a new pool is a new array, a ToolSearch load a new set.
 */
const announcements = new WeakMap<Tools, { readonly loaded: ReadonlySet<string> | undefined; readonly text: string | undefined }>();

function announcementFor(tools: Tools, loaded: ReadonlySet<string> | undefined): string | undefined {
  const hit = announcements.get(tools);
  if (hit && hit.loaded === loaded) return hit.text;
  const names = deferredToolNames(tools).filter((n) => loaded?.has(n) !== true);
  const text = names.length === 0 ? undefined : deferredToolsAnnouncement(names);
  announcements.set(tools, { loaded, text });
  return text;
}

/**
 * A turn's result text, by Claude Code's rule: the last block of the last assistant message when it is text, else
 * nothing (an answer that ends on a tool call has no text; the texts before the last one are not joined to it).
 */
export function finalText(messages: readonly MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    if (typeof m.content === 'string') return m.content;
    const last = m.content.at(-1);
    return last?.type === 'text' ? last.text : '';
  }
  return '';
}

export function lastText(messages: readonly MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    const text = m.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('');
    if (text) return text;
  }
  return '';
}
