/**
 * A conversation read back from a transcript (`--continue`, `/resume`), drawn as the session drew it: what the person
 * typed, the replies, and each tool call with its result (the result's text: the typed output a tool's own view
 * draws is not in the transcript).
 */
import { typedText } from '../tool/message-origin.js';
import type { MessageParam, ToolResultBlockParam, ToolUseBlock, AnyTool } from '../tool/tool.js';
import type { SessionStore } from './session-store.js';

export function drawConversation(store: SessionStore, messages: readonly MessageParam[], findTool: (name: string) => AnyTool | undefined): void {
  const results = new Map<string, ToolResultBlockParam>();
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'tool_result') results.set(b.tool_use_id, b);
  }
  for (const message of messages) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    if (message.role === 'user') {
      // Tool results and reminders ride in user messages too: only what a person typed is shown as theirs.
      const text = typedText({ content: blocks });
      if (text.trim() !== '') store.addUser(text);
      continue;
    }
    let words: string[] = [];
    const flush = () => {
      const text = words.join('').trim();
      if (text !== '') store.addAssistant(text);
      words = [];
    };
    for (const block of blocks) {
      if (block.type === 'text') words.push(block.text);
      else if (block.type === 'tool_use') {
        flush();
        const use = block as ToolUseBlock;
        store.addPastToolCall(use, findTool(use.name), results.get(use.id));
      }
    }
    flush();
  }
}
