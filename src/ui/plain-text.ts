/**
 * The session as plain text: the same items the Ink app draws, through the tools' plain-text methods. Used when
 * stdout is not a terminal, and as the fallback of any view that a tool does not bring.
 */
import type { ToolUseOutcome } from '../execution/outcome.js';
import { toolResultText } from '../tool/tool-result.js';
import type { AnyTool } from '../tool/tool.js';
import type { Item } from './session-store.js';

export function safeText(draw: () => string | undefined, fallback = ''): string {
  try {
    const text = draw();
    return typeof text === 'string' ? text : fallback;
  } catch {
    return fallback;
  }
}

export function toolTitle(tool: AnyTool | undefined, input: Record<string, unknown>): { name: string; args: string } {
  if (!tool) return { name: '?', args: '' };
  return {
    name: safeText(() => tool.userFacingName(input), tool.name),
    args: safeText(() => tool.renderToolUseMessage(input)),
  };
}

const MAX_LINES = 6;

/** What a finished call says: the tool's result line, or the tool_result's text (errors without their tags). */
export function outcomeText(outcome: ToolUseOutcome, verbose = false): string {
  if (outcome.stage === 'completed' && outcome.output !== undefined && outcome.tool?.renderToolResultMessage) {
    const tool = outcome.tool;
    const text = safeText(() => tool.renderToolResultMessage?.(outcome.output));
    if (text) return text;
  }
  let text = safeText(() => toolResultText(outcome.result)).replace(/<\/?tool_use_error>/g, '').trim();
  if (outcome.stage === 'permission' && text === '') text = 'Denied';
  const lines = text.split('\n');
  if (!verbose && lines.length > MAX_LINES) return `${lines.slice(0, MAX_LINES).join('\n')}\n… +${lines.length - MAX_LINES} lines`;
  return text || '(no output)';
}

/** One finished item as lines of text. */
export function itemText(item: Item): string {
  switch (item.kind) {
    case 'user':
      return `> ${item.text}`;
    case 'assistant':
      return item.text.replace(/\s+$/, '');
    case 'teammate':
      return `✉ ${item.from} → team-lead${item.summary ? ` (${item.summary})` : ''}\n${indent(item.text)}`;
    case 'notice':
      return `${item.tone === 'error' ? 'error: ' : item.tone === 'warn' ? 'warning: ' : ''}${item.text}`;
    case 'tool': {
      const input = (item.outcome?.input ?? item.block.input ?? {}) as Record<string, unknown>;
      const { name, args } = toolTitle(item.tool, input);
      const head = `● ${item.tool ? name : item.block.name}${args ? `(${args})` : ''}`;
      if (!item.outcome) return head;
      return `${head}\n${indent(outcomeText(item.outcome))}`;
    }
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? `  ⎿  ${line}` : `     ${line}`))
    .join('\n');
}
