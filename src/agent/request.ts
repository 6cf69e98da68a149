/**
 * The request of each turn: the tool list from the runtime (byte-identical while the pool is unchanged), the system
 * prompt and the conversation, with prompt-cache breakpoints on the last tool definition, the system prompt and the
 * last message.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { normalizeMessagesForAPI } from '../execution/messages.js';
import type { APIToolDefinition, MessageParam } from '../tool/tool.js';
import type { ModelRequest } from './model-step.js';
import type { ToolRuntime } from './types.js';

/** The model `query()` and the runtime's side calls use when none is given: the one table's default. */
export { DEFAULT_MODEL } from '../tool/models.js';
/** `max_tokens` of each model request when `QueryOptions.maxTokens` is not given. */
export const DEFAULT_MAX_TOKENS = 32_000;
const EPHEMERAL = { type: 'ephemeral' } as const;

export interface NextRequestOptions {
  readonly runtime: ToolRuntime;
  readonly model: string;
  readonly system: string;
  readonly messages: readonly MessageParam[];
  readonly maxTokens?: number;
  readonly thinking?: Anthropic.Messages.ThinkingConfigParam;
}

export async function nextRequest(options: NextRequestOptions): Promise<ModelRequest> {
  const definitions = await options.runtime.definitions({ model: options.model });
  const tools: APIToolDefinition[] = definitions.map((d, i) => (i === definitions.length - 1 ? { ...d, cache_control: EPHEMERAL } : d));
  return {
    model: options.model,
    max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    system: [{ type: 'text', text: options.system, cache_control: EPHEMERAL }],
    ...(tools.length > 0 ? { tools } : {}),
    messages: options.runtime.applyBudget(withLastMessageBreakpoint(normalizeMessagesForAPI(options.messages))),
    ...(options.thinking ? { thinking: options.thinking } : {}),
  };
}

function withLastMessageBreakpoint(messages: readonly MessageParam[]): MessageParam[] {
  const out = [...messages];
  const last = out.at(-1);
  if (!last) return out;
  const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : [...last.content];
  // Thinking blocks cannot carry a breakpoint: mark the last block that can.
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    content[i] = { ...block, cache_control: EPHEMERAL } as typeof block;
    break;
  }
  out[out.length - 1] = { ...last, content } as MessageParam;
  return out;
}
